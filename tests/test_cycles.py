"""Lasker's cycling groups (a side with men in hand may move instead of placing) solved by counts
and un-moves (``engine.kernels.cycles``), against the explicit successor graph
(``kernels.placing.retrograde``) position by position; and the budget of tiers held for later
groups (``held.TierValues``), which keeps the 10-men Lasker game within 16 GiB.

The whole games against the plain-Python reference are in test_whole_game.py (Three Men's Morris
with Lasker's rule in the default run; the six board's at 4 men under ``slow``) and
test_reference_whole.py; here each cycling group of a solved database (solved the implicit way,
the default) is solved again over the explicit graph from the same stored tiers, and compared.
"""

from __future__ import annotations

import json
import weakref

import numba
import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine import placing
from solver.engine.held import TierValues, first_uses, over_budget
from solver.engine.kernels import cycles
from solver.engine.kernels.codes import SYMS
from solver.engine.kernels.successors import count_internal
from solver.engine.order import Job, placing_groups
from solver.engine.run import solve_whole
from solver.index import board_index
from solver.index.kernels import unrank_position
from solver.rules import make_rules
from solver.rules.movegen import OPT_FLY
from solver.storage.database import Database
from solver.values import DUP

# the engines' parallel loops and atomics compared under two threads (tests/conftest.py)
pytestmark = pytest.mark.threads(2)

quiet = {"progress": False, "echo": lambda s: None}


def explicit_groups_agree(rules, path) -> int:
    """Solve every cycling group of the database at ``path`` again over the explicit graph, from
    its stored tiers, and compare with what it stores; return the groups compared."""
    index = board_index(rules.board)
    compared = 0
    with Database(path, rules) as db:
        held = TierValues(db)
        old = placing.CYCLES
        placing.CYCLES = "explicit"
        try:
            for group in placing_groups(rules):
                if not group.cycles:
                    continue
                for r in placing.solve_group(rules, index, group, held):
                    stored = db.values(*r.tier)
                    diff = np.flatnonzero(stored != r.values)
                    assert diff.size == 0, f"tier {r.tier}: {diff.size} slots differ, e.g. slot {diff[0]}: stored {stored[diff[0]]}, explicit graph {r.values[diff[0]]}"
                compared += 1
        finally:
            placing.CYCLES = old
    return compared


@pytest.mark.parametrize(
    "name,options",
    [
        # the standard board's Lasker game (5 s each) under -m slow: the six board's cases below
        # run the same code in the default run
        pytest.param("lasker", ["men=4"], marks=pytest.mark.slow),
        ("six", ["men=4", "lasker=on"]),
        pytest.param("lasker", ["men=4", "flying=never"], marks=pytest.mark.slow),
        ("six", ["men=4", "lasker=on", "flying=never"]),
        ("six", ["men=4", "lasker=on", "removal=optional", "double-mill=per-mill"]),
        ("six", ["men=4", "lasker=on", "removal-from-mills=forfeit"]),
        pytest.param("lasker", ["men=5"], marks=pytest.mark.slow),
        pytest.param("six", ["lasker=on"], marks=pytest.mark.slow),
    ],
)
def test_implicit_groups_match_explicit_graph(tmp_path, name, options):
    rules = make_rules(name, options)
    path = tmp_path / "w.h5"
    solve_whole(rules, path, **quiet)
    assert explicit_groups_agree(rules, path) > 10


@pytest.mark.parametrize("name,options", [("six", ["men=4", "lasker=on"]), ("three", ["lasker=on", "mill-wins=off"])])
def test_general_pass_of_cycling_groups_matches_explicit_graph(tmp_path, monkeypatch, name, options):
    """The groups judged by ``tier_pass`` and ``summarise`` (where a mill wins, a full board draws:
    forced here) instead of the placement pass and ``moves_pass``."""
    monkeypatch.setattr(placing, "FAST_CYCLES", False)
    rules = make_rules(name, options)
    path = tmp_path / "w.h5"
    solve_whole(rules, path, **quiet)
    assert explicit_groups_agree(rules, path) > 5


def test_a_wrong_count_is_caught(tmp_path, monkeypatch):
    """The comparison can fail: counting one successor too few inside the group (a position then
    loses as soon as all but one of its moves there are known wins) changes stored values."""
    rules = make_rules("six", ["men=4", "lasker=on"])
    path = tmp_path / "w.h5"
    real = cycles.moves_pass

    def one_short(a, b, ha, hb, value, ext, count, succ, g, ix):
        bad = real(a, b, ha, hb, value, ext, count, succ, g, ix)
        count[count > 1] -= 1
        return bad

    monkeypatch.setattr(cycles, "moves_pass", one_short)
    solve_whole(rules, path, **quiet)
    with pytest.raises(AssertionError, match="slots differ"):
        explicit_groups_agree(rules, path)


@numba.njit(cache=False)
def _counts_against_ranking(a, b, ha, value, count, g, ix):
    """(positions whose count ``moves_pass`` got wrong, positions checked): each counted
    position's count, and 0 for each one it decided, against ``count_internal``, which ranks
    every move's successor where the opponent's men have a symmetry and counts them otherwise."""
    flying = g.opts[OPT_FLY] != 0 and a + ha == 3
    succ = np.empty(g.n * g.n, dtype=np.int64)
    syms = np.empty(SYMS, dtype=np.int64)
    wrong = checked = 0
    for s in range(value.shape[0]):
        if value[s] == DUP or (value[s] == cycles.PENDING and count[s] == cycles.NOT_COUNTED):
            continue
        m, o = unrank_position(a, b, s, ix)
        k = count_internal(a, b, m, o, flying, succ, syms, g, ix)
        checked += 1
        if k != (count[s] if value[s] == cycles.PENDING else 0):
            wrong += 1
    return wrong, checked


@pytest.mark.parametrize(
    "name,options",
    [
        ("six", ["men=4", "lasker=on"]),
        ("six", ["men=4", "lasker=on", "removal=optional"]),  # a move that closes a mill may stay inside
        ("six", ["men=4", "lasker=on", "removal-from-mills=forfeit"]),  # ... where every man is in a mill
        ("lasker", ["men=3"]),
    ],
)
def test_counts_listed_with_the_moves_equal_the_ranked_ones(tmp_path, monkeypatch, name, options):
    """``moves_pass`` counts a position's moves inside the group as it lists them where the
    opponent's men have no symmetry: every count it leaves (and every position it decides for
    having none) equals the ranked count of distinct successor slots."""
    rules = make_rules(name, options)
    real = cycles.moves_pass
    seen = []

    def checked(a, b, ha, hb, value, ext, count, succ, g, ix):
        bad = real(a, b, ha, hb, value, ext, count, succ, g, ix)
        seen.append(_counts_against_ranking(a, b, ha, value, count, g, ix))
        return bad

    monkeypatch.setattr(cycles, "moves_pass", checked)
    solve_whole(rules, tmp_path / "w.h5", **quiet)
    wrong, total = (sum(x) for x in zip(*seen))
    assert total > 1000 and wrong == 0, f"{wrong} of {total} counts differ"


def test_over_budget_drops_the_furthest_first_never_the_next_jobs():
    sizes = {"a": 10, "b": 10, "c": 10, "d": 10}
    first = {"a": 0, "b": 3, "c": 1, "d": 2}
    assert over_budget(sizes, first, 40) == []
    assert over_budget(sizes, first, 25) == ["b", "d"]
    assert over_budget(sizes, first, 0) == ["b", "d", "c"]  # "a" is read next: kept


class _Db:
    def __init__(self):
        self.reads = []

    def values(self, *t):
        self.reads.append(t)
        return np.zeros(5, dtype=np.uint16)


def test_tier_values_within_budget_read_back_what_they_dropped():
    jobs = [Job(name=str(i), reads=(r,), writes=()) for i, r in enumerate([(1,), (2,), (3,), (1,)])]
    assert first_uses(jobs) == {(1,): 0, (2,): 1, (3,): 2}
    db = _Db()
    held = TierValues(db, budget=20)  # two tiers of 10 bytes
    held.keep_for(jobs, [((1,), np.zeros(5, np.uint16)), ((2,), np.zeros(5, np.uint16)), ((3,), np.zeros(5, np.uint16))])
    assert sorted(held.held) == [(1,), (2,)]  # (3,) is read furthest ahead
    held(jobs[2].reads[0])
    assert db.reads == [(3,)]  # read back from the database when its job comes


def test_lasker_fits_in_16_gib():
    """The whole 10-men Lasker game plans within 16 GiB: no group's working arrays and inputs
    pass it (the largest, 8-8-1-2 with its twin, about 11.7 GiB), the tiers held for later groups
    within what is left."""
    res = CliRunner().invoke(main, ["solve", "--rules", "lasker", "--whole-game", "--dry-run", "--max-memory", "16GiB", "--json", "--db", "/nonexistent/l.h5"])
    assert res.exit_code == 0, res.output
    plans = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    placing_plan = next(p for p in plans if "peak_group" in p)
    assert placing_plan["fits"] and placing_plan["peak_bytes"] <= 16 << 30
    assert placing_plan["positions"] > 100e9


def test_a_zero_budget_gives_the_same_database(tmp_path):
    """Every held tier dropped after each group (read back from the database when needed): the
    same values as holding them all."""
    rules = make_rules("three", ["lasker=on"])
    solve_whole(rules, tmp_path / "a.h5", **quiet)
    solve_whole(rules, tmp_path / "b.h5", hold_bytes=0, **quiet)
    with Database(tmp_path / "a.h5", rules) as a, Database(tmp_path / "b.h5", rules) as b:
        tiers = a.tiers()
        assert len(tiers) > 10 and [t.checksum for t in tiers] == [b.info(*t.tier).checksum for t in tiers]


def test_a_solved_group_is_not_kept_past_what_held_keeps(tmp_path, monkeypatch):
    """While a job is solved, the values of the jobs before it are alive only where the held
    tiers keep them: the plan counts those and nothing else. (The loop once kept the last job's
    values in a name of its own through the next job, up to 2 GiB past the plan at Lasker's
    7-8 groups.)"""
    from solver.engine import run

    solve_job, before, stray = run.solve_job, [], []

    def watched(rules, index, job, solved, progress=False):
        held = {id(v) for v in solved.held.values()}
        stray.extend(name for name, ref in before if ref() is not None and id(ref()) not in held)
        out = solve_job(rules, index, job, solved, progress)
        before.extend((job.name, weakref.ref(v)) for v, _ in out)
        return out

    monkeypatch.setattr(run, "solve_job", watched)
    solve_whole(make_rules("three", ["lasker=on"]), tmp_path / "a.h5", hold_bytes=0, **quiet)
    assert len(before) > 10 and stray == []
