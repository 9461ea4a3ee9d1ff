"""The verify's log and ledger (``solver.verify.resume``, ``ledger``, ``evidence``; ``morris
verify --log --ledger``). What a pass rests on: each mutation of a database verified before fails
``morris verify``, and fails ``morris verify --log`` rerun with the log of the pass (the changed
tier checked again, not taken from the log): a value changed with its checksum attribute
refreshed, a count attribute changed, a tier file deleted (completeness); a pass logged (or kept in
a ledger) by an older logic version is checked again; totals come from the counts. The ledger: a
database solved again is not checked again where its values and what each check reads are the
ones a passed check saw; a changed tier, and every tier whose check reads it, is checked in full;
values that no longer give their stored checksum are checked (and fail); a ledger of other rules
is refused in one line; a line cut off by a kill is passed over."""

from __future__ import annotations

import functools
import json
import shutil
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import tamper_check  # noqa: E402

import solver  # noqa: E402
from solver.cli import main as morris  # noqa: E402
from solver.engine.order import whole_game_jobs  # noqa: E402
from solver.numba_cache import source_key  # noqa: E402
from solver.rules import make_rules  # noqa: E402
from solver.storage.database import Database  # noqa: E402
from solver.storage.files import checksum, history_checksum, subspace_file  # noqa: E402
from solver.tiers import parse_tier, twin  # noqa: E402
from solver.verify import LOGIC_VERSION  # noqa: E402
from solver.verify.check import checkable, moving_reads, tier_reads  # noqa: E402
from solver.verify.reads import read_tiers  # noqa: E402
from solver.verify.resume import LEDGER, logged  # noqa: E402

PLAIN = ["--rules", "six", "-o", "men=4"]
HISTORY = ["--rules", "six", "-o", "men=3", "-o", "reclose=same-man"]


def solve(args, path: Path) -> Path:
    res = CliRunner().invoke(morris, ["solve", "--whole-game", *args, "--db", str(path), "-q"])
    assert res.exit_code == 0, res.output
    return path


def verify(db: Path, log: Path, ledger: Path | None = None, *more: str):
    extra = ["--ledger", str(ledger)] if ledger else []
    return CliRunner().invoke(morris, ["verify", "--db", str(db), "--log", str(log), *extra, *more])


def copy_db(src: Path, dst: Path) -> Path:
    shutil.copy(src, dst)
    shutil.copytree(str(src) + ".d", str(dst) + ".d")
    return dst


def readers(db: Path, tier: str) -> set[str]:
    """The subspaces whose check reads ``tier``."""
    with Database(db) as d:
        infos = d.tiers()
        present = {s.tier for s in infos}
        return {s.name for s in infos if parse_tier(tier) in read_tiers(d.rules, s.tier, present) and s.name != tier}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """``checked(game)``: the game solved twice (the second time as on a new machine) and its first
    database verified with a new ledger: (second database, ledger), built once for the module when
    first asked for (the history game compiles the history rule's engine: its tests are ``slow``)."""

    @functools.cache
    def get(game: str):
        args = {"plain": PLAIN, "history": HISTORY}[game]
        tmp = tmp_path_factory.mktemp(f"ledger-{game}")
        first, again = solve(args, tmp / "first.h5"), solve(args, tmp / "again.h5")
        ledger = tmp / "ledger.jsonl"
        res = verify(first, tmp / "first.log", ledger)
        assert res.exit_code == 0, res.output
        checks = logged(tmp / "first.log")
        assert checks and all(e["ok"] and e["method"] != LEDGER for e in checks.values())
        lines = ledger.read_text().splitlines()
        assert json.loads(lines[0])["rules"] == make_rules(*args[1:2], args[3::2]).to_dict()
        assert sorted(json.loads(x)["subspace"] for x in lines[1:]) == sorted(checks)  # every passed check recorded
        assert {json.loads(x)["code"] for x in lines[1:]} == {source_key(Path(solver.__file__).parent)}  # and by which code
        assert {json.loads(x)["logic"] for x in lines[1:]} == {LOGIC_VERSION}
        return again, ledger

    return get


@pytest.mark.parametrize("game", ["plain", pytest.param("history", marks=pytest.mark.slow)])
def test_a_database_solved_again_is_not_checked_again(checked, game, tmp_path):
    again, ledger = checked(game)
    before = ledger.read_text()
    res = verify(again, tmp_path / "again.log", ledger)
    assert res.exit_code == 0, res.output
    checks = logged(tmp_path / "again.log")
    with Database(again) as d:
        assert set(checks) == {s.name for s in d.tiers()}
    assert all(e["ok"] and e["method"] == LEDGER for e in checks.values())
    assert ledger.read_text() == before  # nothing new to record


def test_a_changed_tier_and_the_checks_that_read_it_are_checked_in_full(checked, tmp_path):
    again, ledger = checked("plain")
    bad = copy_db(again, tmp_path / "bad.h5")
    tier = "3-4"
    with Database(bad) as d:
        v = d.values(*parse_tier(tier))
    slot = int(tamper_check.kind_slots(v)[tamper_check.CHANGES[0]][0])
    tamper_check.change_one(bad, tier, slot, tamper_check.changed_value(tamper_check.CHANGES[0], int(v[slot])))  # checksum refreshed
    res = verify(bad, tmp_path / "bad.log", shutil.copy(ledger, tmp_path / "ledger.jsonl"))
    assert res.exit_code == 1, res.output
    checks = logged(tmp_path / "bad.log")
    redo = readers(bad, tier) | {tier}
    assert len(redo) >= 3  # (its twin and the removals that lead into it)
    assert {n for n, e in checks.items() if e["method"] != LEDGER} == redo
    assert checks[tier]["checksum_ok"] and checks[tier]["mismatches"] >= 1 and not checks[tier]["ok"]
    assert {n for n, e in checks.items() if not e["ok"]} <= redo  # (a check that reads the changed value may fail too)


def test_values_that_no_longer_give_their_checksum_are_checked_and_fail(checked, tmp_path):
    again, ledger = checked("plain")
    bad = copy_db(again, tmp_path / "bad.h5")
    with h5py.File(subspace_file(bad, "4-4"), "r+") as f:
        ds = f["subspaces"]["4-4"]
        v = ds[...]
        v[np.flatnonzero(v == 0)[0]] = 3  # a draw made a loss in 2, its stored checksum left as it was
        ds[...] = v
    res = verify(bad, tmp_path / "bad.log", shutil.copy(ledger, tmp_path / "ledger.jsonl"))
    assert res.exit_code == 1, res.output
    checks = logged(tmp_path / "bad.log")
    assert checks["4-4"]["method"] != LEDGER and not checks["4-4"]["checksum_ok"]
    # the checks that read it, checked again (their ledger entries computed its checksum from the
    # values, not taken from its attribute): any may fail on the changed value, none other does
    redo = readers(bad, "4-4") | {"4-4"}
    assert {n for n, e in checks.items() if e["method"] != LEDGER} == redo
    assert "4-4" in {n for n, e in checks.items() if not e["ok"]} <= redo


@pytest.mark.slow  # (the history rule's engine; the default run checks a changed tier above)
def test_a_changed_side_table_is_checked_in_full(checked, tmp_path):
    again, ledger = checked("history")
    bad = copy_db(again, tmp_path / "bad.h5")
    with h5py.File(subspace_file(bad, "3-3"), "r+") as f:
        ds = f["history/3-3/values"]
        v = ds[...]
        v[int(np.flatnonzero(v != 0)[3])] += 2  # the same side wins (or loses) two plies later
        ds[...] = v
        f["history/3-3"].attrs["checksum"] = history_checksum(f["history/3-3/keys"][...], v)
    res = verify(bad, tmp_path / "bad.log", shutil.copy(ledger, tmp_path / "ledger.jsonl"))
    assert res.exit_code == 1, res.output
    checks = logged(tmp_path / "bad.log")
    assert {n for n, e in checks.items() if e["method"] != LEDGER} == readers(bad, "3-3") | {"3-3"}
    assert [n for n, e in checks.items() if not e["ok"]] == ["3-3"] and checks["3-3"]["mismatches"] >= 1


def test_a_ledger_of_other_rules_is_refused_in_one_line(checked, tmp_path):
    again, _ = checked("plain")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"kind": "morris verify ledger", "version": 2, "rules": make_rules("six", ["men=3"]).to_dict()}) + "\n")
    res = verify(again, tmp_path / "x.log", other)
    assert res.exit_code == 1
    assert res.output.strip() == f"error: {other} is the ledger of six men=3, not of six men=4"
    assert not (tmp_path / "x.log").exists()


def test_a_ledger_of_version_1_is_refused_in_one_line(checked, tmp_path):
    """Its entries carry no logic version and no checksums computed from the values read: none
    could be reused, and new entries are not mixed into it."""
    again, _ = checked("plain")
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps({"kind": "morris verify ledger", "version": 1, "rules": make_rules("six", ["men=4"]).to_dict()}) + "\n")
    res = verify(again, tmp_path / "x.log", old)
    assert res.exit_code == 1
    assert res.output.strip() == (f"error: {old} is a verify ledger of version 1, not 2 (its passes cannot be reused: "
                                  "move it aside, and this verify starts a new one)")


def test_a_line_cut_off_by_a_kill_is_passed_over(checked, tmp_path):
    again, ledger = checked("plain")
    lines = ledger.read_text().splitlines()
    cut = tmp_path / "ledger.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2] + "\n")
    last = json.loads(lines[-1])["subspace"]
    res = verify(again, tmp_path / "again.log", cut)
    assert res.exit_code == 0, res.output
    checks = logged(tmp_path / "again.log")
    assert [n for n, e in checks.items() if e["method"] != LEDGER] == [last]  # checked again, and recorded
    assert json.loads(cut.read_text().splitlines()[-1])["subspace"] == last


@pytest.mark.parametrize("rules", [("lasker", []), ("twelve", []), ("standard", []), ("viking", ["reclose=same-man"])])
def test_what_a_solve_has_finished_is_checkable_and_a_group_cut_in_half_is_not(rules):
    """``checkable`` at full size, from the plan alone: after any number of the whole game's jobs
    (pairs and groups, in the solve's order) every tier written can be checked, so that a
    verify of a half-solved database (``--solved-only``) leaves none out; a tier whose twin (the
    other half of its pair or group) is not written yet cannot, so that nothing is checked against
    values that are missing."""
    r = make_rules(rules[0], rules[1])
    jobs = whole_game_jobs(r)
    written: list = []
    halves = 0
    for job in jobs:
        done = {*written, *job.writes}  # (what is solved once the job is)
        for t in job.writes:
            reads = (tier_reads if t[2] or t[3] else moving_reads)(r, [t])[0]
            assert done.issuperset(reads), (job.name, t)
            if twin(t) != t and twin(t) in job.writes and twin(t) in reads:  # the group cut off between the two
                lacking = [x for x in reads if x != twin(t)]  # (t itself among them)
                assert t not in checkable(r, lacking) and t in checkable(r, [*lacking, twin(t)])
                halves += 1
        written += job.writes
    assert checkable(r, written) == written
    assert halves >= 10
    assert len(set(written)) == len(written)


def test_a_half_solved_database_has_what_reads_nothing_missing_checked(checked, tmp_path):
    """``morris verify --log --solved-only`` on the subspace files a solve left (no main file yet, one
    subspace not written): every subspace whose check reads nothing missing is checked, and
    passes; those that read the missing one wait, and the run passes. Without the option the
    same database fails where the missing subspace is read."""
    again, _ = checked("plain")
    half = tmp_path / "half.h5"
    shutil.copytree(str(again) + ".d", str(half) + ".d")
    gone = "3-4"
    subspace_file(half, gone).unlink()
    waiting = readers(again, gone)
    with Database(again) as d:
        every = {s.name for s in d.tiers()}
    res = verify(half, tmp_path / "half.log", None, "--solved-only")
    assert res.exit_code == 0, res.output
    checks = logged(tmp_path / "half.log")
    assert len(waiting) >= 2 and set(checks) == every - waiting - {gone}
    assert all(e["ok"] for e in checks.values())
    assert f"--solved-only: {len(waiting)} subspaces read what the database lacks yet" in res.output
    res = verify(half, tmp_path / "all.log")
    assert res.exit_code != 0
    res = verify(tmp_path / "none.h5", tmp_path / "none.log")
    assert res.exit_code != 0 and f"error: no database at {tmp_path / 'none.h5'}" in res.output, res.output


# -- what a pass rests on ---------------------------------------------------------------------


def run(*args: str):
    return CliRunner().invoke(morris, [*args])


@pytest.fixture(scope="module")
def passed(checked):
    """The plain game solved again, the log of the verify of its first solve (which passed: its
    values are the same) and the ledger."""
    again, ledger = checked("plain")
    return again, again.parent / "first.log", ledger


def mutated(passed, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the database to change, and a copy of the log of its pass."""
    db, log, _ = passed
    return copy_db(db, tmp_path / "bad.h5"), Path(shutil.copy(log, tmp_path / "bad.log"))


def fails_both_ways(db: Path, log: Path) -> tuple[dict, dict, str]:
    """``morris verify --json`` and ``morris verify --log``, both failing: (the checks by tier,
    the checks the rerun made by tier, the rerun's output)."""
    before = log.read_text().splitlines()
    res = run("verify", "--db", str(db), "--json")
    assert res.exit_code == 1, res.output
    checks = {e["subspace"]: e for e in map(json.loads, res.output.splitlines()) if e.get("event") == "subspace"}
    again = run("verify", "--db", str(db), "--log", str(log))
    assert again.exit_code == 1, again.output
    rechecked = {e["subspace"]: e for e in map(json.loads, log.read_text().splitlines()[len(before):])}
    totals = json.loads(again.output.splitlines()[-1])
    assert not totals["ok"]
    return checks, rechecked, again.output


def test_the_log_of_a_pass_is_reused_where_its_evidence_holds(passed, tmp_path):
    db, log, _ = passed
    entries = logged(log)
    line = next(iter(entries.values()))
    assert {"values", "reads", "logic", "counted"} <= set(line) and line["logic"] == LOGIC_VERSION
    assert line["values"].startswith("sha256:") and len(line["reads"]) == 32
    mine = Path(shutil.copy(log, tmp_path / "again.log"))
    res = run("verify", "--db", str(db), "--log", str(mine))
    assert res.exit_code == 0, res.output
    assert mine.read_text() == log.read_text()  # nothing checked again
    assert f"{len(entries)} subspaces, {len(entries)} passed before with the values they hold now, 0 to check" in res.output
    totals = json.loads(res.output.splitlines()[-1])
    assert totals["positions"] == sum(e["counted"]["positions"] for e in entries.values()) > 0
    assert totals["ok"] and totals["missing_tiers"] == [] and totals["failed"] == []


def test_a_value_changed_with_its_checksum_refreshed_fails(passed, tmp_path):
    bad, log = mutated(passed, tmp_path)
    tier = "4-4"
    with h5py.File(subspace_file(bad, tier), "r+") as f:
        ds = f["subspaces"][tier]
        v = ds[...]
        v[int(np.flatnonzero(v == 0)[0])] = 3  # a draw made a loss in 2
        ds[...] = v
        ds.attrs["checksum"] = checksum(v)
        ds.attrs["draw"] -= 1  # (the counts made to match: the values alone tell)
        ds.attrs["loss"] += 1
        ds.attrs["max_loss"] = max(int(ds.attrs["max_loss"]), 2)
        ds.attrs["max_plies"] = max(int(ds.attrs["max_plies"]), 2)
    checks, rechecked, _ = fails_both_ways(bad, log)
    assert checks[tier]["checksum_ok"] and checks[tier]["mismatches"] >= 1 and checks[tier]["wrong_counts"] == []
    assert tier in rechecked and rechecked[tier]["mismatches"] >= 1 and not rechecked[tier]["ok"]


def test_a_count_attribute_changed_fails_naming_it(passed, tmp_path):
    bad, log = mutated(passed, tmp_path)
    tier = "3-4-1-0"
    with h5py.File(subspace_file(bad, tier), "r+") as f:
        win = int(f["subspaces"][tier].attrs["win"])
        f["subspaces"][tier].attrs["win"] = win + 1
    checks, rechecked, _ = fails_both_ways(bad, log)
    assert [n for n, c in checks.items() if not c["ok"]] == [tier]
    assert checks[tier]["wrong_counts"] == [f"win: stored {win + 1:,}, counted {win:,}"]
    assert checks[tier]["mismatches"] == 0 and checks[tier]["checksum_ok"]
    assert list(rechecked) == [tier]  # (its values are those logged: the stored counts tell)
    res = run("verify", "--db", str(bad), "--subspace", tier)
    assert res.exit_code == 1 and f"{tier} win: stored {win + 1:,}, counted {win:,}" in res.output


def test_a_tier_file_deleted_fails_the_whole_verify(passed, tmp_path):
    """The start tier, which no check reads: only the completeness of the database tells."""
    bad, log = mutated(passed, tmp_path)
    with h5py.File(bad, "r+") as f:  # the main file's link, then the file
        del f["subspaces"]["0-0-4-4"]
    subspace_file(bad, "0-0-4-4").unlink()
    res = run("verify", "--db", str(bad))
    assert res.exit_code == 1
    assert "the database lacks 1 of the 18 tiers its game needs: 0-0-4-4" in res.output
    checks, rechecked, output = fails_both_ways(bad, log)
    assert checks and all(c["ok"] for c in checks.values()) and rechecked == {}  # (every check passes)
    assert "the database lacks 1 of the 18 tiers its game needs: 0-0-4-4" in output
    assert json.loads(output.splitlines()[-1])["missing_tiers"] == ["0-0-4-4"]


def test_a_pass_of_an_older_logic_version_is_checked_again(passed, tmp_path):
    db, log, ledger = passed
    tier = "4-3"
    lines = log.read_text().splitlines()
    old_log = tmp_path / "old.log"
    old_log.write_text("\n".join(json.dumps(dict(e, logic=LOGIC_VERSION - 1)) if e["subspace"] == tier else json.dumps(e)
                                 for e in map(json.loads, lines)) + "\n")
    res = run("verify", "--db", str(db), "--log", str(old_log))
    assert res.exit_code == 0, res.output
    rechecked = [json.loads(x) for x in old_log.read_text().splitlines()[len(lines):]]
    assert [e["subspace"] for e in rechecked] == [tier] and rechecked[0]["logic"] == LOGIC_VERSION
    # a ledger entry the same: checked again, not taken from the ledger
    old_ledger = tmp_path / "ledger.jsonl"
    old_ledger.write_text("\n".join(json.dumps(dict(e, logic=LOGIC_VERSION - 1)) if e.get("subspace") == tier else json.dumps(e)
                                    for e in map(json.loads, ledger.read_text().splitlines())) + "\n")
    res = run("verify", "--db", str(db), "--log", str(tmp_path / "new.log"), "--ledger", str(old_ledger))
    assert res.exit_code == 0, res.output
    new = logged(tmp_path / "new.log")
    assert [n for n, e in new.items() if e["method"] != LEDGER] == [tier] and new[tier]["seconds"] > 0
    assert json.loads(old_ledger.read_text().splitlines()[-1])["subspace"] == tier  # recorded anew


def test_a_log_line_cut_off_by_a_kill_is_checked_again(passed, tmp_path):
    db, log, _ = passed
    lines = log.read_text().splitlines()
    cut = tmp_path / "cut.log"
    cut.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2] + "\n")
    res = run("verify", "--db", str(db), "--log", str(cut))
    assert res.exit_code == 0, res.output
    assert json.loads(cut.read_text().splitlines()[-1])["subspace"] == json.loads(lines[-1])["subspace"]


@pytest.mark.parametrize("args, line", [
    (["--ledger", "x.jsonl"], "error: --phase, --solved-only and --ledger go with --log"),
    (["--solved-only"], "error: --phase, --solved-only and --ledger go with --log"),
    (["--log", "x.log", "--subspace", "3-3"], "error: --log checks the whole database: not with --subspace or --dry-run"),
])
def test_log_options_that_do_not_go_together_are_one_line(args, line, tmp_path):
    res = run("verify", "--db", str(tmp_path / "none.h5"), *args)
    assert res.exit_code == 2 and res.output.strip() == line
