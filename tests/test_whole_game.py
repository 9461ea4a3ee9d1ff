"""Whole games: the placing phase and every tier with men in hand, against the plain-Python reference
(tests/reference.py: its own move generation, no symmetry, one graph per group of tiers) position
by position, values and plies; the commands over a whole-game database; verify on tiers.

The six board with 4 men (2.9 M positions) is compared in the default run through ``morris solve
--whole-game`` (every position, the start value, the first two plies' move tables, a sample of
every tier through the API); Six Men's Morris whole (default options, 49 M positions: the
reference takes about 100 s in two processes and 1.4 GiB) is checked the same way under ``-m
slow``, as are the larger games (standard board with 4 men: minutes, about 10 GiB). Games whose
reference cannot finish (Lasker's standard board with 4 men: 122 M positions in plain Python) are
only sampled (``test_placing_samples_against_reference_moves``); Lasker's standard board with 3 men
is compared in its tiers of up to 4 men on the board, the tiers beyond taken from the engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from reference import DRAW, LOSS, WIN, Subspace, enumerate_tier, lookup_whole, solve_whole_reference, start_value

from solver.api import open_database
from solver.cli import main
from solver.engine.held import TierValues
from solver.engine.order import placing_jobs
from solver.engine.placing import solve_group
from solver.engine.run import Deadline, solve, solve_whole
from solver.index import board_index
from solver.rules import Position, make_rules
from solver.storage.database import Database
from solver.storage.files import subspace_file
from solver.storage.write import copy_database
from solver.tiers import groups_in_order, whole_game_tiers
from solver.values import DUP
from solver.verify.check import verify

# the engines' parallel loops and atomics compared under two threads (tests/conftest.py)
pytestmark = pytest.mark.threads(2)

quiet = {"progress": False, "echo": lambda s: None}


def reference_codes(sub) -> np.ndarray:
    assert np.all((sub.value != WIN) | (sub.plies % 2 == 1))
    assert np.all((sub.value != LOSS) | (sub.plies % 2 == 0))
    return np.where(sub.value == DRAW, 0, sub.plies + 1)


def whole_reference(rules, tiers=None) -> dict:
    """The reference's whole game (not cached: the larger ones hold gigabytes), built in two
    processes."""
    return solve_whole_reference(rules, tiers=None if tiers is None else list(tiers), workers=2)


def assert_matches_reference(path: Path, rules, ref: dict) -> int:
    """Every position the reference solved holds the same value and plies in the engine's
    database at ``path``. Returns the number of positions compared."""
    index = board_index(rules.board)
    compared = 0
    with Database(path) as db:
        held = set(db.tier_keys())
        lacking = sorted(set(ref) - held)
        assert not lacking, f"tiers the reference reaches and the engine did not solve: {lacking}"
        for t, sub in ref.items():
            if sub.mover.size == 0:
                continue
            got = db.values(*t)[index.rank_many(sub.mover, sub.opp)].astype(np.int64)
            want = reference_codes(sub)
            bad = np.flatnonzero(got != want)
            if bad.size:
                i = int(bad[0])
                raise AssertionError(
                    f"{rules.describe()} tier {t}: {bad.size} of {got.size} positions differ, e.g. "
                    f"mover {int(sub.mover[i]):#x} opp {int(sub.opp[i]):#x}: engine {int(got[i])}, reference {int(want[i])}"
                )
            compared += got.size
    return compared


def compare_whole(tmp_path: Path, rules, extended: bool = False, tiers=None) -> dict:
    """Solve the whole game with the engine and the reference; every position the reference
    solved must hold the same value and plies in the engine's database. Returns the reference."""
    path = tmp_path / "whole.h5"
    solve_whole(rules, path, extended, **quiet)
    ref = whole_reference(rules, tiers)
    assert_matches_reference(path, rules, ref)
    return ref


# ---------------------------------------------------------------------------------------------
# Whole games against the reference, position by position
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,options",
    [
        # ("three", []): every position in test_start_values_match_reference
        ("three", ["lasker=on"]),
        # ("six", ["men=4"]): every position in test_six_men4_whole_game_command_matches_reference
        # Lasker's six board (13 s) under -m slow: in the default run the same game passes the
        # verify's local check at every position (test_verify), and three's Lasker game (above)
        # is compared with the reference here
        pytest.param("six", ["men=4", "lasker=on"], marks=pytest.mark.slow),
        # each option on its own with 3 men (about 1 s each); under -m slow, all of them together
        # with 4 men (a side comes down to 3 men and flies in the middle of the game; 10 s) and
        # each with 4 men
        ("six", ["men=3", "removal=optional"]),
        ("six", ["men=3", "blocked=passes", "removal-from-mills=forfeit"]),
        ("six", ["men=3", "flying=at-3"]),
        pytest.param("six", ["men=4", "flying=at-3", "removal=optional", "blocked=passes", "removal-from-mills=forfeit"], marks=pytest.mark.slow),
        pytest.param("six", ["men=4", "double-mill=per-mill", "removal=optional"], marks=pytest.mark.slow),
        pytest.param("six", ["men=4", "blocked=passes", "removal-from-mills=forfeit"], marks=pytest.mark.slow),
        pytest.param("six", ["men=4", "flying=at-3"], marks=pytest.mark.slow),
    ],
)
def test_whole_game_matches_reference(tmp_path, name, options):
    compare_whole(tmp_path, make_rules(name, options))


def test_start_values_match_reference(tmp_path):
    """Three Men's Morris whole against the reference, every position; from the start, the value
    the README quotes."""
    rules = make_rules("three")
    ref = compare_whole(tmp_path, rules)
    want = start_value(ref, rules)
    res = CliRunner().invoke(main, ["info", "--db", str(tmp_path / "whole.h5"), "--json"])
    import json

    game = json.loads(res.stdout)["game"]
    assert (game["value"], game["plies"]) == want == ("win", 9)


def move_value_from_reference(ref: dict, after) -> tuple[str, int | None]:
    """The value of a move for the player making it, from the reference's value of the position
    after it (``after``: a ``Position``, seen from its side to move)."""
    v, p = lookup_whole(ref, after.mover, after.opponent, after.hand_mover, after.hand_opponent)
    if v == "draw":
        return "draw", None
    return ("win" if v == "loss" else "loss"), p + 1


def check_whole_game_command(rules, path: Path, stdout: str, ref: dict) -> None:
    """What ``morris solve --whole-game`` built at ``path`` (it printed ``stdout``) against the
    reference's whole game ``ref``: the start value it printed and ``morris info`` reports, every
    position of every tier (values and plies), the first two plies' move tables through the API,
    and a sample of every tier probed through the API (symmetry, canonical slots, the probe's
    decoding)."""
    import json

    men = rules.men
    last = stdout.strip().splitlines()[-1]
    value, plies = start_value(ref, rules)
    assert last.startswith("game value: ") and value in last, last
    res = cli("info", "--db", path, "--json")
    assert res.exit_code == 0, res.output
    game = json.loads(res.stdout)["game"]
    assert (game["value"], game["plies"]) == (value, plies)

    # every position, value and plies
    assert assert_matches_reference(path, rules, ref) == sum(s.mover.size for s in ref.values())

    points = rules.board_data.n
    with open_database(path) as db:
        # the start and the positions after White's first man: every move's value (the second
        # plies lead to tier 1-1-(men-1)-(men-1))
        start = db.analyse("." * points + f" w {men} {men}")
        assert (start.probe.value, start.probe.plies) == (value, plies)
        assert len(start.moves) == points
        firsts = db.analyse_many([m.after for m in start.moves])
        seconds = [m for a in firsts for m in a.moves]
        assert len(seconds) == points * (points - 1)
        # the second men that lose (Black's placements after which White wins: tier 1-1's wins)
        assert sum(m.value == "loss" for m in seconds) == int(np.sum(ref[(1, 1, men - 1, men - 1)].value == WIN))
        for a in [start, *firsts]:
            pos = a.position
            assert (a.probe.value, a.probe.plies) == lookup_whole(ref, pos.mover, pos.opponent, pos.hand_mover, pos.hand_opponent)
            for m in a.moves:
                assert (m.value, m.plies) == move_value_from_reference(ref, m.after), (a.board_string, m.notation)
        # a sample of every tier through the API (symmetry, canonical slots, the probe's decoding)
        rng = np.random.default_rng(6)
        positions, want = [], []
        for (a_, b_, ha, hb), sub in sorted(ref.items()):
            for i in rng.choice(sub.mover.size, size=min(50, sub.mover.size), replace=False).tolist():
                m, o = int(sub.mover[i]), int(sub.opp[i])
                # the side to move as a game from the start has it: Black with one man more in hand
                side = "b" if ha == hb + 1 else "w" if ha == hb and ha else "wb"[i % 2]
                positions.append(Position.from_mover(side, m, o, ha, hb))
                v = int(sub.value[i])
                want.append(({WIN: "win", DRAW: "draw", LOSS: "loss"}[v], None if v == DRAW else int(sub.plies[i])))
        got = [(p.value, p.plies) for p in db.probe_many(positions)]
        assert got == want


def test_six_men4_whole_game_command_matches_reference(solved_whole, reference_whole):
    """``morris solve --whole-game --rules six -o men=4`` (2.9 M positions) against the
    reference, as ``check_whole_game_command`` lists; the same code paths as Six Men's Morris
    whole (``-m slow``), on a game a tenth of its size."""
    rules = make_rules("six", ["men=4"])
    built = solved_whole("six", ["men=4"])
    ref = reference_whole(rules)
    assert sum(s.mover.size for s in ref.values()) == 2_897_557
    check_whole_game_command(rules, built.path, built.stdout, ref)


@pytest.mark.slow
def test_six_whole_game_command_matches_reference(tmp_path):
    """``morris solve --whole-game --rules six`` (Six Men's Morris, default options, from the
    empty board, 49 M positions; the reference takes about 100 s in two processes and 1.4 GiB),
    as ``check_whole_game_command`` lists: Six Men's Morris is a draw, and Black's second man
    lets White win in 64 of the 16 x 15 second plies. (The default run checks the same on the
    game with 4 men: ``test_six_men4_whole_game_command_matches_reference``.)"""
    rules = make_rules("six")
    path = tmp_path / "six.h5"
    res = cli("solve", "--whole-game", "--rules", "six", "--db", path, "-q")
    assert res.exit_code == 0, res.output
    ref = whole_reference(rules)
    assert start_value(ref, rules) == ("draw", None)  # Six Men's Morris is a draw
    assert int(np.sum(ref[(1, 1, 5, 5)].value == WIN)) == 64
    assert sum(s.mover.size for s in ref.values()) > 49_000_000
    check_whole_game_command(rules, path, res.stdout, ref)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,options",
    [
        ("six", ["men=5"]),
        ("standard", ["men=3"]),
        ("standard", ["men=4"]),  # about 8 min and 10 GiB
        ("no-flying", ["men=4"]),
        ("twelve", ["men=3"]),
        ("standard", ["board=diagonal", "men=3"]),  # the old rules' diagonal board (issue 20): about 2 min
        ("standard", ["men=3", "removal=optional"]),  # and the old rules' options on the standard board
        ("standard", ["men=3", "blocked=passes"]),
        ("standard", ["board=diagonal", "men=4"]),  # as standard men=4: minutes and about 10 GiB
        # not here: Lasker's rule on the standard board with 4 men (122 M positions, more than the
        # reference can do in plain Python); test_placing_samples_against_reference_moves samples it
    ],
)
def test_whole_game_matches_reference_slow(tmp_path, name, options):
    compare_whole(tmp_path, make_rules(name, options))


def engine_tiers(path: Path, rules, tiers) -> dict:
    """{tier: reference.Subspace}: every position of ``tiers`` with the engine's value and plies
    from the database at ``path``, in the reference's terms (``reference_codes`` read backwards)."""
    index = board_index(rules.board)
    out = {}
    with Database(path) as db:
        for t in tiers:
            mover, opp = enumerate_tier(rules.board_data.n, t[0], t[1])
            code = db.values(*t)[index.rank_many(mover, opp)].astype(np.int64)
            assert not (code == DUP).any(), t
            plies = code - 1
            value = np.where(code == 0, DRAW, np.where(plies % 2 == 1, WIN, LOSS)).astype(np.int8)
            out[t] = Subspace(mover, opp, np.where(code == 0, -1, plies).astype(np.int32), value)
    return out


def test_standard_lasker_matches_reference_up_to_4_men_on_the_board(tmp_path):
    """Lasker's rule on the standard board with 3 men a side: every position of the tiers with at
    most 4 men on the board (8 tiers, 161 k positions; the place-or-move tiers with both hands,
    with one, with 1 and 2 men on the board, and the cycles their moves make) against the
    reference, its own move generation included. The tiers they lead to, 2-3-1-0 and 3-2-0-1
    (which lead on to the 2.7 M positions of 3-3, too many for the default run: the standard
    board's whole games are under -m slow), enter with the engine's values: each position
    compared is judged by the reference from those values. (With 3 men a side a removal ends the
    game, and flying with a man in hand changes no value of these tiers: the reference gives the
    same with it off.)"""
    rules = make_rules("lasker", ["men=3"])
    path = tmp_path / "whole.h5"
    solve_whole(rules, path, **quiet)
    edge = [(2, 3, 1, 0), (3, 2, 0, 1)]
    ref = solve_whole_reference(rules, given=engine_tiers(path, rules, edge))
    assert sorted(ref) == [(0, 0, 3, 3), (0, 1, 3, 2), (1, 1, 2, 2), (1, 2, 2, 1), (1, 3, 2, 0), (2, 1, 1, 2), (2, 2, 1, 1), (3, 1, 0, 2)]
    assert assert_matches_reference(path, rules, ref) == 161_485


def test_extended_tiers_match_reference(tmp_path):
    """--extended: hands that a game from the start never has (White with fewer in hand)."""
    rules = make_rules("six", ["men=3"])
    tiers = whole_game_tiers(rules, extended=True)
    assert len(tiers) > len(whole_game_tiers(rules))
    ref = compare_whole(tmp_path, rules, extended=True, tiers=tiers)
    assert set(ref) == set(tiers)


# ---------------------------------------------------------------------------------------------
# The tier engine's retrograde analysis against the pair engine on the moving phase
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,options",
    [("six", ["flying=at-3"]), pytest.param("six", [], marks=pytest.mark.slow), pytest.param("six", ["blocked=passes"], marks=pytest.mark.slow)],
)
def test_tier_retrograde_equals_pair_engine(tmp_path, name, options):
    """The moving phase solved group by group by ``solve_group`` (explicit graph, retrograde
    analysis) equals the pair engine's databases slot by slot."""
    rules = make_rules(name, options)
    path = tmp_path / "moving.h5"
    solve(rules, 5, path, **quiet)
    index = board_index(rules.board)
    tiers = [(a, b, 0, 0) for a in range(3, 6) for b in range(3, 6)]
    with Database(path) as db:
        mine: dict = {}

        def solved(t):
            return mine[t]

        for group in groups_in_order(rules, tiers):
            assert group.cycles
            for r in solve_group(rules, index, group, solved):
                mine[r.tier] = r.values
                assert np.array_equal(r.values, db.values(*r.tier[:2])), r.tier


# ---------------------------------------------------------------------------------------------
# Commands, verify and resuming on a whole-game database
# ---------------------------------------------------------------------------------------------


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def six4(solved_whole) -> Path:
    """The six board with 4 men, whole (``morris solve --whole-game``, shared by the session: copy
    it before changing it)."""
    return solved_whole("six", ["men=4"]).path


def test_solve_whole_game_command(six4, tmp_path):
    again = tmp_path / "six4.h5"
    copy_database(six4, again)
    res = cli("solve", "--whole-game", "--rules", "six", "-o", "men=4", "--db", again, "-q")
    assert res.exit_code == 0, res.output
    assert "0 subspaces and tiers solved" in res.stdout and "skipped" in res.stdout  # everything was done already
    assert res.stdout.strip().splitlines()[-1].startswith("game value: ")


def test_query_empty_board_lists_every_first_move(six4):
    res = cli("query", "--db", six4, "--json", "................ w 4 4")
    assert res.exit_code == 0, res.output
    import json

    out = json.loads(res.stdout)
    assert len(out["moves"]) == 16  # a placement on each of the 16 points
    assert {m["move"] for m in out["moves"]} == set(make_rules("six").board_data.points)
    best = out["moves"][0]
    assert (best["value"], best["plies"]) == (out["value"], out["plies"]) or out["value"] == "draw"


def test_position_outside_the_solved_tiers_names_tier_and_command(six4, tmp_path):
    moving_only = tmp_path / "moving.h5"
    assert cli("solve", "--rules", "six", "-o", "men=4", "--db", moving_only, "-q").exit_code == 0
    res = cli("query", "--db", moving_only, "W:a1 B:e1 w 3 3")
    assert res.exit_code == 1
    assert "tier 1-1-3-3 (men in hand) is not in" in res.stderr and "--whole-game" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_verify_passes_and_catches_a_changed_placing_value(six4, tmp_path):
    checks = verify(six4, progress=False)
    assert checks and all(c.ok for c in checks), [c.to_dict() for c in checks if not c.ok]
    assert any(c.name == "0-0-4-4" for c in checks)
    # change one canonical value of a placing tier (checksum refreshed, so only the values tell)
    import h5py

    from solver.storage.files import checksum

    broken = tmp_path / "broken.h5"
    copy_database(six4, broken)
    with Database(broken) as db:
        v = db.values(3, 3, 1, 1)
    slot = int(np.flatnonzero((v != DUP) & (v != 0))[0])
    with h5py.File(subspace_file(broken, "3-3-1-1"), "r+") as f:
        ds = f["subspaces"]["3-3-1-1"]
        v[slot] = v[slot] + 2  # the same side wins (or loses), two plies later
        ds[...] = v
        ds.attrs["checksum"] = checksum(v)
    checks = {c.name: c for c in verify(broken, progress=False)}
    assert checks["3-3-1-1"].mismatches >= 1 and not checks["3-3-1-1"].ok
    assert f"slot {slot}" in checks["3-3-1-1"].examples[0]
    res = cli("verify", "--db", broken, "--subspace", "3-3-1-1", "-q")
    assert res.exit_code == 1 and "FAILED" in res.stderr


def test_a_rerun_resumes_after_lost_tiers(six4, tmp_path):
    """Tier files that a kill left unwritten are solved again, the rest skipped."""
    rules = make_rules("six", ["men=4"])
    path = tmp_path / "resume.h5"
    copy_database(six4, path)
    with Database(path) as db:
        before = db.values(0, 0, 4, 4).copy()
        first = list(db.tiers())
    for name in ("0-0-4-4", "0-1-4-3"):
        subspace_file(path, name).unlink()
    path.unlink()  # the main file too: the next run relinks what the folder holds
    again = solve_whole(rules, path, **quiet)
    redone = sorted(f"{r.stats['mover']}-{r.stats['opponent']}-{r.stats['mover_hand']}-{r.stats['opponent_hand']}" for r in again if not r.skipped)
    assert redone == ["0-0-4-4", "0-1-4-3"]
    assert len(again) == len(first)
    with Database(path) as db:
        assert np.array_equal(db.values(0, 0, 4, 4), before)


class AfterOneJob(Deadline):
    """A deadline that passes once one job has been begun (a clock would make the test flaky)."""

    def passed(self) -> bool:
        self.asked = getattr(self, "asked", 0) + 1
        return self.asked > 1


def test_a_run_stopped_between_jobs_goes_on_to_the_same_database(six4, tmp_path):
    """``--stop-after``: the run ends after the job in hand, with nothing of it lost; the rerun
    solves the rest, and every tier then holds what one uninterrupted run wrote."""
    rules = make_rules("six", ["men=4"])
    path = tmp_path / "stopped.h5"
    deadline = AfterOneJob(0)
    first = solve_whole(rules, path, deadline=deadline, **quiet)
    assert deadline.stopped
    assert [(r.stats["mover"], r.stats["opponent"]) for r in first if not r.skipped] == [(3, 3)]  # the first pair alone
    rest = solve_whole(rules, path, deadline=Deadline(3600), **quiet)
    assert [r.skipped for r in rest].count(True) == 1
    with Database(six4) as whole, Database(path) as db:
        assert sorted(db.tier_keys()) == sorted(whole.tier_keys())
        for t in whole.tier_keys():
            assert np.array_equal(db.values(*t), whole.values(*t)), t


def test_tier_values_drop_what_no_later_group_reads(six4):
    rules = make_rules("six", ["men=4"])
    groups = [g for g in groups_in_order(rules, whole_game_tiers(rules)) if not g.moving_phase]
    with Database(six4) as db:
        held = TierValues(db)
        for t in [(3, 3, 0, 0), (0, 1, 4, 3)]:
            held(t)
        held.keep_for(placing_jobs(rules, groups[-1:]))  # the start's group reads 0-1-4-3 only
        assert set(held.held) == {(0, 1, 4, 3)}


def test_a_tier_read_as_missing_is_refused_not_read_as_draws(six4):
    """A group whose input tier comes as the empty stand-in (what a tier no move reaches gets) is
    refused with a DatabaseError naming the tier, not solved as if the successors were draws."""
    from solver.errors import DatabaseError
    from solver.values import NO_VALUES

    rules = make_rules("six", ["men=4"])
    group = [g for g in groups_in_order(rules, whole_game_tiers(rules)) if not g.moving_phase][-1]  # the start's
    with Database(six4) as db:
        assert solve_group(rules, board_index("six"), group, lambda t: db.values(*t))  # as it is: solved
        with pytest.raises(DatabaseError, match="0-0-4-4: .* successors found no stored position"):
            solve_group(rules, board_index("six"), group, lambda t: NO_VALUES)


# ---------------------------------------------------------------------------------------------
# Larger games: sampled positions against the reference's move generator
# ---------------------------------------------------------------------------------------------


def check_samples(rules, path: Path, per_tier: int = 200, seed: int = 11) -> int:
    """Every sampled position of every placing tier holds the best over its successors, the
    successors listed by the reference's own move generator (``MoveGen.moves`` with the hand) and
    looked up in the engine's database (ranked and read a tier at a time: one position at a time,
    the ranking alone took milliseconds a call). Returns the number of positions checked."""
    from reference import MoveGen

    gen = MoveGen(rules)
    index = board_index(rules.board)
    rng = np.random.default_rng(seed)
    checked = 0
    with Database(path) as db:
        for info in db.tiers():
            if not info.placing:
                continue
            a, b, ha, hb = info.tier
            values = db.values(a, b, ha, hb)
            slots = np.flatnonzero(values != DUP)
            sample = [int(slot) for slot in rng.choice(slots, size=min(per_tier, slots.size), replace=False)]
            # each sampled position's successors, as (tier, opponent's men, mover's men) after the move
            rows: list[tuple[int, int, int, list | str | None]] = []
            wanted: dict[tuple, set] = {}
            for slot in sample:
                m, o = index.unrank(a, b, slot)
                moves = gen.moves(m, o, ha)
                full = (m | o) == (1 << index.n) - 1
                succ = None  # lost
                if gen.is_lost(m, o, moves, ha):
                    pass
                elif rules.full_board == "draw" and full:
                    succ = "draw"
                else:
                    succ = []
                    for m2, o2 in moves:
                        hand2 = ha - (m2.bit_count() - m.bit_count())
                        key = (o2.bit_count(), m2.bit_count(), hb, hand2)
                        succ.append((key, o2, m2))
                        if o2.bit_count() + hb >= 3:
                            wanted.setdefault(key, set()).add((o2, m2))
                rows.append((slot, m, o, succ))
            code_of: dict[tuple, int] = {}
            for key, found in wanted.items():
                found = sorted(found)
                arr = np.array(found, dtype=np.int64)
                got = db.read_slots(key[0], key[1], index.rank_many(arr[:, 0], arr[:, 1]), key[2], key[3])
                code_of.update(((key, x, y), int(v)) for (x, y), v in zip(found, got))
            for slot, m, o, succ in rows:
                if succ is None:
                    want = 1
                elif succ == "draw":
                    want = 0
                else:
                    best_win, worst_loss, draw = None, 0, False
                    for key, o2, m2 in succ:
                        if o2.bit_count() + hb < 3:
                            v = 1  # the opponent has lost in 0
                        else:
                            v = code_of[key, o2, m2]
                        if v == 0:
                            draw = True
                        elif (v - 1) % 2 == 0:
                            best_win = v if best_win is None else min(best_win, v)
                        else:
                            worst_loss = max(worst_loss, v)
                    want = best_win + 1 if best_win else (0 if draw else worst_loss + 1)
                assert int(values[slot]) == want, f"{info.name} slot {slot}: stored {values[slot]}, successors give {want}"
                checked += 1
    return checked


@pytest.mark.parametrize(
    "name,options,per_tier",
    [
        # no-flying with 4 men (its solve about 4 s) under -m slow, where every one of its positions
        # is compared (test_whole_game_matches_reference_slow); in the default run never flying is
        # compared position by position on the six board, the standard board's placing tiers are
        # sampled below
        pytest.param("no-flying", ["men=4"], 200, marks=pytest.mark.slow),
        ("standard", ["board=diagonal", "men=4"], 100),  # the diagonal board's placing tiers, 4 men
        ("standard", ["men=4", "removal=optional", "blocked=passes"], 100),
        # one removal per mill needs 5 men (a placement closing two mills)
        pytest.param("standard", ["men=5", "double-mill=per-mill"], 40, marks=pytest.mark.slow),
        pytest.param("lasker", ["men=4"], 200, marks=pytest.mark.slow),
        pytest.param("standard", ["men=5"], 40, marks=pytest.mark.slow),
    ],
)
def test_placing_samples_against_reference_moves(tmp_path, name, options, per_tier):
    rules = make_rules(name, options)
    path = tmp_path / "w.h5"
    solve_whole(rules, path, **quiet)
    assert check_samples(rules, path, per_tier) > 1000
