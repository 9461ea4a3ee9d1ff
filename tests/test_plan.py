"""The plan of a run (``morris solve --dry-run``): exact positions, a memory model that bounds what
the engine allocates, the refusal of a run that does not fit, and the solved subspaces a run holds.
The planner (``engine.costs.plan``) is tested directly too: its numbers are the dry run's, and a run
that does not fit raises ``PlanError`` with the line the CLI prints."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine.costs.moving import plan_run
from solver.engine.order import pair_inputs, pairs_up_to
from solver.errors import PlanError, RulesError
from solver.index import board_index
from solver.index.counting import subspace_positions
from solver.rules import make_rules
from solver.tiers import pair_name


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


@pytest.mark.slow  # (7 s: the timing chain under a second rule set)
def test_another_rule_set_borrows_the_reference_runs_times(tmp_path, monkeypatch):
    """A rule set the reference run did not solve, on its board: each pair the reference has
    takes its time (for this rule set's positions) times this machine's factor times the rules'
    (the chain timed under both), the pairs it lacks the reference's rate on its largest pairs
    scaled the same way; the placing phase takes this machine's factor alone."""
    from solver.engine.costs import reference_run
    from solver.engine.costs.moving import borrowed_reference, borrows_reference
    from solver.engine.costs.plan import plan_whole_game

    chain = [pair_name(a, b) for a, b in pairs_up_to(4)]
    standard = {n: 2.0 * reference_run.SECONDS[n] for n in chain}  # this machine: 2x the reference
    slower = {n: 1.5 * t for n, t in standard.items()}  # these rules: 1.5x the standard game
    lasker = make_rules("lasker")
    assert borrows_reference(lasker) and not borrows_reference(make_rules("standard"))
    assert not borrows_reference(make_rules("six")) and borrowed_reference(make_rules("six"), slower, standard, 4) is None
    speed, machine, source, reference, rate = borrowed_reference(lasker, slower, standard, 4)
    assert speed == pytest.approx(3.0) and machine == pytest.approx(2.0)
    assert "x 2.00 for this machine and x 1.50 for these rules" in source
    assert reference == pytest.approx(reference_run.SECONDS)  # the same board: the same positions
    top = [(a, b) for a, b in pairs_up_to(9) if a + b >= 17]
    positions = sum(subspace_positions(lasker.board, x, y) for a, b in top for x, y in {(a, b), (b, a)})
    assert rate == pytest.approx(positions / sum(reference_run.SECONDS[pair_name(a, b)] for a, b in top) / 3.0)
    plan = plan_run(lasker, pairs_up_to(10), set(), rate, "test", speed=speed, speed_source=source, reference=reference)
    for p in plan.pairs:
        expected = 3.0 * reference_run.SECONDS[p.pair] if p.pair in reference_run.SECONDS else p.positions / rate
        assert p.seconds == pytest.approx(expected, abs=0.05)
    assert plan.by_rate == len(pairs_up_to(10)) - len(pairs_up_to(9)) > 0

    # measured for real: the placing phase takes the reference's rate for placements scaled by
    # this machine's factor alone; and where other work held the cores while the machine was
    # timed (here as good as told so), each estimate's source says so
    from solver.engine.costs import plan as costs

    busy = "; timed while other work held 90% of the 2 cores, so the estimate is too long"
    monkeypatch.setattr(costs.OthersLoad, "note", lambda self, threshold=0.2: busy)
    game = plan_whole_game(make_rules("lasker", ["men=4"]), False, tmp_path / "new.h5", measure=True, check=False)
    assert game.moving.machine_speed and "for these rules" in game.moving.speed_source
    assert f"x {game.moving.machine_speed:.2f} for this one{busy}" in game.placing.rate_source
    assert game.moving.speed_source.endswith(busy) and game.moving.rate_source.endswith(busy)
    assert not (tmp_path / "new.h5").exists()


def test_a_machine_timed_under_load_says_so_in_every_estimate(tmp_path, monkeypatch):
    """Where other work held the cores while this machine was timed (``machine.OthersLoad``), the
    moving phase's and the placing phase's estimates say so beside their factor; timed quiet,
    they do not."""
    from solver.engine.costs import plan as costs
    from solver.engine.costs import reference_run

    chain = {pair_name(a, b): 2.0 * reference_run.SECONDS[pair_name(a, b)] for a, b in pairs_up_to(4)}
    busy = "; timed while other work held 55% of the 2 cores, so the estimate is too long"
    for said in (busy, ""):
        monkeypatch.setattr(costs, "time_machine", lambda rules, bar=None, said=said: costs.Timing(1e6, "timed" + said, chain, said))
        game = costs.plan_whole_game(make_rules("standard", ["men=4"]), False, tmp_path / "new.h5", measure=True, check=False)
        assert game.moving.speed == pytest.approx(2.0)
        assert game.moving.speed_source.endswith("reference: " + reference_run.HOST + said)
        assert game.placing.rate_source.endswith("x 2.00 for this one" + said)
        shown = CliRunner().invoke(main, ["solve", "--rules", "standard", "-o", "men=4", "--whole-game", "--dry-run", "--db", str(tmp_path / "new.h5")])
        assert shown.exit_code == 0 and (busy in shown.output) == bool(said), shown.output


# -- the planner itself (engine.costs.plan), which the CLI only prints ------------------------------


@pytest.fixture(scope="module")
def six3(tmp_path_factory):
    """A database of Six Men's Morris up to 3 men a side: its 3-3 is done and timed."""
    db = tmp_path_factory.mktemp("six3") / "six.h5"
    assert CliRunner().invoke(main, ["solve", "--rules", "six", "--max-men", "3", "--db", str(db), "-q"]).exit_code == 0
    return db


def test_plan_solve_gives_the_dry_runs_numbers(six3):
    from solver.engine.costs.plan import plan_solve

    plan = plan_solve(make_rules("six"), 5, six3, memory_bytes=1 << 33, measure=True)
    lines = _dry_run("--rules", "six", "--max-men", "5", "--db", str(six3), "--max-memory", "8GiB")
    assert [p.to_dict() for p in plan.pairs] == lines[:-1]
    assert dict(plan.to_dict(), database=str(six3)) == lines[-1]
    assert plan.positions_to_solve == lines[-1]["positions_to_solve"] == lines[-1]["positions"] - 10_112
    assert plan.peak_bytes == lines[-1]["peak_bytes"] and plan.pairs[0].done
    assert plan.rate_source == "the rate of pair 3-3 in the database"
    # without measuring, nothing is timed
    assert plan_solve(make_rules("six"), 5, six3).to_dict()["seconds"] is None


def test_plan_whole_game_gives_the_dry_runs_numbers(six3):
    from solver.engine.costs.plan import plan_whole_game

    plan = plan_whole_game(make_rules("six"), False, six3, measure=True)
    out = CliRunner().invoke(main, ["solve", "--rules", "six", "--whole-game", "--dry-run", "--json", "--db", str(six3)])
    assert out.exit_code == 0, out.output
    lines = [json.loads(line) for line in out.output.splitlines()]
    moving = [x for x in lines if x["event"] == "plan"]
    assert moving == [dict(plan.moving.to_dict(), database=str(six3))]
    assert [x for x in lines if x["event"] == "hands"] == [dict(r, event="hands") for r in plan.placing.rows]
    assert lines[-1] == plan.placing.to_dict()
    assert plan.peak_bytes == max(plan.moving.peak_bytes, plan.placing.peak_bytes)
    assert plan.positions_to_solve == moving[0]["positions_to_solve"] + lines[-1]["positions_to_solve"]


def test_a_plan_that_does_not_fit_raises_plan_error(tmp_path):
    from solver.engine.costs.plan import check_fits, plan_solve

    db = tmp_path / "x.h5"
    rules = make_rules("standard")
    with pytest.raises(PlanError) as e:
        plan_solve(rules, 4, db, memory_bytes=100 << 20)
    (line,) = str(e.value).splitlines()
    assert re.fullmatch(
        r"pair 4-4 needs about [\d,]+ MiB at its peak, more than the 100 MiB allowed "
        r"\(--max-memory; see morris solve --dry-run\)",
        line,
    ), line
    # check=False gives the plan (a dry run shows it), and check_fits refuses it just the same
    plan = plan_solve(rules, 4, db, memory_bytes=100 << 20, check=False)
    assert not plan.fits() and plan.peak.pair == "4-4"
    with pytest.raises(PlanError, match="^pair 4-4 needs about"):
        check_fits(plan)
    assert not db.exists()
    # the CLI prints the same line
    out = CliRunner().invoke(main, ["solve", "--max-men", "4", "--db", str(db), "--max-memory", "100MiB"])
    assert out.exit_code == 1 and out.output == f"error: {line}\n"


def test_a_placing_phase_that_does_not_fit_raises_plan_error(tmp_path):
    """The moving phase is done, so only the groups of tiers with men in hand count."""
    from solver.engine.costs.plan import plan_whole_game

    db = tmp_path / "three.h5"
    assert CliRunner().invoke(main, ["solve", "--rules", "three", "--max-men", "3", "--db", str(db), "-q"]).exit_code == 0
    rules = make_rules("three")
    plan = plan_whole_game(rules, False, db, memory_bytes=1 << 30)
    assert plan.moving.peak_bytes == 0 and plan.peak_bytes == plan.placing.peak_bytes
    with pytest.raises(PlanError) as e:
        plan_whole_game(rules, False, db, memory_bytes=300 << 20)
    assert re.fullmatch(
        r"tiers \S+ need about [\d,]+ MiB at their peak, more than the 300 MiB allowed "
        r"\(--max-memory; see morris solve --whole-game --dry-run\)",
        str(e.value),
    ), str(e.value)


def test_local_workers_that_would_not_fit_together_raise_plan_error():
    from solver.engine.costs.plan import check_local_workers

    check_local_workers(None, 1 << 30, 1 << 30)
    check_local_workers("local:1", 2 << 30, 1 << 30)  # one worker: the run's own check covers it
    check_local_workers("tcp://somewhere:8786", 2 << 30, 1 << 30)  # not this machine's memory
    check_local_workers("local:4", 256 << 20, 1 << 30)
    with pytest.raises(PlanError) as e:
        check_local_workers("local:4", 300 << 20, 1 << 30)
    assert str(e.value) == (
        "--cluster local:4: 4 workers may each hold about 300 MiB at once, more than the 1,024 MiB allowed "
        "(use fewer workers, or --max-memory)"
    )
    with pytest.raises(RulesError):
        check_local_workers("local:0", 1, 1)


def test_timing_this_machine_runs_the_chain_to_4_men(tmp_path):
    """Without a database to go by, a measured plan solves the chain to 4 men in memory, with a bar
    over its positions."""
    from solver.engine.costs.bench import chain_positions
    from solver.engine.costs.plan import capped_men, plan_solve

    rules = make_rules("six")
    assert chain_positions(rules, pairs_up_to(4)) == 10_112 + 2 * 25_190 + 56_748
    assert capped_men(rules, 4) == 4 and capped_men(make_rules("three"), 4) == 3
    bars = []

    class Bar:
        def __init__(self, total, desc):
            self.total, self.desc, self.done = total, desc, 0
            bars.append(self)

        def advance(self, positions):
            self.done += positions

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    plan = plan_solve(rules, 5, tmp_path / "new.h5", measure=True, progress_bar=Bar)
    (bar,) = bars
    assert bar.desc == "timing this machine on the chain to 4 men" and bar.done == bar.total == 117_240
    # (and where other work held the cores meanwhile, as another test worker may, a clause saying so)
    assert plan.rate > 0 and plan.rate_source == "measured now on the chain to 4 men (small pairs: a guide only)" + plan.busy
    assert plan.busy == "" or plan.busy.startswith("; timed while other work held")
    assert all(p.seconds is not None for p in plan.pairs)
    assert not (tmp_path / "new.h5").exists()
