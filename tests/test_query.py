"""The query layer: ``solver.api`` (open_database, probe, evaluate_moves, best_moves) and
``morris query``, checked against a slow plain-Python evaluation.

Small databases are built once per session (standard up to 4 men, six up to 4 men, no-flying
3-3). For random positions of every subspace the expected value and plies are computed by brute
force: the successors come from the reference move generator of ``tests/reference.py`` (plain
Python, written from the board data), each successor is probed on its own, and the terminal rules
and the best-move rule of docs/rules.md ("Values") give the position's value; every move's value must
be the flip of its successor's, and the positions after the moves must be the reference's. The
same check runs on 3-3 databases of rule variants (mill-wins, passing, forfeited removals; bigger
ones under ``-m slow``). Where ``tests/reference.py`` offers ``solve_reference``, probe()
is compared with it on the six board as well.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import reference  # tests/reference.py (conftest puts tests/ on the path): a broken one fails here
from click.testing import CliRunner

from solver import Analysis, MoveValue, Probe, open_database, three_men_rule
from solver.cli import main
from solver.engine.run import solve
from solver.errors import (
    DatabaseError,
    MismatchError,
    MissingSubspaceError,
    NotationError,
    OutsideDatabaseError,
)
from solver.rules import get_rules, make_rules
from solver.rules.game import play
from solver.rules.notation import Position, format_position, parse_move
from solver.storage.database import Database

STANDARD = get_rules("standard")
SIX = get_rules("six")
NO_FLYING = get_rules("no-flying")


@pytest.fixture(scope="session")
def dbs(solved_db) -> dict[str, Path]:
    return {name: solved_db(name, max_men) for name, max_men in (("standard", 4), ("six", 4), ("no-flying", 3))}


def random_position(rules, a: int, b: int, rng: random.Random) -> Position:
    """A random moving-phase position with ``a`` men of the side to move and ``b`` of the other."""
    pts = rng.sample(range(rules.board_data.n), a + b)
    mover = sum(1 << p for p in pts[:a])
    opp = sum(1 << p for p in pts[a:])
    return Position.from_mover(rng.choice("wb"), mover, opp)


def flip(value: str, plies: int | None) -> tuple[str, int | None]:
    """The value of a move for its maker, from the value of the position it leads to."""
    if value == "draw":
        return "draw", None
    return ("win" if value == "loss" else "loss"), plies + 1


def brute_force(db, pos: Position) -> tuple[str, int | None]:
    """The value of ``pos`` from its successors' probed values and the terminal rules alone."""
    gen = reference.MoveGen(db.rules)
    if gen.is_lost(pos.mover, pos.opponent):
        return "loss", 0
    other = "b" if pos.side == "w" else "w"
    succ = [Position.from_mover(other, m2, o2) for m2, o2 in gen.successors(pos.mover, pos.opponent)]
    vals = [flip(p.value, p.plies) for p in db.probe_many(succ)]
    wins = [k for v, k in vals if v == "win"]
    if wins:
        return "win", min(wins)
    if any(v == "draw" for v, _ in vals):
        return "draw", None
    return "loss", max(k for _, k in vals)


def check_position(db, pos: Position) -> Analysis:
    """Every claim of analyse() about ``pos`` against the brute-force evaluation."""
    an = db.analyse(pos)
    probe = db.probe(pos)
    assert probe == an.probe
    assert (probe.value, probe.plies) == brute_force(db, pos), format_position(pos, db.board)
    # every move: its position after, its value from that position's probe
    gen = reference.MoveGen(db.rules)
    expected_after = {(m2, o2) for m2, o2 in gen.moves(pos.mover, pos.opponent)} if probe.plies != 0 else set()
    got_after = set()
    for mv in an.moves:
        assert mv.after == play(pos, mv.move, db.rules)
        assert parse_move(mv.notation, db.board) == mv.move
        got_after.add((mv.after.opponent, mv.after.mover))
        succ = db.probe(mv.after)
        assert (mv.value, mv.plies) == flip(succ.value, succ.plies)
    assert got_after == expected_after
    # the table: sorted best first, and the position's value is the best move's
    keys = [mv.sort_key for mv in an.moves]
    assert keys == sorted(keys)
    if an.moves:
        assert (an.moves[0].value, an.moves[0].plies) == (probe.value, probe.plies)
        assert list(an.best_moves) == [m for m in an.moves if m.sort_key == keys[0]]
    else:
        assert (probe.value, probe.plies) == ("loss", 0)
    three = db.rules.men > 3 and pos.white.bit_count() == 3 and pos.black.bit_count() == 3
    assert probe.three_men_rule == (three_men_rule(probe.value, probe.plies) if three else None)
    for mv in an.moves:
        assert mv.three_men_rule == (three_men_rule(mv.value, mv.plies) if three else None)
    return an


@pytest.mark.parametrize(
    "name, rules, top, count",
    [("standard", STANDARD, 4, 10), ("six", SIX, 4, 25), ("no-flying", NO_FLYING, 3, 40)],
)
def test_random_positions_against_brute_force(dbs, name, rules, top, count):
    rng = random.Random(f"query-{name}")
    seen = {"win": 0, "draw": 0, "loss": 0}
    with open_database(dbs[name]) as db:
        assert db.rules.options == rules.options
        for a in range(3, top + 1):
            for b in range(3, top + 1):
                for _ in range(count):
                    an = check_position(db, random_position(rules, a, b, rng))
                    seen[an.probe.value] += 1
    assert all(seen.values()), seen  # the sample reached wins, draws and losses


@pytest.mark.parametrize(
    "name, options, top",
    [
        ("three", [], 3),  # a mill wins at once
        ("no-flying", ["blocked=passes"], 3),  # a blocked side passes
        ("viking", [], 3),  # the removal is forfeited when every man stands in a mill
        pytest.param("standard", ["double-mill=per-mill", "removal=optional"], 4, marks=pytest.mark.slow),
        pytest.param("six", ["double-mill=per-mill"], 4, marks=pytest.mark.slow),
    ],
)
def test_rule_variants_against_brute_force(tmp_path, name, options, top):
    rules = make_rules(name, options)
    path = tmp_path / "variant.h5"
    solve(rules, top, path, progress=False, echo=lambda s: None)
    rng = random.Random(f"variant-{name}-{options}")
    with open_database(path) as db:
        assert db.rules.options == rules.options
        for a in range(3, top + 1):
            for b in range(3, top + 1):
                for _ in range(30 if top == 3 else 10):
                    check_position(db, random_position(rules, a, b, rng))


def test_hand_made_positions(dbs):
    with open_database(dbs["standard"]) as db:
        # White has a mill a1-d1-g1 and flies: opens it and closes it again (docs/rules.md example).
        pos = db.position("W:a1,d1,g1 B:a4,b4,c4 w")
        an = check_position(db, pos)
        assert (an.probe.value, an.probe.plies) == ("win", 3)
        assert an.probe.three_men_rule == "win"
        # Closing a mill against three men ends the game: a win in 1 for every removal choice.
        an = check_position(db, db.position("W:a1,d1,g4 B:a4,b4,c4 w"))
        ones = [m for m in an.moves if m.plies == 1]
        assert {m.notation for m in ones} == {"g4-g1xa4", "g4-g1xb4", "g4-g1xc4"}
        assert (an.probe.value, an.probe.plies) == ("win", 1)
        assert [m.notation for m in an.best_moves] == ["g4-g1xa4", "g4-g1xb4", "g4-g1xc4"]
        # The side to move already lost: two men.
        assert db.probe("W:a1,d1 B:a4,b4,c4 w") == Probe("loss", 0, None)
        assert db.evaluate_moves("W:a1,d1 B:a4,b4,c4 w") == []
        assert db.best_moves("W:a1,d1 B:a4,b4,c4 w") == []
    with open_database(dbs["no-flying"]) as db:
        # Blocked without flying: a1, d1, g1 against a4, d2, g4.
        blocked = db.position("W:a1,d1,g1 B:a4,d2,g4 w")
        assert db.probe(blocked) == Probe("loss", 0, "loss")
        assert db.evaluate_moves(blocked) == []
        check_position(db, blocked)
        # The blocking move is a win in 1 for the other side.
        an = check_position(db, db.position("W:a1,d1,g1 B:a4,d2,g7 b"))
        assert ("g7-g4", "win", 1) in [(m.notation, m.value, m.plies) for m in an.moves]


def test_string_and_position_agree(dbs):
    with open_database(dbs["six"]) as db:
        rng = random.Random(7)
        for _ in range(20):
            pos = random_position(SIX, rng.randint(3, 4), rng.randint(3, 4), rng)
            text = format_position(pos, db.board)
            assert db.probe(text) == db.probe(pos)
            assert db.evaluate_moves(text) == db.evaluate_moves(pos)
            assert all(isinstance(m, MoveValue) for m in db.evaluate_moves(pos))


def test_against_reference_solver_on_six(dbs):
    """probe() against the independent reference solver, six board, 3-3 (4 men: -m slow)."""
    _compare_with_reference(dbs["six"], [(3, 3)], sample=1500)


@pytest.mark.slow
def test_against_reference_solver_on_six_four_men(dbs):
    _compare_with_reference(dbs["six"], None, sample=4000)


def _compare_with_reference(path, subspaces, sample):
    if not hasattr(reference, "solve_reference"):
        pytest.skip("tests/reference.py has no solve_reference")
    ref = reference.solve_reference(SIX, max_men=4, subspaces=subspaces)
    rng = random.Random(11)
    with open_database(path) as db:
        for (a, b), sub in sorted(ref.items()):
            picks = rng.sample(range(len(sub.value)), min(sample, len(sub.value)))
            positions = [Position.from_mover(rng.choice("wb"), int(sub.mover[i]), int(sub.opp[i])) for i in picks]
            for pos, got in zip(positions, db.probe_many(positions)):
                want = reference.lookup(ref, pos.mover, pos.opponent)
                assert (got.value, got.plies) == want, (a, b, format_position(pos, db.board))


def test_three_men_rule():
    assert three_men_rule("win", 19) == "win"
    assert three_men_rule("loss", 20) == "loss"
    assert three_men_rule("win", 21) == "draw"
    assert three_men_rule("loss", 22) == "draw"
    assert three_men_rule("draw", None) == "draw"
    assert three_men_rule("loss", 0) == "loss"
    assert three_men_rule("win", 15, played=6) == "draw"
    assert three_men_rule("win", 13, played=6) == "win"
    with pytest.raises(ValueError):
        three_men_rule("won", 3)
    with pytest.raises(ValueError):
        three_men_rule("win", None)


def test_probes_read_single_values_and_batches_read_once_per_subspace(dbs, monkeypatch):
    def whole(*args, **kwargs):
        raise AssertionError("a probe loaded a whole subspace")

    calls = []
    real = Database.read_slots

    def counting(self, a, b, slots, ha=0, hb=0):
        calls.append((a, b, len(slots)))
        return real(self, a, b, slots, ha, hb)

    monkeypatch.setattr(Database, "values", whole)
    monkeypatch.setattr(Database, "read_slots", counting)
    with open_database(dbs["six"]) as db:
        assert db.probe("W:a1,a3,a5 B:e1,e3,e5 w").value in ("win", "draw", "loss")
        assert calls == [(3, 3, 1)]
        calls.clear()
        rng = random.Random(3)
        positions = [random_position(SIX, rng.randint(3, 4), rng.randint(3, 4), rng) for _ in range(300)]
        out = db.analyse_many(positions)
        assert len(out) == 300
        assert len(calls) <= 4  # one read per subspace for the positions and all their moves
        assert len({(a, b) for a, b, _ in calls}) == len(calls)


def test_typed_errors(dbs, tmp_path):
    with open_database(dbs["standard"]) as db:
        with pytest.raises(NotationError):
            db.probe("W:a1,x9 B:a4 w")
        with pytest.raises(NotationError):
            db.probe("W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1 B:g1,g4,g7 w")  # ten men
        with pytest.raises(NotationError):
            db.probe(Position(1, 1, "w"))  # a point with both colours
        with pytest.raises(NotationError):
            db.probe("W:a1,d1,g1 B:a4,b4 w")  # Black has lost already and is not to move
        with pytest.raises(MissingSubspaceError, match=r"tier 3-3-1-1 .*morris solve --rules standard --db .* --whole-game"):
            db.probe("W:a1,d1,g1 B:a4,b4,c4 w 1 1")
        with pytest.raises(MissingSubspaceError, match=r"5-5 .*morris solve --rules standard --max-men 5"):
            db.probe("W:a1,d1,g1,a4,a7 B:b4,c4,b6,c5,d5 b")
        # a batch can report bad positions in place
        out = db.probe_many(["W:a1,x9 B:a4 w", "W:a1,d1,g1 B:a4,b4,c4 w"], on_error="return")
        assert isinstance(out[0], NotationError) and isinstance(out[1], Probe)
    with open_database(dbs["no-flying"]) as db:
        with pytest.raises(MissingSubspaceError):  # its moves lead into 3-4, not in a 3-3 file
            db.evaluate_moves("W:a1,d1,g1,d7 B:a4,d2,g4 w")
    not_db = tmp_path / "not.h5"
    not_db.write_text("hello\n")
    with pytest.raises(DatabaseError):
        open_database(not_db)
    with pytest.raises(DatabaseError):
        open_database(tmp_path / "missing.h5")
    with pytest.raises(MismatchError):
        open_database(dbs["six"], rules=STANDARD)


# -- morris query ------------------------------------------------------------------------------


def run_query(*args, input=None):
    result = CliRunner().invoke(main, ["query", *map(str, args)], input=input)
    # never a traceback: every failure is a clean exit
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def test_query_json_matches_the_api(dbs):
    rng = random.Random(5)
    positions = [format_position(random_position(SIX, rng.randint(3, 4), rng.randint(3, 4), rng), SIX.board_data) for _ in range(40)]
    positions.append("W:a1,a3 B:e1,e3,e5 w")  # lost already
    res = run_query("--db", dbs["six"], "--json", "-", input="\n".join(positions) + "\n")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == len(positions)
    with open_database(dbs["six"]) as db:
        for text, line in zip(positions, lines):
            obj = json.loads(line)
            an = db.analyse(text)
            three = an.position.white.bit_count() == 3 and an.position.black.bit_count() == 3
            keys = {"position", "value", "plies", "moves"} | ({"three_men_rule"} if three else set())
            assert set(obj) == keys
            assert obj["position"] == an.board_string
            assert (obj["value"], obj["plies"]) == (an.probe.value, an.probe.plies)
            assert obj["plies"] is None if obj["value"] == "draw" else isinstance(obj["plies"], int)
            if three:
                assert obj["three_men_rule"] == three_men_rule(obj["value"], obj["plies"])
            assert [(m["move"], m["value"], m["plies"]) for m in obj["moves"]] == [
                (m.notation, m.value, m.plies) for m in an.moves
            ]
            for m in obj["moves"]:
                assert set(m) == {"move", "value", "plies"} | ({"three_men_rule"} if three else set())
            if obj["moves"]:
                assert (obj["moves"][0]["value"], obj["moves"][0]["plies"]) == (obj["value"], obj["plies"])
    assert json.loads(lines[-1]) == {"position": "WW...........BBB w", "value": "loss", "plies": 0, "moves": []}


def test_query_text(dbs):
    res = run_query("--db", dbs["standard"], "W:a1,d1,g4 B:a4,b4,c4 w")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "\nWB..B..B.W............W. w\n" in out  # the board string
    assert "W-----------W-----------." in out  # the diagram: a1, d1 white, g1 empty
    assert "White to move: win in 1 plies" in out
    assert "win under the ten-move rule" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("  ") and "-" in line.split()[0]]
    assert rows[0][:4] == ["g4-g1xa4", "win", "in", "1"]
    # the rule set comes from the database file: a six position needs no --rules
    res = run_query("--db", dbs["six"], "W:a1,a3 B:e1,e3,e5 w")
    assert res.exit_code == 0 and "has lost (loss in 0 plies)" in res.stdout


def test_query_batch_goes_on_after_bad_lines(dbs):
    good = "W:a1,d1,g1 B:a4,b4,c4 w"
    lines = [good, "W:a1,x9 B:a4 w", good, "W:a1,d1,g1,a4,a7 B:b4,c4,b6,c5,d5 b", good]
    res = run_query("--db", dbs["standard"], "--json", "-", input="\n".join(lines) + "\n\n")
    assert res.exit_code == 2
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert [("error" in o) for o in out] == [False, True, False, True, False]
    assert out[1]["input"] == "W:a1,x9 B:a4 w"
    errors = res.stderr.splitlines()
    assert len(errors) == 2 and all(e.startswith("error: ") for e in errors)
    assert "x9" in errors[0] and "5-5" in errors[1]
    # only database-side problems: exit status 1
    res = run_query("--db", dbs["standard"], good, "W:a1,d1,g1,a4,a7 B:b4,c4,b6,c5,d5 b")
    assert res.exit_code == 1


@pytest.mark.parametrize(
    "which, args, status, needle",
    [
        ("standard", ["W:a1,x9 B:a4,b4,c4 w"], 2, "unknown point 'x9'"),
        ("standard", ["W:a1,a4,a7,b2,b4,b6,c3,c4,c5,d1 B:g1,g4,g7 w"], 2, "more than the 9 of the standard rules"),
        ("six", ["W:a1,a3,a5,b2,b3,b4,c1 B:e1,e3,e5 w"], 2, "more than the 6 of the six rules"),
        ("six", ["WB..B..B.W...........W.. w"], 2, "the six board has 16"),
        ("standard", ["W:a1,d1,g1 B:a4,b4,c4 w 2 2"], 1, "men in hand"),
        ("standard", ["W:a1,d1,g1,a4,a7 B:b4,c4,b6,c5,d5 b"], 1, "subspace 5-5 is not in"),
        ("no-flying", ["W:a1,d1,g1,d7 B:a4,d2,g4 w"], 1, "subspace 4-3 is not in"),
        ("not-a-db", ["W:a1,d1,g1 B:a4,b4,c4 w"], 1, "not a readable HDF5 file"),
        ("empty-h5", ["W:a1,d1,g1 B:a4,b4,c4 w"], 1, "not a morris database"),
        ("missing", ["W:a1,d1,g1 B:a4,b4,c4 w"], 1, "no database at"),
        ("six-as-standard", ["W:a1,d1,g1 B:a4,b4,c4 w"], 1, "holds the rule set 'six'"),
    ],
)
def test_query_bad_input(dbs, tmp_path, which, args, status, needle):
    import h5py

    extra = []
    if which == "not-a-db":
        path = tmp_path / "x.h5"
        path.write_text("not a database\n")
    elif which == "empty-h5":
        path = tmp_path / "e.h5"
        h5py.File(path, "w").close()
    elif which == "missing":
        path = tmp_path / "nothing-here.h5"
    elif which == "six-as-standard":
        path, extra = dbs["six"], ["--rules", "standard"]
    else:
        path = dbs[which]
    res = run_query("--db", path, *extra, *args)
    assert res.exit_code == status, res.output
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], res.stderr


def test_query_in_a_real_process(dbs, tmp_path):
    """The installed command: a batch with bad lines, one-line errors, no traceback."""
    script = Path(sys.executable).with_name("morris")
    command = [str(script)] if script.exists() else [sys.executable, "-c", "from solver.cli import main; main()"]
    lines = "W:a1,a3,a5 B:e1,e3,e5 w\nW:a1,q7 B: w\nW:a1,a3,a5 B:e1,e3,e5 w 1 1\n"
    proc = subprocess.run(
        [*command, "query", "--db", str(dbs["six"]), "--json", "-"],
        input=lines, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    err = proc.stderr.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "q7" in err[0]
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert out[0]["value"] in ("win", "draw", "loss") and "three_men_rule" in out[0]
    assert "error" in out[1]
    # men in hand: a tier the moving-phase database lacks, answered by the shipped six book
    assert out[2]["value"] in ("win", "draw", "loss") and out[2]["position"].endswith(" w 1 1")
    proc = subprocess.run(
        [*command, "query", "--db", str(tmp_path / "none.h5"), "W:a1,a3,a5 B:e1,e3,e5 w"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_warm_up_takes_the_compiled_move_generator_with_the_same_answers(tmp_path):
    """``warm_up`` (what ``morris serve`` calls at start) switches a database object to the
    compiled move generator at once; its answers equal the plain-Python generator's."""
    from solver.query import PLAIN_POSITIONS, open_database, start_position
    from solver.rules import make_rules

    rules = make_rules("standard")
    texts = ["........................ w 9 9", "W:d2 B: b 8 9", "W:a1,d2 B:g7 b 7 8"]
    with open_database(tmp_path / "none.h5", rules) as plain, open_database(tmp_path / "none.h5", rules) as warm:
        warm.warm_up()
        assert warm._movegen.looked_up >= PLAIN_POSITIONS and plain._movegen.looked_up == 0
        for text in texts:
            a, b = plain.analyse(text), warm.analyse(text)
            assert (a.probe, [(m.notation, m.value, m.plies) for m in a.moves]) == (
                b.probe, [(m.notation, m.value, m.plies) for m in b.moves])
        assert plain._movegen.looked_up < PLAIN_POSITIONS  # (the comparison above ran the plain generator)
        assert warm.analyse(start_position(rules)).probe.value == "draw"
