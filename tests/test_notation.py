"""The text notation of docs/rules.md: round trips, and every bad input's message through the CLI."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.cli import main
from solver.errors import NotationError
from solver.rules.game import legal_moves, play
from solver.rules.notation import (
    Move,
    Position,
    format_move,
    format_point_lists,
    format_position,
    parse_move,
    parse_position,
)
from solver.rules import make_rules

RULE_SETS = ["standard", "twelve", "lasker", "six", "three"]


# ---- random legal positions -----------------------------------------------------------------


@st.composite
def positions(draw, rules):
    """A position the rules allow as far as counts go: men on the board plus in hand at most
    ``rules.men`` a side and, without Lasker's rule, hands that empty in turn, White first."""
    board = rules.board_data
    n, men = board.n, rules.men
    nw = draw(st.integers(0, min(men, n)))
    nb = draw(st.integers(0, min(men, n - nw)))
    order = draw(st.permutations(range(n)))
    white = sum(1 << i for i in order[:nw])
    black = sum(1 << i for i in order[nw : nw + nb])
    side = draw(st.sampled_from("wb"))
    if rules.lasker == "on":
        hw = draw(st.integers(0, men - nw))
        hb = draw(st.integers(0, men - nb))
    else:
        extra = 1 if side == "b" else 0
        top = min(men - nw, men - nb - extra)
        if top < 0 or draw(st.booleans()):
            hw = hb = 0
        else:
            hw = draw(st.integers(0, top))
            hb = hw + extra
    return Position(white, black, side, hw, hb)


@st.composite
def rules_and_position(draw):
    rules = make_rules(draw(st.sampled_from(RULE_SETS)))
    return rules, draw(positions(rules))


@settings(max_examples=300, deadline=None)
@given(rules_and_position())
def test_position_round_trips(rp):
    rules, pos = rp
    board = rules.board_data
    text = format_position(pos, board)
    cells, side, *hands = text.split()
    assert len(cells) == board.n and set(cells) <= set("WB.") and side == pos.side
    assert hands == ([] if pos.hand_white == pos.hand_black == 0 else [str(pos.hand_white), str(pos.hand_black)])
    assert parse_position(text, rules) == pos
    assert parse_position(format_position(pos, board, hands=True), rules) == pos  # "... w 0 0"
    lists = format_point_lists(pos, board)
    assert parse_position(lists, rules) == pos
    # the point lists name exactly the men of each colour, in board-string order
    m = re.match(r"^W:(\S*) B:(\S*) ([wb])( \d+ \d+)?$", lists)
    assert m, lists
    for listed, mask in ((m.group(1), pos.white), (m.group(2), pos.black)):
        names = [p for p in listed.split(",") if p]
        assert names == [p for i, p in enumerate(board.points) if mask >> i & 1]


MOVE_RE = re.compile(r"^(pass|[a-g][1-7](-[a-g][1-7])?(x[a-g][1-7]){0,3})$")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_and_position(), st.sampled_from([[], ["double-mill=per-mill"], ["removal=optional"], ["blocked=passes"]]))
def test_move_round_trips(rp, extra):
    rules, pos = rp
    rules = make_rules(rules.name, extra) if extra else rules
    board = rules.board_data
    for move in legal_moves(pos, rules):
        text = format_move(move, board)
        assert MOVE_RE.match(text), text
        assert parse_move(text, board) == move
        after = play(pos, move, rules, check=False)
        assert parse_position(format_position(after, board), rules) == after


def test_examples_of_rules_md():
    std = make_rules("standard")
    board = std.board_data
    a = parse_position("WB..B..B.W...........W.. w", std)
    assert a == parse_position("WB..B..B.W...........W.. w 0 0", std)
    assert a == parse_position("W:a1,d1,g1 B:a4,b4,c4 w", std)
    assert format_position(a, board) == "WB..B..B.W...........W.. w"
    b = parse_position("W:d1 B: b 8 9", std)
    assert (b.side, b.hand_white, b.hand_black) == ("b", 8, 9)
    assert format_position(b, board) == ".........W.............. b 8 9"
    assert format_point_lists(b, board) == "W:d1 B: b 8 9"
    idx = board.index
    assert parse_move("d1", board) == Move(-1, idx["d1"])
    assert parse_move("a1-a4", board) == Move(idx["a1"], idx["a4"])
    assert parse_move("d1xb6", board) == Move(-1, idx["d1"], idx["b6"])
    assert parse_move("a1-a4xb6", board) == Move(idx["a1"], idx["a4"], idx["b6"])
    assert parse_move("a1-a4xb6xc4", board) == Move(idx["a1"], idx["a4"], idx["b6"], idx["c4"])
    assert parse_move("a1-a4xc4xb6", board) == Move(idx["a1"], idx["a4"], idx["b6"], idx["c4"])
    assert format_move(Move(idx["a1"], idx["a4"], idx["b6"], idx["c4"]), board) == "a1-a4xb6xc4"
    assert parse_move("pass", board).is_pass and format_move(Move(-1, -1), board) == "pass"


def test_triple_removal_round_trip():
    """One removal per mill: a placement on the diagonal board's b2 closes three mills and
    removes three men, written with three ``x``; the parser sorts them, the printer keeps that."""
    board = make_rules("twelve").board_data
    idx = board.index
    move = Move(-1, idx["b2"], idx["a7"], idx["d7"], idx["g4"])
    assert format_move(move, board) == "b2xa7xd7xg4"
    for text in ("b2xa7xd7xg4", "b2xg4xa7xd7", "b2xd7xg4xa7"):
        assert parse_move(text, board) == move
    assert move.removals == (idx["a7"], idx["d7"], idx["g4"])
    slide = parse_move("c3-b2xg4xa7xd7", board)
    assert slide == Move(idx["c3"], idx["b2"], idx["a7"], idx["d7"], idx["g4"])
    assert parse_move(format_move(slide, board), board) == slide


@pytest.mark.parametrize(
    "text",
    ["", "d", "d1-", "d1-d2-d3", "d1xb6xc4xc5xe5", "h1", "d1xh1", "D1", "d1 d2", "d1xb6xb6", "d1xb6xc4xb6", "d1xc4xb6xb6"],
)
def test_bad_moves(text):
    with pytest.raises(NotationError):
        parse_move(text, make_rules("standard").board_data)


# ---- bad input through the CLI ----------------------------------------------------------------

# (extra CLI arguments, position, a fragment the message must contain)
BAD_POSITIONS = [
    ([], "W:h1 B: w", "unknown point 'h1'"),
    ([], "W:a1,q9 B: w", "unknown point 'q9'"),
    ([], "W:A1 B: w", "'A1' is not a point name"),
    (["--rules", "three"], "W:d1 B: w", "unknown point 'd1' on the three board"),
    ([], "W:a1,a1 B: w", "point a1 given twice"),
    ([], "W:a1 B:b2,a1 w", "point a1 given twice"),
    ([], "W:a1 W:a4 B: w", "colour W given twice"),
    ([], "W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1 B: w", "White has 10 men on the board and 0 in hand, more than the 9"),
    ([], "B:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1 W: w", "Black has 10 men on the board and 0 in hand, more than the 9"),
    ([], "W:a1,a4 B:d1 w 8 8", "White has 2 men on the board and 8 in hand, more than the 9"),
    ([], "W: B: w 10 10", "White has 0 men on the board and 10 in hand, more than the 9"),
    (["--rules", "three"], "W:a1,a2,b3,c3 B: b", "White has 4 men on the board and 0 in hand, more than the 3"),
    (["--rules", "six"], "W: B: b 6 7", "Black has 0 men on the board and 7 in hand, more than the 6"),
    ([], "W:a1 B: w 3 5", "men in hand inconsistent"),
    ([], "W:a1 B:a4 b 8 8", "men in hand inconsistent"),
    ([], "W:a1 B: w 0 1", "men in hand inconsistent"),
    ([], "W:a1 B: w 1", "men in hand must be two numbers"),
    ([], "W:a1 B: w one two", "men in hand must be two whole numbers"),
    ([], "W:a1 B: w -1 -1", "men in hand cannot be negative"),
    ([], "W:a1 B: x", "bad side to move 'x'"),
    ([], "W:a1 B: W", "bad side to move 'W'"),
    ([], "WB..B..B.W...........W.. white", "bad side to move 'white'"),
    ([], "WB..B..B.W...........W..", "no side to move"),
    ([], "W:a1 B:", "no side to move"),
    ([], "WB.. w", "wrong length: the board string has 4 points, the standard board has 24"),
    ([], "WB..B..B.W...........W... w", "wrong length: the board string has 25 points"),
    (["--rules", "six"], "WB..B..B.W...........W.. w", "wrong length: the board string has 24 points, the six board has 16"),
    ([], "WB..B..B.W...........X.. w", "bad character 'X' in board string"),
    ([], "W:a1 w", "no list of B men"),
    ([], "X:a1 B: w", "bad colour 'X'"),
]


def _check_one_line(res, fragment):
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    err = res.stderr
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("error: ") and fragment in err, err


@pytest.mark.parametrize(("args", "position", "fragment"), BAD_POSITIONS)
def test_bad_position_show(args, position, fragment):
    res = CliRunner().invoke(main, ["show", *args, position])
    _check_one_line(res, fragment)
    assert res.stdout == ""


@pytest.mark.parametrize(("args", "position", "fragment"), BAD_POSITIONS)
def test_bad_position_moves(args, position, fragment):
    res = CliRunner().invoke(main, ["moves", *args, position])
    _check_one_line(res, fragment)
    assert res.stdout == ""
    # with --json the error is also reported on standard output, in place of the moves
    res = CliRunner().invoke(main, ["moves", "--json", *args, "-"], input=position + "\n")
    _check_one_line(res, fragment)
    assert fragment in res.stdout and '"error"' in res.stdout


def test_bad_position_among_good_ones():
    """A bad line does not stop the others; the status is still 2 and the message one line."""
    res = CliRunner().invoke(main, ["moves", "-"], input="W:a1 B: b 0 0\nW:h1 B: w\nW:a1,a4,a7 B:d1,d2,d3 w\n")
    _check_one_line(res, "unknown point 'h1'")
    assert len(res.stdout.splitlines()) == 2


BAD_RULES = [
    (["--rules", "nine"], "unknown rule set 'nine'"),
    (["--rules", ""], "unknown rule set ''"),
    (["-o", "flying"], "option 'flying' is not of the form NAME=VALUE"),
    (["-o", "flying=sometimes"], "option flying='sometimes' is not one of at-3, never"),
    (["-o", "wings=on"], "unknown option 'wings'"),
    (["-o", "name=x"], "unknown option 'name'"),
    (["-o", "men=many"], "option men='many' is not a whole number"),
    (["-o", "men=13"], "option men=13 is out of range 3..12"),
    (["--rules", "three", "-o", "men=10"], "10 men a side do not fit on the three board"),
    (["--rules", "three", "-o", "board=standard", "-o", "double-mill=both"], "double-mill='both'"),
]


@pytest.mark.parametrize(("args", "fragment"), BAD_RULES)
@pytest.mark.parametrize("command", ["show", "moves"])
def test_bad_rules(command, args, fragment):
    res = CliRunner().invoke(main, [command, *args, "W:a1 B:d1 w"])
    _check_one_line(res, fragment)


def test_good_options_are_accepted():
    res = CliRunner().invoke(main, ["moves", "--rules", "morabaraba", "-o", "flying=never", "-o", "men=10", "W: B: w 10 10"])
    assert res.exit_code == 0 and res.stderr == ""
    assert len(res.stdout.split(": ")[1].split()) == 24


@pytest.mark.parametrize(
    "args",
    [
        ["show", "W:h1 B: w"],
        ["moves", "W:a1 B: w 3 5"],
        ["moves", "--rules", "nine", "W: B: w"],
        ["show", "-o", "flying", "W: B: w"],
    ],
)
def test_bad_input_in_a_real_process(args):
    """The installed command, not the test runner: status 2, one line, no traceback."""
    script = Path(sys.executable).with_name("morris")
    command = [str(script)] if script.exists() else [sys.executable, "-c", "from solver.cli import main; main()"]
    proc = subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: "), proc.stderr
