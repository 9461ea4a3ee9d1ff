"""``tools/tamper_check.py``: a whole database's verify fails on a changed value (issue 26),
checked in a scratch copy that leaves the database as it was."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import tamper_check  # noqa: E402

from solver.storage.files import subspace_dir  # noqa: E402


def _digest(path: Path) -> str:
    h = hashlib.sha256(path.read_bytes())
    for f in sorted(subspace_dir(path).iterdir()):
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


def test_every_change_is_caught_and_the_database_is_untouched(solved_whole, tmp_path):
    path = solved_whole("six", ["men=4"]).path
    before = _digest(path)
    out = tmp_path / "t.json"
    res = CliRunner().invoke(tamper_check.main, ["--db", str(path), "--json", str(out), "--scratch", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = json.loads(out.read_text())["changes"]
    tiers = {r["tier"] for r in rows}
    assert any(t.count("-") == 1 for t in tiers) and any(t.count("-") == 3 for t in tiers)  # both phases
    assert {r["change"] for r in rows} == set(tamper_check.CHANGES)
    assert all(r["caught"] and r["checksum_ok"] and r["mismatches"] >= 1 for r in rows)
    # a lone mismatch is the changed slot itself (its successors are as they were)
    assert all(r["slot named"] for r in rows if r["mismatches"] == 1) and any(r["mismatches"] == 1 for r in rows)
    assert _digest(path) == before and not list(tmp_path.glob(".tamper-*"))


def test_a_change_not_caught_fails_the_run(solved_whole, tmp_path, monkeypatch):
    """A verify that passes the changed copy (here: the scratch copy left unchanged) is reported,
    and the run exits 1."""
    path = solved_whole("six", ["men=4"]).path
    monkeypatch.setattr(tamper_check, "change_one", lambda *a: None)
    res = CliRunner().invoke(tamper_check.main, ["--db", str(path), "--tier", "3-3", "--scratch", str(tmp_path)])
    assert res.exit_code == 1 and "NOT CAUGHT" in res.output and "| **no** |" in res.output
