"""The history rule through the database and the commands (docs/history-rule.md, section 6):
``morris solve -o reclose=...`` writes the side tables beside the plain slots, ``query`` reads a
position with its ``ban``/``pending`` suffix, ``info`` counts the states, ``verify`` checks them
forward and fails on a changed value, ``moves`` honours the ban; bad input gets one line.

One database, Six Men's Morris with 3 men and the Viking ban (whole game: 10,800 states in the
moving phase), is solved once for the module (a few seconds)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.history.solve import solve_moving
from solver.rules import make_rules
from solver.storage.database import Database
from solver.storage.files import history_checksum

# Under -m slow, the whole module: compiling the history rule's engine takes about 150 s of a
# worker from an empty numba cache, half the default run's budget. (test_history_rule.py, the
# reference, the notation and the refusals, stays in the default run.)
pytestmark = pytest.mark.slow

RULES = ["--rules", "six", "-o", "men=3", "-o", "reclose=same-man"]
DECIDES = "W:a1,a3,b2 B:b4,c4,d3 w"  # docs/history-rule.md 3.1: only the pending ban decides


def run(*args):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("history") / "six3.h5"
    result = run("solve", *RULES, "--whole-game", "--db", str(path), "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert lines[-1]["event"] == "summary" and lines[-1]["solved"] == 7 and "a draw" in lines[-1]["game_value"]
    assert not Path(str(path) + ".checkpoint").exists()  # no group took long enough to save its levels
    return path


def test_solve_writes_the_side_table_that_h5py_reads(db):
    rules = make_rules("six", ["men=3", "reclose=same-man"])
    h = solve_moving(rules, [(3, 3)])[3, 3]
    with h5py.File(db) as f:
        keys, values = f["history/3-3/keys"][...], f["history/3-3/values"][...]
        attrs = dict(f["history/3-3"].attrs)
        assert np.array_equal(f["subspaces/3-3"][...], h.values[: h.slots])  # the plain slots, as any database
    assert np.array_equal(keys, h.keys) and np.array_equal(values, h.values[h.slots :])
    assert attrs["states"] == 10_800 and attrs["keys"] == len(keys) == 688 and attrs["reclose"] == "same-man"
    assert attrs["win"] + attrs["draw"] + attrs["loss"] == attrs["states"]
    assert attrs["checksum"] == history_checksum(keys, values)


def test_a_rerun_skips_what_the_database_holds(db):
    result = run("solve", *RULES, "--whole-game", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["solved"] == 0 and summary["skipped"] == 7


def test_query_a_ban_that_decides(db):
    plain = json.loads(run("query", "--db", str(db), "--json", DECIDES).stdout)
    banned = json.loads(run("query", "--db", str(db), "--json", DECIDES + " pending d3-d4").stdout)
    assert (plain["value"], plain["plies"]) == ("loss", 2)
    assert (banned["value"], banned["plies"]) == ("win", 5) and banned["position"].endswith(" w pending d3-d4")
    best = banned["moves"][0]
    assert (best["move"], best["value"], best["plies"]) == ("b2-b3", "win", 5)
    assert best["after"] == "WW..WB..B..B.... b ban d3-d4"  # Black's pending ban is active now
    # that successor: the ban forbids Black's d3-d4 (each removal), and Black loses in 4
    after = run("query", "--db", str(db), best["after"])
    assert after.exit_code == 0 and "Black to move: loss in 4 plies" in after.stdout
    assert "note: the ban forbids d3-d4xa1 d3-d4xa3 d3-d4xb3" in after.stdout
    # a ban that forbids nothing here is dropped: the plain state, said so
    dead = run("query", "--db", str(db), DECIDES + " ban b2-b3")
    assert "loss in 2 plies" in dead.stdout and "not live" in dead.stdout


def test_placing_positions_are_plain_and_info_counts_the_states(db):
    start = json.loads(run("query", "--db", str(db), "--json", "................ w 3 3").stdout)
    assert start["value"] == "draw" and len(start["moves"]) == 16
    info = json.loads(run("info", "--db", str(db), "--json").stdout)
    moving = [s for s in info["subspaces"] if s["mover_hand"] == s["opponent_hand"] == 0]
    assert [(s["positions"], s["states"]) for s in moving] == [(10_112, 10_800)]
    text = run("info", "--db", str(db)).stdout
    assert "states" in text.splitlines()[1] and "14,453 states" in text


def test_moves_honour_the_ban():
    out = run("moves", *RULES, "W:a1,a3,b3 B:b4,c4,d3 b ban d3-d4").stdout
    assert out.split(":")[1].split() == ["c4-c5", "c4-d4", "d3-d2", "d3-e3", "(the", "ban", "forbids", "d3-d4xa1", "d3-d4xa3", "d3-d4xb3)"]


def test_verify_passes_then_fails_on_a_changed_value(db, tmp_path):
    ok = run("verify", "--db", str(db), "-q")
    assert ok.exit_code == 0 and "OK: 7 subspaces" in ok.stdout
    bad = tmp_path / "bad.h5"
    shutil.copy(db, bad)
    shutil.copytree(str(db) + ".d", str(bad) + ".d")
    with h5py.File(str(bad) + ".d/3-3.h5", "r+") as f:
        ds = f["history/3-3/values"]
        v = ds[...]
        i = int(np.flatnonzero(v != 0)[3])
        v[i] += 2  # the same side wins (or loses) two plies later
        ds[...] = v
        f["history/3-3"].attrs["checksum"] = history_checksum(f["history/3-3/keys"][...], v)  # only the forward check sees it
    failed = run("verify", "--db", str(bad), "-q")
    assert failed.exit_code == 1
    row = next(line for line in failed.stdout.splitlines() if line.split()[0] == "3-3")
    assert row.split()[2:4] == ["ok", "1"] and "FAILED: 1 of 7 subspaces" in failed.stderr


@pytest.mark.parametrize(
    "args, code, start",
    [
        (["query", "--db", "{db}", DECIDES + " pending x9-d4"], 2, "error: unknown point 'x9'"),
        (["query", "--db", "{db}", DECIDES + " pending d3-d4 ban b2-c2"], 2, "error: write 'ban' before 'pending'"),
        (["query", "--db", "{db}", DECIDES + " ban"], 2, "error: 'ban' needs a ban after it"),
        (["query", "--rules", "six", "-o", "men=3", "--db", "{db}", DECIDES], 1, "error: {db} holds the rule set 'six men=3 reclose=same-man'"),
        (["moves", "--rules", "six", DECIDES + " pending d3-d4"], 2, "error: a position with 'ban' or 'pending' belongs to the history rule"),
        (["solve", "--rules", "six", "-o", "reclose=same-man", "-o", "blocked=passes"], 2, "error: the history rule's engine does not handle blocked=passes"),
        (["solve", *RULES, "--max-memory", "0.01MiB", "--db", "{db}x"], 1, "error: the history rule's engine needs about"),
        (["play", "--db", "{db}"], 2, "error: option reclose=same-man is a history rule"),
        (["serve", "--db", "{db}"], 2, "error: option reclose=same-man is a history rule"),
    ],
)
def test_bad_input_gets_one_line(db, args, code, start):
    result = run(*(a.format(db=db) for a in args))
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == code and len(lines) == 1 and lines[0].startswith(start.format(db=db)), result.stderr


def test_a_ban_under_a_plain_database_is_refused(tmp_path):
    path = tmp_path / "plain.h5"
    assert run("solve", "--rules", "six", "-o", "men=3", "--max-men", "3", "--db", str(path), "-q").exit_code == 0
    result = run("query", "--db", str(path), DECIDES + " pending d3-d4")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: a position with 'ban' or 'pending' belongs to the history rule (option reclose), which this reads without: '{DECIDES} pending d3-d4'"
    ]
    with h5py.File(path) as f:
        assert "history" not in f and "history" not in h5py.File(str(path) + ".d/3-3.h5")


def test_the_python_api_reads_the_suffix(db):
    from solver.api import open_database

    with open_database(db) as d:
        an = d.analyse(DECIDES + " pending d3-d4")
        assert (an.probe.value, an.probe.plies) == ("win", 5) and an.board_string.endswith("w pending d3-d4")
        assert [m.after_text for m in an.best_moves] == ["WW..WB..B..B.... b ban d3-d4"]
        plain, banned = d.probe_many([DECIDES, DECIDES + " pending d3-d4"])
        assert (plain.value, plain.plies, banned.value) == ("loss", 2, "win")


def test_a_run_extended_by_more_men_reads_the_smaller_groups_back(tmp_path):
    """Solved to 3 men and then to 4, a database holds what one run to 4 men gives: the second
    run solves only the new groups, reading 3-3 (what 3-4's removals reach) from the file."""
    rules = ["--rules", "six", "-o", "men=4", "-o", "reclose=running-mill"]
    step, whole = tmp_path / "step.h5", tmp_path / "whole.h5"
    assert run("solve", *rules, "--max-men", "3", "--db", str(step)).exit_code == 0
    result = run("solve", *rules, "--max-men", "4", "--db", str(step), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["solved"] == 3 and summary["skipped"] == 1  # 3-4, 4-3, 4-4 new; 3-3 read back
    assert run("solve", *rules, "--max-men", "4", "--db", str(whole)).exit_code == 0
    with h5py.File(step) as f, h5py.File(whole) as g:
        for name in ("3-4", "4-3", "4-4"):
            assert np.array_equal(f[f"subspaces/{name}"][...], g[f"subspaces/{name}"][...])
            assert np.array_equal(f[f"history/{name}/values"][...], g[f"history/{name}/values"][...])


def test_a_half_written_in_pieces_reads_back_whole(tmp_path, monkeypatch):
    """``write.write_half`` makes the side table a few slots at a time into small chunks: the
    file reads back (through HDF5 and through the database's own chunk reader) as the whole
    layout, with the checksums ``storage`` computes; a lookup finds each key's row (and no row
    for a key the table lacks) reading chunks, not the keys whole."""
    from solver.history import write
    from solver.storage import files
    from solver.storage.database import Database
    from solver.storage.files import checksum

    rules = make_rules("six", ["men=3", "reclose=same-man"])
    h = solve_moving(rules, [(3, 3)])[3, 3]
    monkeypatch.setattr(files, "CHUNK", 100)  # (the datasets storage.files makes, write_half's too)
    monkeypatch.setattr(write, "PIECE_CHUNKS", 1)
    path = tmp_path / "pieces.h5"
    stats, side = write.write_half(path, rules, h, 1.0, 1.0)
    assert side["states"] == h.states == 10_800 and stats["positions"] + len(h.keys) == h.states
    with h5py.File(path) as f:
        g = f["history/3-3"]
        assert g["keys"].chunks == (100,) and np.array_equal(g["keys"][...], h.keys)
        assert np.array_equal(g["values"][...], h.values[h.slots :])
        assert g.attrs["checksum"] == history_checksum(h.keys, h.values[h.slots :]) and g.attrs["keys"] == len(h.keys)
        assert f["subspaces/3-3"].attrs["checksum"] == checksum(h.values[: h.slots])
    with Database(path, rules) as db:
        assert np.array_equal(db.values(3, 3), h.values[: h.slots])
        assert np.array_equal(db.history_values(3, 3), h.values[h.slots :])
        # a lookup's row: a binary search over the keys' chunks (7 here), none read whole
        monkeypatch.setattr(Database, "_whole", None)
        assert [db.history_row(3, 3, int(k)) for k in h.keys] == list(range(len(h.keys)))
        absent = (set((h.keys - 1).tolist()) | set((h.keys + 1).tolist())) - set(h.keys.tolist())  # both ends too
        assert {db.history_row(3, 3, k) for k in absent} == {-1}


def test_a_subspace_read_back_in_pieces(tmp_path, monkeypatch):
    """``store.load_moving`` and ``store.DatabaseInputs`` read a subspace file a few entries at
    a time straight into a store: the states as solved, their largest code from the attrs."""
    from solver.history import store, write
    from solver.history.layout import Store

    rules = make_rules("six", ["men=4", "reclose=same-man"])
    moving = solve_moving(rules, [(4, 4)])
    path = tmp_path / "back.h5"
    for h in moving.values():
        write.write_half(path, rules, h, 1.0, 1.0)
    monkeypatch.setattr(store, "PIECE", 1000)
    back = store.load_moving(Database(path, rules), rules)
    inputs = store.DatabaseInputs(path, rules)
    for s, h in moving.items():
        assert np.array_equal(back[s].counts, h.counts) and np.array_equal(back[s].state_values, h.state_values)
        assert inputs.top(*s) == int(h.state_values.max())
        st = Store.allocate([(*s, h.slots)])
        inputs.counts(*s, st)
        st.allocate_values(np.uint8)
        inputs.values(*s, st)
        assert np.array_equal(st.values_of(*s), h.state_values)


def test_verify_reads_a_subspace_with_only_what_its_moves_reach(tmp_path, monkeypatch):
    """``morris verify`` checks a moving subspace holding it and the subspaces its moves lead
    into, read back a few entries at a time (at 9 men the whole moving phase does not fit), the
    checksums streamed too; a successor missing from the database is that subspace's error, and
    the checks that do not need it still pass."""
    from solver.history import write
    from solver.storage import chunks
    from solver.verify import history as checker
    from solver.verify.check import verify

    rules = make_rules("six", ["men=4", "reclose=same-man"])
    moving = solve_moving(rules, [(4, 4)])
    path = tmp_path / "four.h5"
    for s in [(3, 4), (4, 3), (4, 4)]:  # 3-3 left out: only 3-4's removals reach it
        write.write_half(path, rules, moving[s], 1.0, 1.0)
    read = []
    held = checker.HistoryCheck._read
    monkeypatch.setattr(checker.HistoryCheck, "_read", lambda self, subs: read.append(subs) or held(self, subs))
    monkeypatch.setattr(chunks, "PIECE", 1000)
    checks = {c.name: c for c in verify(path, progress=False, rules=rules)}
    assert read == [[(3, 4), (4, 3)], [(4, 3), (3, 4)], [(4, 4), (3, 4)]]  # (3-3 is not there)
    assert checks["4-3"].ok and checks["4-4"].ok and checks["4-4"].positions == 56_748
    assert not checks["3-4"].ok and "its moves lead into 3-3, not in the database" in checks["3-4"].error


def test_inputs_in_two_bytes_stop_a_run_the_plan_cannot_hold():
    """The plan counts a byte a state of inputs; a group whose inputs turn out to need 2 (a code
    past 255) is refused before it is solved where the plan with them exceeds the limit."""
    from solver.errors import PlanError
    from solver.history.plan import plan
    from solver.history.run import wide_inputs_check
    from solver.history.layout import Store

    rules = make_rules("six", ["men=4", "reclose=same-man"])
    subs = [(4, 4)]
    g = next(p for p in plan(rules, subs) if p.group == [(4, 4)])
    check = wide_inputs_check(rules, subs, int(g.bytes) + 1)
    narrow, wide = Store([], np.uint8), Store([], np.uint16)
    check([(4, 4)], narrow)  # a byte a state: the plan holds
    with pytest.raises(PlanError, match="code past 255"):
        check([(4, 4)], wide)
    wide_inputs_check(rules, subs, int(g.bytes_wide) + 1)([(4, 4)], wide)


def test_a_solve_killed_inside_a_group_resumes_it(db, tmp_path, monkeypatch):
    """``morris solve`` killed inside the group 3-3 (right after its second save of the level
    loop, saves forced every level), then run again: the group goes on from the saved level, the
    run says so, and the database holds what an uncut run wrote; the saves are gone."""
    from solver.history import run as history_run
    from solver.history.checkpoint import Checkpoint

    class Killed(Exception):
        pass

    class EveryLevel(Checkpoint):
        kill_at = 2
        saves = 0

        def __init__(self, folder, rules_text, echo=print):
            super().__init__(folder, rules_text, every=0, echo=echo)

        def save(self, group, *args, **kw):
            super().save(group, *args, **kw)
            EveryLevel.saves += 1
            if EveryLevel.saves == EveryLevel.kill_at:
                raise Killed

    monkeypatch.setattr(history_run, "Checkpoint", EveryLevel)
    path = tmp_path / "cut.h5"
    first = CliRunner().invoke(main, ["solve", *RULES, "--max-men", "3", "--db", str(path)])
    meta = Path(str(path) + ".checkpoint", "3-3", "meta.json")
    assert isinstance(first.exception, Killed) and meta.exists()
    earlier = json.loads(meta.read_text())
    EveryLevel.kill_at = 0
    again = run("solve", *RULES, "--max-men", "3", "--db", str(path))
    assert again.exit_code == 0 and "3-3: resumed at level 1" in again.output, again.output
    with h5py.File(path) as f, h5py.File(db) as g:
        # the record counts the killed run's levels too, wall and CPU alike
        attrs = f["subspaces/3-3"].attrs
        assert attrs["seconds"] >= earlier["seconds"] and attrs["cpu_seconds"] >= earlier["cpu_seconds"]
        assert np.array_equal(f["history/3-3/values"][...], g["history/3-3/values"][...])
        assert np.array_equal(f["subspaces/3-3"][...], g["subspaces/3-3"][...])
    assert not Path(str(path) + ".checkpoint").exists()


def test_sigusr1_asks_for_a_save_at_the_next_chance_and_a_rerun_goes_on_judging(db, tmp_path, monkeypatch):
    """``kill -USR1`` on ``morris solve`` (here sent as the group 3-3 starts, its timed save 15
    minutes away) saves the group at its next chance, after its first run of judging (one part
    a run here), and the run says so; killed right then, a rerun goes on with the next part,
    says where it resumed, and writes what an uncut run wrote."""
    import os
    import signal

    from solver.history import run as history_run
    from solver.history import solve as history_solve
    from solver.history.checkpoint import Checkpoint

    class Killed(Exception):
        pass

    class Signalled(Checkpoint):
        def begin(self):
            super().begin()
            # the solve set its own handler (the default one would end the test's process)
            assert signal.getsignal(signal.SIGUSR1) not in (signal.SIG_DFL, signal.SIG_IGN, None)
            os.kill(os.getpid(), signal.SIGUSR1)

        def save(self, group, *args, **kw):
            super().save(group, *args, **kw)
            raise Killed

    monkeypatch.setattr(history_run, "Checkpoint", Signalled)
    monkeypatch.setattr(history_solve, "JUDGE_PARTS", 1)
    path = tmp_path / "asked.h5"
    first = CliRunner().invoke(main, ["solve", *RULES, "--max-men", "3", "--db", str(path)])
    assert isinstance(first.exception, Killed), first.output
    assert "group 3-3: saved as asked (level 0, 1 of 12 parts judged)" in first.output, first.output
    assert json.loads(Path(str(path) + ".checkpoint", "3-3", "meta.json").read_text())["judged"] == 1
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL  # the solve's handler went with it
    monkeypatch.setattr(history_run, "Checkpoint", Checkpoint)
    again = run("solve", *RULES, "--max-men", "3", "--db", str(path))
    assert again.exit_code == 0 and "3-3: resumed at its judging (1 of 12 parts judged" in again.output, again.output
    with h5py.File(path) as f, h5py.File(db) as g:
        assert np.array_equal(f["history/3-3/values"][...], g["history/3-3/values"][...])
        assert np.array_equal(f["subspaces/3-3"][...], g["subspaces/3-3"][...])
    assert not Path(str(path) + ".checkpoint").exists()


def test_json_rows_say_where_a_groups_time_went(tmp_path):
    """A solved group's ``--json`` row carries ``steps``: the seconds of its numbering,
    judging and levels, and how many levels it took; a group skipped on a rerun has none."""
    path = tmp_path / "steps.h5"
    result = run("solve", *RULES, "--max-men", "3", "--db", str(path), "--json")
    assert result.exit_code == 0, result.output
    rows = [s for line in result.stdout.splitlines() for s in json.loads(line).get("subspaces", [])]
    assert [(r["mover"], r["opponent"]) for r in rows] == [(3, 3)]  # (men=3: the one group)
    for r in rows:
        steps = r["steps"]
        assert set(steps) == {"index_s", "init_s", "levels_s", "levels"}
        assert min(steps["index_s"], steps["init_s"], steps["levels_s"]) >= 0 and steps["levels"] >= 1
        assert steps["index_s"] + steps["init_s"] + steps["levels_s"] <= r["seconds"] + 0.01
    again = run("solve", *RULES, "--max-men", "3", "--db", str(path), "--json")
    skipped = [s for line in again.stdout.splitlines() for s in json.loads(line).get("subspaces", [])]
    assert len(skipped) == 1 and "steps" not in skipped[0]


def test_the_dry_run_states_the_disk_a_save_takes():
    """``--dry-run --json`` under the history rule: the plan's largest group's save (3 bytes a
    state) within the states in all, and the line says what a save takes while it replaces the
    last (twice that)."""
    res = run("solve", *RULES, "--max-men", "3", "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout.splitlines()[-1])
    assert plan["event"] == "plan" and 0 < plan["checkpoint_bytes"] <= 3 * plan["states"]
    text = run("solve", *RULES, "--max-men", "3", "--dry-run")
    assert f"up to about {round(2 * plan['checkpoint_bytes'] / 2**20):,} MiB of disk while a save is made" in text.output


def test_the_dry_run_times_the_states_left_at_the_engines_rate(tmp_path, monkeypatch):
    """``--dry-run`` under the history rule: the groups not yet in the database, their states at
    the engine's rate on the reference machine times this machine's speed (fixed here), and
    nothing of them once they are solved; the placing phase with ``--whole-game``."""
    from solver.engine.costs import plan as costs
    from solver.history.plan import REFERENCE_RATE, plan
    from solver.history.run import moving_subspaces

    monkeypatch.setattr(costs, "machine_speed", lambda progress_bar=None: (1e6, "fixed", ""))
    rules = make_rules("six", ["men=3", "reclose=same-man"])
    states = sum(g.states for g in plan(rules, moving_subspaces(rules, 3, False)))
    db = tmp_path / "t.h5"

    def dry(*more):
        res = run("solve", *RULES, *more, "--db", str(db), "--dry-run", "--json")
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout.splitlines()[-1])

    before = dry("--max-men", "3")
    assert before["moving_seconds"] == round(states / REFERENCE_RATE * 1e6) > 0 and before["placing_seconds"] == 0
    assert "x 1000000.00 for this one" in before["rate_source"]
    assert "estimated time:" in run("solve", *RULES, "--max-men", "3", "--db", str(db), "--dry-run").output
    # timed while other work held the cores: the estimate says so
    busy = "; timed while other work held 90% of the 2 cores, so the estimate is too long"
    monkeypatch.setattr(costs, "machine_speed", lambda progress_bar=None: (1e6, "fixed", busy))
    assert f"x 1000000.00 for this one (timed now{busy})" in dry("--max-men", "3")["rate_source"]
    assert run("solve", *RULES, "--max-men", "3", "--db", str(db)).exit_code == 0
    assert dry("--max-men", "3")["moving_seconds"] == 0
    assert dry("--whole-game")["placing_seconds"] > 0
