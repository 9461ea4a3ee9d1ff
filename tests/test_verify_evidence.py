"""What a verify's pass rests on (``solver.verify.evidence``, ``counts``, ``complete``,
``morris verify --log``): each mutation of a database that was verified before fails
``morris verify``, and fails ``morris verify --log`` rerun with the log of the pass on the
unchanged database (the changed tier is checked again, not taken from the log): a value changed
with its checksum attribute refreshed, a count attribute changed, a tier file deleted; a pass
logged (or kept in a ledger) by an older logic version is checked again. The totals come from
the counts; a line cut off by a kill is passed over."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main as morris
from solver.storage.files import checksum, subspace_file
from solver.verify import LOGIC_VERSION
from solver.verify.resume import LEDGER, logged

GAME = ["--rules", "six", "-o", "men=4"]


def run(*args: str):
    return CliRunner().invoke(morris, [*args])


def copy_db(src: Path, dst: Path) -> Path:
    shutil.copy(src, dst)
    shutil.copytree(str(src) + ".d", str(dst) + ".d")
    return dst


@pytest.fixture(scope="module")
def passed(tmp_path_factory):
    """The six board with 4 men, whole, and the log and ledger of its verify (which passes)."""
    tmp = tmp_path_factory.mktemp("evidence")
    db = tmp / "six.h5"
    res = run("solve", "--whole-game", *GAME, "--db", str(db), "-q")
    assert res.exit_code == 0, res.output
    res = run("verify", "--db", str(db), "--log", str(tmp / "pass.log"), "--ledger", str(tmp / "ledger.jsonl"))
    assert res.exit_code == 0, res.output
    return db, tmp / "pass.log", tmp / "ledger.jsonl"


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
    bad, log = mutated(passed, tmp_path)
    with h5py.File(bad, "r+") as f:  # the main file's link, then the file
        del f["subspaces"]["2-2-2-2"]
    subspace_file(bad, "2-2-2-2").unlink()
    res = run("verify", "--db", str(bad))
    assert res.exit_code == 1
    assert "the database lacks 1 of the" in res.output and "tiers its game needs: 2-2-2-2" in res.output
    checks, _, output = fails_both_ways(bad, log)
    assert "tiers its game needs: 2-2-2-2" in output
    assert json.loads(output.splitlines()[-1])["missing_tiers"] == ["2-2-2-2"]


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
