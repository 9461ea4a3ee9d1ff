"""The retrograde engine: published anchors, regression checksums, verification, resumption and
depth overflow. (The index it ranks positions by: ``test_index.py``.)"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from solver.engine.held import SolvedValues
from solver.engine.kernels import codes
from solver.engine.pair import solve_pair
from solver.engine.run import solve
from solver.errors import DepthOverflow, MismatchError
from solver.index import board_index
from solver.index.counting import positions_up_to_symmetry
from solver.rules import make_rules
from solver.storage.database import Database
from solver.storage.files import checksum, subspace_file
from solver.storage.write import copy_database
from solver.values import DUP, decode_many
from solver.verify.check import verify

quiet = {"progress": False, "echo": lambda s: None}


burnside_positions = positions_up_to_symmetry  # Burnside's lemma: independent of the index


RECORDED = Path(__file__).parents[1] / "tests/data/checksums/standard-6.json"


def test_standard_3_3_anchor(solved_db):
    """Gasser 1996: 169,626 positions up to symmetry (of 2,691,920), longest loss 26 plies (the
    statistics ``solve`` stored from ``solve_pair``'s result, in the session's standard database)."""
    with Database(solved_db("standard", 4)) as db:
        info = db.info(3, 3)
    assert info.positions == 169_626
    assert info.max_loss == 26


def test_standard_checksums_regression(solved_db):
    """The standard databases' checksums up to 4 men (the session's database, solved by
    ``solve``), as recorded in tests/data/checksums/standard-6.json by a run whose full ``morris
    verify`` passed (a regression figure: it says the values have not changed, not that they were
    right to begin with)."""
    recorded = json.loads(RECORDED.read_text())
    with Database(solved_db("standard", 4)) as db:
        for a, b in ((3, 3), (3, 4), (4, 3), (4, 4)):
            assert checksum(db.values(a, b)) == recorded[f"{a}-{b}"]


def test_removal_candidates_settled_either_way(monkeypatch):
    """The candidates' pass settles removal codes where it finds them (standard rules: what the
    run above solved); the forward pass over marked candidates (kept for per-mill removals) must
    give the same values: the same recorded checksums."""
    import solver.engine.pair as pair

    rules, bi = make_rules("standard"), board_index("standard")
    assert pair.settled_when_found(rules, 4)
    recorded = json.loads(RECORDED.read_text())
    monkeypatch.setattr(pair, "settled_when_found", lambda rules, men: False)
    done, sums = SolvedValues(), {}
    for a, b in ((3, 3), (3, 4), (4, 4)):
        for r in solve_pair(rules, bi, a, b, done):
            done.add(r.mover, r.opponent, r.values)
            sums[f"{r.mover}-{r.opponent}"] = checksum(r.values)
    assert sums == {name: recorded[name] for name in sums} and len(sums) == 4


def test_atomic_min_keeps_the_least_of_racing_writes():
    """Threads writing levels to shared slots at once: each slot keeps the least written to it
    (and slots nobody wrote keep theirs). A lost race is rare in any one run, so this checks the
    operation (unsigned minimum, element width, index), not that it is atomic."""
    import numba as nb

    from solver.engine.kernels.atomic import atomic_min

    @nb.njit(parallel=True)
    def scatter(out, where, what):
        for i in nb.prange(where.shape[0]):
            atomic_min(out, where[i], what[i])

    rng = np.random.default_rng(7)
    where = rng.integers(0, 1_200, size=1_000_000)
    what = rng.integers(1, 60_000, size=where.shape[0]).astype(np.uint16)
    out = np.full(1_250, codes.LAZY, dtype=np.uint16)
    scatter(out, where, what)
    want = np.full(1_250, codes.LAZY, dtype=np.uint16)
    np.minimum.at(want, where, what)
    assert out.tolist() == want.tolist()


@pytest.fixture(scope="module")
def six_db(solved_db) -> Path:
    """Six Men's Morris up to 5 men (shared by the session: copy it before changing it)."""
    return solved_db("six", 5)


def test_verify_passes_on_fresh_database(six_db):
    checks = verify(six_db, progress=False)
    assert checks and all(c.ok for c in checks)
    assert {c.name for c in checks} >= {"3-3", "4-5", "5-4", "5-5"}


def test_verify_catches_a_changed_value(six_db, tmp_path):
    bad = tmp_path / "bad.h5"
    copy_database(six_db, bad)
    with h5py.File(bad, "r+") as f:
        ds = f["subspaces/4-4"]
        values = ds[...]
        slot = int(np.nonzero((values != 0) & (values != DUP))[0][100])
        ds[slot] = values[slot] + 2  # same side wins, two plies longer
    checks = {c.name: c for c in verify(bad, progress=False)}
    assert not checks["4-4"].checksum_ok
    assert checks["4-4"].mismatches >= 1
    assert any(f"slot {slot}" in e for e in checks["4-4"].examples)


def test_verify_catches_a_changed_byte(six_db, tmp_path):
    bad = tmp_path / "flip.h5"
    copy_database(six_db, bad)
    held = subspace_file(bad, "5-5")  # the file that holds the subspace's chunks
    data = bytearray(held.read_bytes())
    with h5py.File(held) as f:
        ds = f["subspaces/5-5"]
        offset = ds.id.get_offset() if ds.chunks is None else ds.id.get_chunk_info(0).byte_offset
    data[offset + 100] ^= 0xFF
    held.write_bytes(bytes(data))
    checks = {c.name: c for c in verify(bad, progress=False)}
    assert not checks["5-5"].ok


def test_solve_skips_finished_subspaces(six_db, tmp_path):
    path = tmp_path / "copy.h5"
    copy_database(six_db, path)
    messages: list[str] = []
    rows = solve(make_rules("six"), 5, path, progress=False, echo=messages.append)
    assert all(r.skipped for r in rows)
    assert any("done already" in m for m in messages)


def test_other_rules_into_same_database_is_refused(six_db, tmp_path):
    path = tmp_path / "copy.h5"
    copy_database(six_db, path)
    with pytest.raises(MismatchError, match="rule set"):
        solve(make_rules("six", ["flying=at-3"]), 3, path, **quiet)


def test_depth_overflow_is_an_error(monkeypatch):
    monkeypatch.setattr(codes, "MAX_LEVEL", 10)
    with pytest.raises(DepthOverflow):
        solve_pair(make_rules("standard"), board_index("standard"), 3, 3, SolvedValues())


KILL_AFTER_SECOND_PAIR = """
import os, signal, sys
from pathlib import Path
from solver.engine.run import solve
from solver.rules import make_rules
solved = []
def on_pair(rows):
    solved.extend(r for r in rows if not r.skipped)
    if len(solved) >= 3:  # 3-3, then 3-4 and 4-3: two pairs are on disk
        os.kill(os.getpid(), signal.SIGKILL)
solve(make_rules("six"), 5, Path(sys.argv[1]), progress=False, echo=lambda s: None, on_pair=on_pair)
"""


def test_killed_solve_resumes_to_the_same_database(six_db, tmp_path):
    """A solve SIGKILLed right after its second pair is on disk (it kills itself there, so the
    moment is exact); the rerun skips those pairs and ends with the same values as an
    uninterrupted run."""
    path = tmp_path / "killed.h5"
    killed = subprocess.run([sys.executable, "-c", KILL_AFTER_SECOND_PAIR, str(path)], capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with h5py.File(path) as f:  # the main file links each pair as soon as it is written
        assert sorted(f["subspaces"]) == ["3-3", "3-4", "4-3"]
    assert sorted(s.name for s in Database(path).subspaces()) == ["3-3", "3-4", "4-3"]
    cmd = [sys.executable, "-m", "solver", "solve", "--rules", "six", "--max-men", "5", "--db", str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "3-3: done already, skipped" in out and "3-4 and 4-3: done already, skipped" in out
    assert "4-4: done already" not in out
    with h5py.File(path) as a, h5py.File(six_db) as b:
        assert sorted(a["subspaces"]) == sorted(b["subspaces"])
        for name in b["subspaces"]:
            assert a["subspaces"][name].attrs["checksum"] == b["subspaces"][name].attrs["checksum"]


@pytest.mark.parametrize(
    "attr,value,message",
    [("format_version", 99, "format version 99"), ("index_scheme", "other/1", "index scheme 'other/1'"), ("format", "x", "not a morris database")],
)
def test_mismatched_file_is_refused(six_db, tmp_path, attr, value, message):
    bad = tmp_path / "other.h5"
    bad.write_bytes(six_db.read_bytes())
    with h5py.File(bad, "r+") as f:
        f.attrs[attr] = value
    with pytest.raises(Exception, match=message) as err:
        Database(bad)
    assert err.type.__module__ == "solver.errors"


def test_info_json_reports_every_subspace(six_db):
    import json

    from click.testing import CliRunner

    from solver.cli import main

    out = CliRunner().invoke(main, ["info", "--db", str(six_db), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["rules"]["name"] == "six" and data["rules"]["flying"] == "never"
    subs = {(s["mover"], s["opponent"]): s for s in data["subspaces"]}
    assert set(subs) == {(a, b) for a in range(3, 6) for b in range(3, 6)}
    bi = board_index("six")
    with h5py.File(six_db) as f:
        for (a, b), s in subs.items():
            # Counted independently of the engine and of the stored statistics:
            assert s["positions"] == burnside_positions(bi.board, a, b)
            values = f["subspaces"][f"{a}-{b}"][...]
            kind, plies = decode_many(values)
            assert (s["win"], s["draw"], s["loss"]) == tuple(int((kind == k).sum()) for k in (1, 0, -1))
            assert s["max_win"] == max(plies[kind == 1], default=-1)
            assert s["max_loss"] == max(plies[kind == -1], default=-1)
            assert s["checksum"] == "sha256:" + hashlib.sha256(values.astype("<u2").tobytes()).hexdigest()
            assert s["slots"] == bi.slots(a, b) == values.shape[0]


def test_one_thread_gives_the_same_database(six_db, tmp_path):
    import numba

    path = tmp_path / "one.h5"
    try:
        solve(make_rules("six"), 5, path, threads=1, **quiet)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    with h5py.File(path) as a, h5py.File(six_db) as b:
        assert sorted(a["subspaces"]) == sorted(b["subspaces"])
        for name in b["subspaces"]:
            assert a["subspaces"][name].attrs["checksum"] == b["subspaces"][name].attrs["checksum"]


def test_too_many_threads_is_a_clear_error(tmp_path):
    from solver.errors import RulesError

    with pytest.raises(RulesError, match="threads"):
        solve(make_rules("six"), 3, tmp_path / "x.h5", threads=10_000, **quiet)


def test_bench_command_counts_every_position():
    import re

    from click.testing import CliRunner

    from solver.cli import main

    out = CliRunner().invoke(main, ["bench", "--rules", "six", "--max-men", "4"])
    assert out.exit_code == 0, out.output
    board = board_index("six").board
    want = sum(burnside_positions(board, a, b) for a in range(3, 5) for b in range(3, 5))
    total = re.search(r"total: ([\d,]+) positions", out.output)
    assert total and int(total.group(1).replace(",", "")) == want
    assert "M positions/s" in out.output and "peak memory" in out.output


def test_second_writer_is_refused(tmp_path):
    from solver.errors import DatabaseError
    from solver.storage.lock import writer_lock

    path = tmp_path / "locked.h5"
    with writer_lock(path):
        with pytest.raises(DatabaseError, match="another morris solve"):
            solve(make_rules("six"), 3, path, **quiet)
    solve(make_rules("six"), 3, path, **quiet)  # free again once the first writer is done
    assert Database(path).has(3, 3)


@pytest.mark.parametrize("rule_set,options,a,b", [("standard", (), 4, 3), ("standard", (), 3, 3), ("six", ("flying=at-3",), 4, 3)])
def test_flying_predecessors_from_a_table_equal_those_ranked_one_by_one(solved_db, rule_set, options, a, b):
    """``gather_predecessors`` tables the slots of a flying side's predecessors for a long run of
    frontier entries that share the mover fm (a dense frontier: thousands of consecutive
    positions), and ranks them one by one for a short run (each entry alone): the same slots
    either way, with the movers that a symmetry fixes too (where repeats are dropped)."""
    from solver.engine.kernels import propagate
    from solver.rules.tables import game_tables

    rules = make_rules(rule_set, list(options))
    index = board_index(rules.board)
    g, ix = game_tables(rules), index.tables
    with Database(solved_db(rule_set, 4, options)) as db:
        values = db.values(a, b)
    canonical = np.flatnonzero(values != DUP).astype(np.uint32)
    frontier = np.concatenate([canonical[:3000], canonical[len(canonical) // 2 : len(canonical) // 2 + 3000]])
    width = b * (g.n - a - b) + 1

    def gather(entries):
        nrow = np.empty((len(entries) + propagate.ROWS - 1) // propagate.ROWS, dtype=np.int64)
        preds = np.empty(nrow.shape[0] * propagate.ROWS * width, dtype=np.uint32)
        propagate.gather_predecessors(entries, len(entries), a, b, preds, nrow, g, ix)
        stride = preds.shape[0] // nrow.shape[0]
        return [preds[c * stride : c * stride + nrow[c]] for c in range(nrow.shape[0])]

    dense = gather(frontier)
    for c, got in enumerate(dense):
        entries = frontier[c * propagate.ROWS : (c + 1) * propagate.ROWS]
        alone = [gather(entries[i : i + 1])[0] for i in range(len(entries))]
        np.testing.assert_array_equal(np.sort(got), np.sort(np.concatenate(alone)))
    assert sum(len(x) for x in dense) > 4 * len(frontier)  # (the side flies: many un-moves each)


@pytest.mark.parametrize(
    "rule_set,options,men",
    [
        ("six", ("flying=at-3",), 4),
        ("six", ("flying=at-3", "removal=optional"), 4),  # a flight closing a mill stays in the twin
        ("six", ("double-mill=per-mill", "removal=optional"), 4),
        ("six", ("removal-from-mills=forfeit",), 4),
    ],
)
def test_pulled_decisions_equal_pushed_ones(monkeypatch, tmp_path, rule_set, options, men):
    """Every level decided by pulling from the open positions (``kernels.pull``; a flying side's
    half in its twin's order, ``kernels.pull_flying``, or in its own) gives the databases that
    pushing from the frontier gives (each checked against the reference by
    ``test_engine_vs_reference``), flying, per-mill removals, optional removals and late losses
    included."""
    from solver.engine import pair

    rules = make_rules(rule_set, list(options))
    got = {}
    ways = [("never", 0.0), ("always", 0.0)] + ([("always", 2.0)] if "flying=at-3" in options else [])
    for mode, twin_order in ways:
        monkeypatch.setattr(pair, "PULL", mode)
        monkeypatch.setattr(pair, "TWIN_ORDER_OPEN", twin_order)  # 0: always where a side flies; 2: never
        path = tmp_path / f"{mode}{twin_order}.h5"
        solve(rules, men, path, **quiet)
        with Database(path) as db:
            got[mode, twin_order] = {s.name: checksum(db.values(*s.tier)) for s in db.subspaces()}
    assert all(got[way] == got["never", 0.0] for way in ways) and len(got["never", 0.0]) >= 3
