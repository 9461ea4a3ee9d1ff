"""Standard rules against OpenSpiel's ``nine_mens_morris``, an independent implementation.

OpenSpiel splits a mill-closing move in two actions (the move, then the capture by the same
player); here they are joined, so that each entry is one move with its removal, as in our move
list. At every step of seeded random games the two move lists, the men counts and the game-over
verdict are compared, and the position (board, men in hand, side to move) after the move played
and after every legal move with a removal (after every legal move in the slow run).
OpenSpiel ends a game after 200 turns (plies) as a draw; the solver has no such rule, so the
comparison stops there. How the point numbering was checked is in tests/README.md.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pyspiel
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.rules import make_rules
from solver.rules import movegen as mg
from solver.rules.boards import STANDARD
from solver.rules.game import legal_moves, play, result
from solver.rules.notation import Move, Position

RULES = make_rules("standard")
GAME = pyspiel.load_game("nine_mens_morris")
MAX_TURNS = 200  # OpenSpiel's kMaxNumTurns: a draw after 200 plies

# OpenSpiel's drawing: 13 rows, the points at these columns; row r is rank 7 - r/2.
FILE_OF_COLUMN = {0: "a", 2: "b", 4: "c", 7: "d", 10: "e", 12: "f", 14: "g"}
# What tests/README.md says OpenSpiel's point numbers are: row by row from a7 to g1.
OPENSPIEL_POINTS = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()
OS2US = [STANDARD.index[p] for p in OPENSPIEL_POINTS]  # OpenSpiel point -> our point index


def drawing_points(text: str) -> list[tuple[str, str]]:
    """(point name, 'W'/'B'/'.') for every point of OpenSpiel's board drawing, in reading order.
    The name comes from where the point is drawn, not from OpenSpiel's numbering."""
    out = []
    for r, line in enumerate(text.split("\n")[:13]):
        for c, ch in enumerate(line):
            if ch in "WB.":
                out.append((FILE_OF_COLUMN[c] + str(7 - r // 2), ch))
    return out


def _point_offsets() -> tuple[list[tuple[int, int]], int]:
    """Where drawing_points finds each point in OpenSpiel's string (offset, our point index),
    and where the drawing ends: reading those characters is much faster than the scan."""
    lines = str(GAME.new_initial_state()).split("\n")[:13]
    out, offset = [], 0
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch in "WB.":
                out.append((offset + c, STANDARD.index[FILE_OF_COLUMN[c] + str(7 - r // 2)]))
        offset += len(line) + 1
    return out, offset


POINT_OFFSETS, DRAWING_END = _point_offsets()
COUNTERS = re.compile(r"\s*Current player: ([WB])\nTurn number: (\d+)\nMen to deploy: (\d+) (\d+)\nNum men: (\d+) (\d+)\n")


def read_state(state) -> tuple[Position, int, tuple[int, int]]:
    """Our Position for an OpenSpiel state (from its string), its turn number and men counts."""
    text = str(state)
    white = black = 0
    for offset, i in POINT_OFFSETS:
        ch = text[offset]
        if ch == "W":
            white |= 1 << i
        elif ch == "B":
            black |= 1 << i
    m = COUNTERS.match(text, DRAWING_END)
    side, turn, hw, hb, nw, nb = m.groups()
    return Position(white, black, side.lower(), int(hw), int(hb)), int(turn), (int(nw), int(nb))


def board_string(state) -> str:
    """The board string of docs/rules.md, written straight from OpenSpiel's drawing and counters."""
    text = str(state)
    cells = dict(drawing_points(text))
    info = dict(line.split(": ", 1) for line in text.split("\n")[13:] if ": " in line)
    side = info["Current player"].lower()
    return "".join(cells[p] for p in STANDARD.points) + f" {side} {info['Men to deploy']}"


def joined_moves(state) -> dict[Move, object]:
    """OpenSpiel's legal moves with the capture joined on: Move -> the state after it."""
    player = state.current_player()
    out = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if action < 24:
            frm, to = -1, OS2US[action]
        else:
            frm, to = OS2US[(action - 24) // 24], OS2US[(action - 24) % 24]
        if not child.is_terminal() and child.current_player() == player:  # a mill: capture next
            for capture in child.legal_actions():
                assert capture < 24
                grandchild = child.clone()
                grandchild.apply_action(capture)
                out[Move(frm, to, OS2US[capture])] = grandchild
        else:
            out[Move(frm, to)] = child
    return out


def move_text(action_pair: tuple[int, int | None]) -> str:
    """A joined OpenSpiel move in the notation of docs/rules.md, from OpenSpiel's numbering alone."""
    action, capture = action_pair
    if action < 24:
        text = OPENSPIEL_POINTS[action]
    else:
        text = f"{OPENSPIEL_POINTS[(action - 24) // 24]}-{OPENSPIEL_POINTS[(action - 24) % 24]}"
    return text if capture is None else f"{text}x{OPENSPIEL_POINTS[capture]}"


def joined_actions(state) -> list[tuple[int, int | None]]:
    player = state.current_player()
    out = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if not child.is_terminal() and child.current_player() == player:
            out += [(action, c) for c in child.legal_actions()]
        else:
            out.append((action, None))
    return out


# ---- the point numbering -------------------------------------------------------------------


def test_point_numbering():
    """OpenSpiel's point i is the i-th point of its drawing read row by row (a7 ... g1)."""
    start = GAME.new_initial_state()
    assert [name for name, _ in drawing_points(str(start))] == OPENSPIEL_POINTS
    assert start.legal_actions() == list(range(24))
    for action in range(24):
        state = GAME.new_initial_state()
        state.apply_action(action)  # White places a man on point `action`
        men = [name for name, ch in drawing_points(str(state)) if ch != "."]
        assert men == [OPENSPIEL_POINTS[action]]
        state.apply_action(23 if action != 23 else 0)  # Black answers, then White's second man
        assert [n for n, ch in drawing_points(str(state)) if ch == "W"] == [OPENSPIEL_POINTS[action]]


def test_adjacency_agrees():
    """Every slide OpenSpiel allows in some random games is along one of our lines, and every one
    of our 64 directed adjacencies occurs among them."""
    ours = {(i, j) for i, nb in enumerate(STANDARD.neighbours) for j in nb}
    seen = set()
    for seed in range(60):
        rng = random.Random(seed)
        state = GAME.new_initial_state()
        while not state.is_terminal():
            pos, _, (nw, nb) = read_state(state)
            mover_men = nw if pos.side == "w" else nb
            for action in state.legal_actions():
                if action >= 24 and mover_men > 3 and pos.hand_mover == 0:
                    seen.add((OS2US[(action - 24) // 24], OS2US[(action - 24) % 24]))
            state.apply_action(rng.choice(state.legal_actions()))
    assert seen == ours


# ---- random games ---------------------------------------------------------------------------


def _formed(pos: Position, move: Move) -> int:
    me = pos.mover & ~(1 << move.frm) if move.frm >= 0 else pos.mover
    return mg.mills_formed(me | 1 << move.to, move.to, STANDARD.point_mills)


def _choose(rng: random.Random, policy: int, options: dict[Move, object]) -> Move:
    """0: uniform; 1: mostly mill-closing moves (removals, double mills, men in mills taken);
    2: mostly the moves that leave the opponent fewest OpenSpiel actions (blocked positions)."""
    moves = list(options)
    if policy == 1 and rng.random() < 0.7:
        moves = [m for m in moves if m.remove1 >= 0] or moves
    elif policy == 2 and rng.random() < 0.7:
        fewest = min(len(options[m].legal_actions()) for m in moves)
        moves = [m for m in moves if len(options[m].legal_actions()) == fewest]
    return rng.choice(moves)


def play_and_compare(seed: int, stats: Counter, every_child: bool = False) -> None:
    """One game, compared at every step. The position after a move is compared for the move
    played and for every move with a removal (``every_child``: for every legal move)."""
    rng = random.Random(seed)
    policy = seed % 3
    state = GAME.new_initial_state()
    pos, _, _ = read_state(state)
    for ply in range(10_000):
        seen, turn, (nw, nb) = read_state(state)
        assert seen == pos, (seed, ply)
        assert turn == ply
        assert (nw, nb) == (bin(pos.white).count("1") + pos.hand_white, bin(pos.black).count("1") + pos.hand_black)
        ours = legal_moves(pos, RULES)
        res = result(pos, RULES)
        if turn >= MAX_TURNS and res is None:  # OpenSpiel's turn limit; the game goes on for us
            assert state.is_terminal() and state.returns() == [0.0, 0.0]
            stats["200-turn draws"] += 1
            return
        if state.is_terminal():  # a loss at turn 200 is a loss for OpenSpiel too
            mover = 0 if pos.side == "w" else 1
            assert res == "loss" and ours == [], (seed, ply)
            assert state.returns()[mover] == -1.0 and state.returns()[1 - mover] == 1.0
            if (nw, nb)[mover] >= 3:
                stats["blocked"] += 1
            else:
                stats["fewer than 3 men"] += 1
            return
        assert res is None, (seed, ply)
        theirs = joined_moves(state)
        assert len(ours) == len(set(ours)), (seed, ply)
        assert set(ours) == set(theirs), (seed, ply, sorted(set(ours) ^ set(theirs), key=str))
        move = _choose(rng, policy, theirs)
        for other, child in theirs.items():
            if every_child or other.remove1 >= 0 or other == move:
                assert read_state(child)[0] == play(pos, other, RULES, check=False), (seed, ply, other)
                stats["positions after a move"] += 1
        stats["positions"] += 1
        stats["moves"] += len(ours)
        if move.remove1 >= 0:
            stats["removals"] += 1
            opp_in_mills = mg.men_in_mills(pos.opponent, STANDARD.mill_masks)
            if opp_in_mills >> move.remove1 & 1:
                assert opp_in_mills == pos.opponent  # only when every opponent man is in a mill
                stats["removals from a mill"] += 1
            if _formed(pos, move) >= 2:
                stats["double mills"] += 1
        pos = play(pos, move, RULES)
        state = theirs[move]
        stats["plies"] += 1
    raise AssertionError("game did not end")


def run_games(seeds, every_child: bool = False) -> Counter:
    stats = Counter()
    for seed in seeds:
        play_and_compare(seed, stats, every_child)
        stats["games"] += 1
    print(dict(stats))
    assert stats["games"] == stats["blocked"] + stats["fewer than 3 men"] + stats["200-turn draws"]
    for kind in ("removals from a mill", "double mills", "blocked", "fewer than 3 men", "200-turn draws"):
        assert stats[kind] >= 1, (kind, dict(stats))
    return stats


def test_random_games():
    """150 seeded games (11 k positions; every kind of ending and removal is reached by the 25th,
    double mills 3 times); 10,000 more, each child of each position compared too, in
    ``test_many_random_games`` (``-m slow``)."""
    stats = run_games(range(150))
    assert stats["positions"] > 10_000


@pytest.mark.slow
def test_many_random_games():
    run_games(range(2400, 2400 + 10_000), every_child=True)


# ---- the command line ------------------------------------------------------------------------


def test_cli_moves_json():
    """``morris moves --json -`` on positions from OpenSpiel games, compared with OpenSpiel's
    moves written in our notation straight from OpenSpiel's point numbers."""
    lines, expected = [], []
    for seed in range(60):
        rng = random.Random(10_000 + seed)
        state = GAME.new_initial_state()
        while True:
            _, turn, _ = read_state(state)
            if turn >= MAX_TURNS:
                break
            lines.append(board_string(state))
            if state.is_terminal():
                expected.append(([], "loss"))
                break
            actions = joined_actions(state)
            expected.append((sorted(move_text(a) for a in actions), None))
            action, capture = rng.choice(actions)
            state.apply_action(action)
            if capture is not None:
                state.apply_action(capture)
    assert len(lines) > 3000
    res = CliRunner().invoke(main, ["moves", "--json", "-"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0 and res.stderr == "", res.stderr
    out = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(out) == len(lines)
    for line, got, (moves, res_) in zip(lines, out, expected):
        assert got["position"].split()[:2] == line.split()[:2]
        assert (sorted(got["moves"]), got["result"]) == (moves, res_), line
