"""The plan of a run (``morris solve --dry-run``): exact positions, a memory model that bounds what
the engine allocates, the refusal of a run that does not fit, and the solved subspaces a run holds."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine.costs.moving import plan_run
from solver.engine.pair import solve_pair
from solver.engine.held import SolvedValues
from solver.engine.order import pair_inputs, pairs_up_to
from solver.index import board_index
from solver.rules import make_rules


def _dry_run(*args: str) -> list[dict]:
    out = CliRunner().invoke(main, ["solve", "--dry-run", "--json", *args])
    assert out.exit_code == 0, out.output
    return [json.loads(line) for line in out.output.splitlines()]


@pytest.mark.parametrize("rules_name,max_men", [("six", 5), ("standard", 4)])
def test_planned_positions_are_the_canonical_slots(tmp_path, rules_name, max_men):
    """Burnside's count in the plan equals the canonical slots the index enumerates."""
    bi = board_index(make_rules(rules_name).board)
    plan = _dry_run("--rules", rules_name, "--max-men", str(max_men), "--db", str(tmp_path / "x.h5"))[-1]
    for s in plan["subspaces"]:
        a, b = map(int, s["subspace"].split("-"))
        _, _, canonical = bi.unrank_many(a, b, np.arange(bi.slots(a, b)))
        assert s["positions"] == int(canonical.sum()), s
        assert s["slots"] == bi.slots(a, b)


def test_nine_men_plan(tmp_path):
    """The whole standard moving phase: 49 subspaces, 3-3 as Gasser counted it, nothing to solve
    twice, and a peak within 16 GiB (the goal for this 24 GiB machine)."""
    lines = _dry_run("--max-men", "9", "--db", str(tmp_path / "x.h5"), "--max-memory", "16GiB")
    plan = lines[-1]
    names = [s["subspace"] for s in plan["subspaces"]]
    assert len(names) == 49 == len(set(names))
    assert {n for n in names} == {f"{a}-{b}" for a in range(3, 10) for b in range(3, 10)}
    assert plan["subspaces"][0] == {"subspace": "3-3", "positions": 169_626, "slots": 210_140}
    assert plan["positions"] == sum(s["positions"] for line in lines[:-1] for s in line["subspaces"])
    assert plan["fits"] and plan["peak_pair"] in [line["pair"] for line in lines[:-1]]


def test_memory_model_bounds_the_engine():
    """What solve_pair allocates stays within the plan's working bytes, pair by pair."""
    rules = make_rules("six")
    pairs = pairs_up_to(5)
    plan = plan_run(rules, pairs, memory_bytes=1 << 40)
    done = SolvedValues()
    for (a, b), p in zip(pairs, plan.pairs):
        results = solve_pair(rules, board_index("six"), a, b, done)
        assert 0 < results[0].held_bytes <= p.working_bytes, (a, b)
        for r in results:
            done.add(r.mover, r.opponent, r.values)


def test_inputs_held_are_only_what_later_pairs_read():
    """The plan holds the inputs of the pairs left, not every subspace of the last totals of men."""
    rules = make_rules("standard")
    pairs = pairs_up_to(9)
    plan = plan_run(rules, pairs, memory_bytes=1 << 40)
    bi = board_index("standard")
    last = plan.pairs[-1]  # 9-9 reads 8-9 only
    assert pair_inputs(rules, 9, 9) == [(8, 9)]
    assert last.input_bytes == 2 * bi.slots(8, 9)
    # the rule it replaces kept every subspace of totals 16 and 17 here
    old = sum(2 * bi.slots(a, b) for a in range(3, 10) for b in range(3, 10) if a + b in (16, 17))
    assert last.input_bytes < old


def test_a_run_that_does_not_fit_is_refused_before_any_work(tmp_path):
    db = tmp_path / "x.h5"
    out = CliRunner().invoke(main, ["solve", "--max-men", "4", "--db", str(db), "--max-memory", "100MiB"])
    assert out.exit_code == 1
    (line,) = out.output.strip().splitlines()
    assert line.startswith("error: pair 4-4 needs about") and "100 MiB allowed" in line
    assert not db.exists() and not (tmp_path / "x.h5.d").exists()


@pytest.mark.parametrize("size", ["1x", "-3G", "G"])
def test_bad_memory_size_is_one_line(tmp_path, size):
    out = CliRunner().invoke(main, ["solve", "--db", str(tmp_path / "x.h5"), "--max-memory", size])
    assert out.exit_code == 2 and out.output.startswith("error: --max-memory") and len(out.output.splitlines()) == 1


def test_plan_marks_what_the_database_holds(tmp_path):
    db = tmp_path / "six.h5"
    assert CliRunner().invoke(main, ["solve", "--rules", "six", "--max-men", "3", "--db", str(db), "-q"]).exit_code == 0
    lines = _dry_run("--rules", "six", "--max-men", "4", "--db", str(db))
    status = {line["pair"]: line["done"] for line in lines[:-1]}
    assert status == {"3-3": True, "3-4 and 4-3": False, "4-4": False}
    assert "in the database" in lines[-1]["rate_source"]
    assert lines[-1]["positions_to_solve"] == lines[-1]["positions"] - lines[0]["positions"]


def test_time_comes_from_the_reference_run_scaled_by_this_machine():
    """Pairs the reference run has take its time times this machine's factor (the ratio of the
    times measured here to the reference's on the same pairs); the others take the rate."""
    from solver.engine.costs import reference_run
    from solver.engine.costs.moving import reference_factor

    rules = make_rules("standard")
    known = list(reference_run.SECONDS)[:3]
    factor, source = reference_factor(rules, {name: 2.5 * reference_run.SECONDS[name] for name in known})
    assert factor == pytest.approx(2.5) and "3 pairs" in source
    assert reference_factor(make_rules("six"), {known[0]: 1.0}) == (None, "")  # another rule set
    assert reference_factor(rules, {"no such pair": 1.0}) == (None, "")

    pairs = pairs_up_to(9)
    plan = plan_run(rules, pairs, set(), rate=1e6, rate_source="test", speed=2.0, speed_source="test")
    for p in plan.pairs:
        if p.pair in reference_run.SECONDS:
            assert p.seconds == pytest.approx(2.0 * reference_run.SECONDS[p.pair], abs=0.05)
        else:
            assert p.seconds == pytest.approx(p.positions / 1e6, abs=0.05)
    # Without a factor, every pair is timed at the rate.
    plain = plan_run(rules, pairs, set(), rate=1e6, rate_source="test")
    assert all(p.seconds == pytest.approx(p.positions / 1e6, abs=0.05) for p in plain.pairs)
