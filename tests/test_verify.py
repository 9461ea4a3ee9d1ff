"""``morris verify``: its three ways (the twin walk, the marked walk, the sweep) against the direct
check (every successor ranked in full), on fresh databases and on single changes; the facts about
``generate_moves`` that the sweep and the marked walk rely on; ``--subspace`` and ``--json``. The
tiers with men in hand: whole games pass, and changed values are caught, by the tier walk, the tier
sweep and the direct check alike; the verifier imports no kernel of the engine."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine.run import solve
from solver.index import board_index
from solver.index.kernels import SYMMETRIC
from solver.rules import Position, make_rules
from solver.rules import movegen as mg
from solver.rules.notation import format_position
from solver.rules.tables import game_tables
from solver.storage.database import Database
from solver.storage.files import checksum, subspace_dir, subspace_file
from solver.storage.write import copy_database
from solver.tiers import fewer_men_needed
from solver.values import DUP, NO_VALUES, decode, describe
from solver.verify import kernels as vk
from solver.verify.check import (
    MARKED_WALK,
    SWEEP,
    TIER_DIRECT,
    TIER_SWEEP,
    TIER_WALK,
    TWIN_WALK,
    verify,
)

quiet = {"progress": False, "echo": lambda s: None}


@pytest.fixture(scope="module")
def std_db(tmp_path_factory) -> Path:
    """Standard rules up to 4 men: 3-x by the twin walk, 4-4 by the sweep."""
    path = tmp_path_factory.mktemp("verify") / "standard.h5"
    solve(make_rules("standard"), 4, path, **quiet)
    return path


@pytest.fixture(scope="module")
def six_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("verify") / "six.h5"
    solve(make_rules("six"), 5, path, **quiet)
    return path


def run(*args):
    return CliRunner().invoke(main, list(args))


def direct_counts(path: Path, names=None) -> dict[str, int]:
    """Mismatches per subspace by the direct check, slot by slot (``verify_subspace``)."""
    out = {}
    with Database(path) as db:
        rules = db.rules
        ix, g = board_index(rules.board).tables, game_tables(rules)
        for s in db.subspaces():
            if names is not None and s.name not in names:
                continue
            a, b = s.mover, s.opponent
            fewer = fewer_men_needed(rules, a, b)
            f = [db.values(b - k, a) if (b - k, a) in fewer else NO_VALUES for k in (1, 2, 3)]
            bad = np.full(5, -1, dtype=np.int64)
            out[s.name] = int(vk.verify_subspace(a, b, db.values(a, b), db.values(b, a), *f, g, ix, bad, 5))
    return out


def counts(path: Path, method: str | None = None, names=None) -> dict[str, int]:
    return {c.name: c.mismatches for c in verify(path, progress=False, method=method, subspaces=names)}


def all_ways(path: Path, names=None) -> dict[str, int]:
    """The mismatches per subspace, the same by each way (each forced where it can serve)."""
    got = counts(path, TWIN_WALK, names)
    assert counts(path, MARKED_WALK, names) == got
    assert counts(path, SWEEP, names) == got
    return got


def changed(src: Path, dst: Path, subspace: str, slot: int, value: int) -> Path:
    copy_database(src, dst)
    with h5py.File(dst, "r+") as f:
        f["subspaces"][subspace][slot] = value
    return dst


def test_fresh_database_passes_by_both_ways(std_db):
    checks = verify(std_db, progress=False)
    assert [c.name for c in checks] == ["3-3", "3-4", "4-3", "4-4"] and all(c.ok for c in checks)
    assert {c.name: c.method for c in checks} == {"3-3": TWIN_WALK, "3-4": MARKED_WALK, "4-3": TWIN_WALK, "4-4": SWEEP}
    assert all_ways(std_db) == {"3-3": 0, "3-4": 0, "4-3": 0, "4-4": 0}


def _symmetric_canonical_slot(a, b, values, rng):
    """A canonical slot, not a draw, whose mover set has a non-trivial stabiliser."""
    bi = board_index("standard")
    per = bi.slots(a, b) // int(bi.rep_count[a])
    off = int(bi.tables.rep_offset[a])
    slots = [s for s in np.flatnonzero((values != 0) & (values != DUP))
             if bi.tables.mask_info[bi.tables.reps[off + s // per]] & SYMMETRIC]
    return int(rng.choice(slots))


@pytest.mark.parametrize("subspace", ["3-3", "4-4"])
def test_changed_value_with_symmetric_mover_is_caught(std_db, tmp_path, subspace):
    """3-3 has the most slots per position; in 4-4 (the sweep) a win or loss two plies off."""
    a, b = map(int, subspace.split("-"))
    with Database(std_db) as db:
        values = db.values(a, b)
    slot = _symmetric_canonical_slot(a, b, values, random.Random(5))
    bad = changed(std_db, tmp_path / "bad.h5", subspace, slot, int(values[slot]) + 2)
    reached = [subspace, f"{b}-{a + 1}"][: 2 if a + 1 <= 4 else 1]  # itself, what removes into it
    checks = {c.name: c for c in verify(bad, progress=False, subspaces=reached)}
    assert checks[subspace].mismatches >= 1 and not checks[subspace].checksum_ok
    assert any(f"slot {slot} " in e for e in checks[subspace].examples)
    assert all_ways(bad, reached) == {c.name: c.mismatches for c in checks.values()}


def _removal_successor(std_db):
    """(slot of a 4-4 draw, slot of a 3-4 draw that it reaches by a move with a removal)."""
    rules = make_rules("standard")
    bi = board_index("standard")
    g = game_tables(rules)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    with Database(std_db) as db:
        v44, v34 = db.values(4, 4), db.values(3, 4)
    for slot in range(0, v44.size, 7):
        if v44[slot] != 0:
            continue
        m, o = bi.unrank(4, 4, slot)
        if not bi.is_canonical(4, 4, slot):
            continue
        for row in buf[: mg.generate_moves(m, o, 0, 0, g, buf)]:
            if row[2] >= 0:
                m2, o2, _ = mg.apply_move(m, o, 0, *map(int, row))
                succ = bi.rank(o2, m2)
                if v34[succ] == 0:
                    return slot, succ
    raise AssertionError("no 4-4 draw with a removal into a 3-4 draw")


def test_value_reached_only_by_a_removal_is_caught_by_the_sweep(std_db, tmp_path):
    """A 3-4 draw made a loss in 0: the 4-4 draw that removes into it is then a win in 1, and
    only the candidates of moves with a removal can mark it."""
    p, s = _removal_successor(std_db)
    bad = changed(std_db, tmp_path / "bad.h5", "3-4", s, 1)
    checks = {c.name: c for c in verify(bad, progress=False)}
    assert not checks["3-4"].ok and checks["3-3"].ok
    assert checks["4-4"].method == SWEEP and checks["4-4"].mismatches >= 1
    if checks["4-4"].mismatches <= len(checks["4-4"].examples):
        assert any(f"slot {p} " in e and "successors give win in 1" in e for e in checks["4-4"].examples)
    assert all_ways(bad, ["4-4", "3-4"]) == {"3-4": checks["3-4"].mismatches, "4-4": checks["4-4"].mismatches}


@pytest.mark.parametrize("how", ["canonical to DUP", "duplicate to draw", "duplicate to win"])
def test_changed_dup_marker_is_caught(std_db, tmp_path, how):
    bi = board_index("standard")
    with Database(std_db) as db:
        values = db.values(4, 4)
    canonical = bi.unrank_many(4, 4, np.arange(values.size))[2]
    if how == "canonical to DUP":
        slot, value = int(np.flatnonzero(canonical & (values == 0))[1000]), DUP
    else:
        slot, value = int(np.flatnonzero(~canonical)[500]), 0 if how == "duplicate to draw" else 2
    assert (values[slot] == DUP) != canonical[slot]
    bad = changed(std_db, tmp_path / "bad.h5", "4-4", slot, value)
    (check,) = verify(bad, progress=False, subspaces=["4-4"])
    assert check.method == SWEEP and check.mismatches >= 1 and any(f"slot {slot} " in e for e in check.examples)
    assert all_ways(bad, ["4-4"]) == {"4-4": check.mismatches}


def test_random_changes_agree_with_the_direct_check(six_db, tmp_path):
    """Changes anywhere in the six board's chain to 5 men: each way counts what the direct check
    counts, subspace by subspace (the sweep and the marked walk forced onto every subspace they
    can serve)."""
    rng = random.Random(11)
    with Database(six_db) as db:
        names = [s.name for s in db.subspaces()]
        data = {n: db.values(*map(int, n.split("-"))) for n in names}
    for trial in range(3):
        bad = tmp_path / f"bad{trial}.h5"
        copy_database(six_db, bad)
        with h5py.File(bad, "r+") as f:
            for name in rng.sample(names, 3):
                v = data[name]
                slot = int(rng.choice(np.flatnonzero(v != DUP)))
                f["subspaces"][name][slot] = rng.choice([0, 1, 2, int(v[slot]) + 2])
        want = direct_counts(bad)
        assert sum(want.values()) >= 1
        assert all_ways(bad) == want


@pytest.mark.parametrize(
    "name,options",
    [("standard", []), ("six", ["double-mill=per-mill"]), ("twelve", []), ("viking", []), ("six", ["blocked=passes"]), ("three", [])],
)
def test_what_the_sweep_relies_on_in_generate_moves(name, options):
    """Every move goes from frm to an adjacent to (or flies, for a side of three men where the
    rules allow it) and removes men only after completing a mill through to; a side with a man
    next to an empty point has a move; no move removes more men than ``most_removals``."""
    rules = make_rules(name, options)
    g = game_tables(rules)
    n = g.n
    rng = random.Random(3)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    for _ in range(3000):
        a = rng.randint(3, rules.men)
        b = rng.randint(3, rules.men)
        if a + b > n:
            continue
        points = rng.sample(range(n), a + b)
        m = sum(1 << p for p in points[:a])
        o = sum(1 << p for p in points[a:])
        empty = ((1 << n) - 1) & ~(m | o)
        k = mg.generate_moves(m, o, 0, 0, g, buf)
        if any(g.adj[p] & empty for p in range(n) if m >> p & 1):
            assert k >= 1
        flies = bool(g.opts[mg.OPT_FLY]) and a == 3
        for frm, to, *removed in buf[:k].tolist():
            if to < 0:
                continue  # a pass
            assert flies or g.adj[frm] >> to & 1
            taken = [r for r in removed if r >= 0]
            assert len(taken) <= rules.most_removals(a)
            if taken:
                after = (m & ~(1 << frm)) | (1 << to)
                assert mg.mills_formed(after, to, g.point_mills) > 0


def test_the_kernels_pieces(std_db):
    """``expected_with_setup`` against ``expected_value`` on any position, and ``not_draws``
    against a plain count of canonical slots that hold no draw."""
    rules = make_rules("standard")
    bi = board_index("standard")
    ix, g = bi.tables, game_tables(rules)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    syms = np.empty(16, dtype=np.int64)
    with Database(std_db) as db:
        twin, fewer1 = db.values(4, 3), db.values(3, 3)
        v34 = db.values(3, 4)
    rng = random.Random(2)
    for _ in range(500):
        points = rng.sample(range(24), 7)
        m, o = sum(1 << p for p in points[:3]), sum(1 << p for p in points[3:])
        nsyms = vk.canon_setup(o, ix, syms)
        oc = int(vk.image(ix.sym_img, syms[0], o))
        rep = int(ix.mask_info[o]) >> 5
        fast = vk.expected_with_setup(m, o, oc, rep, syms, nsyms, bi.slots(4, 3) // int(bi.rep_count[4]), buf, twin, fewer1, NO_VALUES, NO_VALUES, 4, g, ix)
        assert fast == vk.expected_value(m, o, buf, twin, fewer1, NO_VALUES, NO_VALUES, 4, g, ix)
    movers, opps, canonical = bi.unrank_many(3, 4, np.arange(v34.size))
    want = np.flatnonzero(canonical & (v34 != 0))
    assert np.array_equal(vk.not_draws(3, 4, v34, 7, ix), want)
    assert decode(int(v34[want[0]]))[0] in ("win", "loss")


def test_subspace_option_selects(std_db):
    result = run("verify", "--db", str(std_db), "--subspace", "4-4", "--subspace", "3-3", "--subspace", "4-4", "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [x["subspace"] for x in lines[:-1]] == ["3-3", "4-4"]  # the database's order, once each
    assert [x["method"] for x in lines[:-1]] == [TWIN_WALK, SWEEP]  # 3-3: removals leave 2 men
    verdict = lines[-1]
    assert verdict["event"] == "verdict" and verdict["ok"] and verdict["subspaces"] == 2
    assert verdict["positions"] == sum(x["positions"] for x in lines[:-1])
    text = run("verify", "--db", str(std_db), "--subspace", "3-4", "-q")
    assert text.exit_code == 0 and "OK: 1 subspaces" in text.stdout


@pytest.mark.parametrize(
    "value,fragment",
    [("4x4", "'4x4'"), ("4-", "'4-'"), ("five-five", "'five-five'"), ("5-5", "5-5: not in"), ("3-9", "3-9: not in")],
)
def test_bad_subspace_is_one_line(std_db, value, fragment):
    result = run("verify", "--db", str(std_db), "--subspace", value)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --subspace") and fragment in lines[0], result.stderr
    assert "Traceback" not in result.output and result.stdout == ""


def test_json_verdict_names_the_failed_subspace(std_db, tmp_path):
    with Database(std_db) as db:
        values = db.values(4, 4)
    slot = int(np.flatnonzero(values == 0)[12345])
    bad = changed(std_db, tmp_path / "bad.h5", "4-4", slot, 2)  # a draw made a loss in 1
    result = run("verify", "--db", str(bad), "--json")
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    verdict = lines[-1]
    assert verdict["ok"] is False and verdict["failed"] == ["4-4"]
    (row,) = [x for x in lines[:-1] if x["subspace"] == "4-4"]
    assert row["mismatches"] >= 1 and row["method"] == SWEEP and row["seconds"] >= 0
    assert any(f"slot {slot} " in e for e in row["examples"])


@pytest.mark.slow  # (the same checks run compiled in the default run)
def test_the_shortcuts_run_as_plain_python(tmp_path):
    """The sweep's and the marked walk's kernels with ``NUMBA_DISABLE_JIT=1`` (so that coverage
    sees inside them), on the six board's 3-4 with one value changed: the counts compiled."""
    path = tmp_path / "six.h5"
    solve(make_rules("six"), 4, path, **quiet)
    with Database(path) as db:
        values = db.values(3, 4)
    slot = int(np.flatnonzero((values != 0) & (values != DUP))[777])
    bad = changed(path, tmp_path / "bad.h5", "3-4", slot, int(values[slot]) + 2)
    compiled = {m: verify(bad, progress=False, subspaces=["3-4"], method=m)[0].to_dict() for m in (SWEEP, MARKED_WALK)}
    assert all(c["method"] == m and c["mismatches"] >= 1 for m, c in compiled.items())
    code = (
        "import json, sys; from solver.verify.check import verify; "
        "print(json.dumps({m: verify(sys.argv[1], progress=False, subspaces=['3-4'], method=m)[0].to_dict() "
        "for m in sys.argv[2:]}))"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code, str(bad), *compiled], env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        capture_output=True, text=True, cwd=Path(__file__).parents[1],
    )
    assert out.returncode == 0, out.stderr[-2000:]
    plain = json.loads(out.stdout.splitlines()[-1])
    for m, c in compiled.items():
        assert {k: plain[m][k] for k in ("method", "mismatches", "examples")} == {
            k: c[k] for k in ("method", "mismatches", "examples")
        }


# ---------------------------------------------------------------------------------------------
# The tiers with men in hand: their own forward check (verify/placing_kernels.py)
# ---------------------------------------------------------------------------------------------

WHOLE = {
    "three": ("three", []),
    "three-lasker": ("three", ["lasker=on"]),
    "six-4-lasker": ("six", ["men=4", "lasker=on"]),  # cycling groups, wins, draws and losses mixed
    "six-4": ("six", ["men=4"]),  # placements alone: the walk's _fold_placements
    "standard-3": ("standard", ["men=3"]),
    "lasker-3": ("lasker", ["men=3"]),
    "standard-4": ("standard", ["men=4"]),
    "six-4-per-mill": ("six", ["men=4", "double-mill=per-mill", "removal=optional"]),
    "six-5-per-mill": ("six", ["men=5", "double-mill=per-mill"]),  # two mills closed by one placement
    "six-4-passes": ("six", ["men=4", "blocked=passes", "removal-from-mills=forfeit"]),
    "six-4-flying": ("six", ["men=4", "flying=at-3"]),
    "twelve-4": ("twelve", ["men=4"]),
}
TIER_WAYS = (TIER_WALK, TIER_SWEEP, TIER_DIRECT)


@pytest.fixture(scope="module")
def whole_db(tmp_path_factory):
    """``whole_db(key)``: a whole game of ``WHOLE[key]`` solved by ``morris solve --whole-game``,
    once per module (the tests only read it, or copy it)."""
    built: dict[str, Path] = {}

    def get(key: str) -> Path:
        if key not in built:
            name, options = WHOLE[key]
            path = tmp_path_factory.mktemp("whole") / f"{key}.h5"
            res = run("solve", "--whole-game", "--rules", name, *[x for o in options for x in ("-o", o)], "--db", str(path), "-q")
            assert res.exit_code == 0, res.output
            built[key] = path
        return built[key]

    return get


def placing_names(path: Path) -> list[str]:
    with Database(path) as db:
        return [s.name for s in db.tiers() if s.placing]


def tier_counts(path: Path, method: str | None = None, names=None) -> dict[str, int]:
    """Mismatches per tier with men in hand (every one, or ``names``), by ``method``."""
    names = placing_names(path) if names is None else names
    checks = verify(path, progress=False, method=method, subspaces=names)
    assert not [c.error for c in checks if c.error or c.missing]
    return {c.name: c.mismatches for c in checks}


def tier_ways(path: Path, names=None) -> dict[str, int]:
    """The mismatches per tier, the same by the walk, the sweep (forced where it can serve) and
    the direct check of every slot."""
    got = tier_counts(path, TIER_DIRECT, names)
    assert tier_counts(path, TIER_WALK, names) == got
    assert tier_counts(path, TIER_SWEEP, names) == got
    return got


def copy_whole(src: Path, folder: Path) -> Path:
    """A copy of the database ``src`` under the same name in ``folder``, tiers with men in hand
    included (``copy_database`` copies the moving phase only)."""
    folder.mkdir(parents=True)
    dst = folder / src.name
    shutil.copy2(src, dst)
    shutil.copytree(subspace_dir(src), subspace_dir(dst))
    return dst


def changed_tier(src: Path, folder: Path, tier: str, changes: dict[int, int]) -> Path:
    """A copy of ``src`` in ``folder`` with values of ``tier`` changed ({slot: value}) and its
    checksum refreshed, so that only the values tell."""
    dst = copy_whole(src, folder)
    with h5py.File(subspace_file(dst, tier), "r+") as f:
        ds = f["subspaces"][tier]
        v = ds[...]
        for slot, value in changes.items():
            v[slot] = value
        ds[...] = v
        ds.attrs["checksum"] = checksum(v)
    return dst


@pytest.mark.parametrize(
    "key", ["three", "three-lasker", pytest.param("six-4-lasker", marks=pytest.mark.slow), "standard-3", "lasker-3",
            pytest.param("standard-4", marks=pytest.mark.slow), pytest.param("six-4-per-mill", marks=pytest.mark.slow),
            pytest.param("six-4-passes", marks=pytest.mark.slow), pytest.param("six-4-flying", marks=pytest.mark.slow),
            pytest.param("twelve-4", marks=pytest.mark.slow)],
)
@pytest.mark.threads(2)  # (the verify's parallel loops under two threads: tests/conftest.py)
def test_whole_games_pass_by_every_way(whole_db, key):
    """A freshly solved whole game passes, its tiers with men in hand by their own check (the
    walk or the sweep, picked tier by tier), and by each way forced."""
    path = whole_db(key)
    checks = verify(path, progress=False)
    assert checks and all(c.ok for c in checks), [c.to_dict() for c in checks if not c.ok]
    placing = [c for c in checks if c.name.count("-") == 3]
    assert placing and {c.method for c in placing} <= {TIER_WALK, TIER_SWEEP}
    assert tier_ways(path) == {c.name: 0 for c in placing}


def _slot_of_kind(values: np.ndarray, kind: str, rng) -> int:
    """A canonical slot holding a win (``kind`` "win") or a draw."""
    v = values.astype(np.int64)
    want = (v != DUP) & (v != 0) & ((v - 1) % 2 == 1) if kind == "win" else v == 0
    return int(rng.choice(np.flatnonzero(want)))


@pytest.mark.parametrize("tier", ["3-3-1-1", "4-3-0-1"])  # a tier that is its own twin; a tier and its twin 3-4-1-0
@pytest.mark.parametrize("change", ["win depth", "win to draw", "draw to loss"])
def test_changed_value_in_a_cycling_group_is_caught(whole_db, tmp_path, tier, change):
    """One value of a tier of a Lasker cycling group changed (a win two plies longer, a win made
    a draw, a draw made a loss in 2): the tier fails by every way, the example names the tier,
    the slot and the position, stored against what the successors give."""
    src = whole_db("six-4-lasker")
    with Database(src) as db:
        values = db.values(*map(int, tier.split("-")))
        assert db.info(*map(int, tier.split("-"))).positions > 1000
    slot = _slot_of_kind(values, "draw" if change == "draw to loss" else "win", np.random.default_rng(7))
    old = int(values[slot])
    new = {"win depth": old + 2, "win to draw": 0, "draw to loss": 3}[change]
    bad = changed_tier(src, tmp_path / "bad", tier, {slot: new})
    (check,) = verify(bad, progress=False, subspaces=[tier])
    assert check.checksum_ok and not check.ok and check.mismatches >= 1
    assert check.method in (TIER_WALK, TIER_SWEEP)
    line = next(e for e in check.examples if f"slot {slot} " in e)
    assert line.startswith(f"{tier} slot {slot} (") and f"stored {describe(new)}, successors give {describe(old)}" in line
    a, b, ha, hb = map(int, tier.split("-"))
    m, o = board_index("six").unrank(a, b, slot)
    assert format_position(Position.from_mover("w", m, o, ha, hb), make_rules("six").board_data) in line
    counts = tier_ways(bad, [tier])
    assert counts == {tier: check.mismatches}


def test_changed_placing_value_fails_the_command(whole_db, tmp_path):
    """``morris verify --json`` on a whole game with one placing value changed: exit status 1,
    the tier named in the verdict and its row."""
    src = whole_db("standard-3")
    with Database(src) as db:
        values = db.values(2, 3, 1, 0)
    slot = _slot_of_kind(values, "win", np.random.default_rng(3))
    bad = changed_tier(src, tmp_path / "bad", "2-3-1-0", {slot: 0})
    result = run("verify", "--db", str(bad), "--json")
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[-1]["failed"] == ["2-3-1-0"]
    (row,) = [x for x in lines[:-1] if x["subspace"] == "2-3-1-0"]
    assert row["method"] == TIER_WALK and any(f"slot {slot} " in e and "stored draw" in e for e in row["examples"])


@pytest.mark.parametrize("key", ["six-4-lasker", "six-4", "six-4-per-mill", pytest.param("six-5-per-mill", marks=pytest.mark.slow)])
def test_random_placing_changes_agree_with_the_direct_check(whole_db, tmp_path, key):
    """Changes anywhere in the tiers with men in hand of the six board with 4 men, with Lasker's
    rule (moves from the tiers with men in hand: ``moves.fold_moves``) and without
    (placements alone: ``_fold_placements``; with optional removals and one per mill; and with 5
    men, where a placement closes two mills at once), DUP markers included: the walk and the sweep
    count what the direct check counts, tier by tier (and nothing in the tiers left unchanged)."""
    src = whole_db(key)
    names = placing_names(src)
    rng = random.Random(5)
    with Database(src) as db:
        data = {n: db.values(*map(int, n.split("-"))) for n in names}
    big = [n for n in names if data[n].size > 1000]
    for trial in range(2):
        bad = copy_whole(src, tmp_path / f"bad{trial}")
        for name in rng.sample(big, 3):
            v = data[name]
            slot = rng.randrange(v.size)
            with h5py.File(subspace_file(bad, name), "r+") as f:
                f["subspaces"][name][slot] = rng.choice([0, 1, 2, 3, (int(v[slot]) + 2) % DUP, DUP])
        want = tier_counts(bad, TIER_DIRECT)
        assert sum(want.values()) >= 1
        assert tier_ways(bad) == want


def test_verify_imports_no_engine_kernel():
    """``solver.verify`` checks the solver's kernels: it imports none of them (the index, the
    rules' move generation, the tiers and the storage are shared)."""
    import ast

    root = Path(__file__).parents[1] / "solver"
    for file in (root / "verify").glob("*.py"):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom):
                parts = ["solver", "verify"][: 2 - node.level + 1] if node.level else []
                name = ".".join(x for x in [*parts, node.module] if x)
                names = [f"{name}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for n in names:
                assert not n.startswith(("solver.engine.kernels", "solver.engine.placing")), f"{file.name} imports {n}"


@pytest.mark.slow  # (the same checks run compiled in the default run)
def test_the_tier_kernels_run_as_plain_python(whole_db, tmp_path):
    """The tier walk's, the sweep's and the direct check's kernels with ``NUMBA_DISABLE_JIT=1``
    (so that coverage sees inside them), on three small tiers of Lasker's six board with one value
    changed: the counts and examples compiled."""
    src = whole_db("six-4-lasker")
    names = ["1-3-3-1", "2-2-2-2", "3-1-1-3"]
    with Database(src) as db:
        values = db.values(2, 2, 2, 2)
    slot = _slot_of_kind(values, "draw", np.random.default_rng(1))
    bad = changed_tier(src, tmp_path / "bad", "2-2-2-2", {slot: 3})
    compiled = {m: [c.to_dict() for c in verify(bad, progress=False, subspaces=names, method=m)] for m in TIER_WAYS}
    assert all(sum(c["mismatches"] for c in cs) >= 1 for cs in compiled.values())
    code = (
        "import json, sys; from solver.verify.check import verify; "
        "print(json.dumps({m: [c.to_dict() for c in verify(sys.argv[1], progress=False, subspaces=sys.argv[2].split(','), method=m)] "
        "for m in sys.argv[3:]}))"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code, str(bad), ",".join(names), *TIER_WAYS],
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"), capture_output=True, text=True, cwd=Path(__file__).parents[1],
    )
    assert out.returncode == 0, out.stderr[-2000:]
    plain = json.loads(out.stdout.splitlines()[-1])
    keys = ("subspace", "method", "mismatches", "examples")
    for m, cs in compiled.items():
        assert [{k: c[k] for k in keys} for c in plain[m]] == [{k: c[k] for k in keys} for c in cs]


@pytest.mark.parametrize(
    "name,options",
    [("standard", []), ("lasker", []), ("six", ["double-mill=per-mill", "lasker=on"]), ("twelve", ["double-mill=per-mill"]),
     ("six", ["blocked=passes", "lasker=on"]), ("three", ["lasker=on"])],
)
def test_what_the_tier_sweep_relies_on_in_generate_moves(name, options):
    """With men in hand: a placement goes from the hand to an empty point; a man moves only where
    the side has no men in hand or Lasker's rule holds, to an adjacent empty point unless the side
    flies (3 men on the board and in hand, where the rules let it fly); men are removed only after
    a mill through the arrival point, no more than the mills through it; a side with a man in hand
    and an empty point has a move; the pass comes only under ``blocked=passes``."""
    rules = make_rules(name, options)
    g = game_tables(rules)
    n = g.n
    mills_through = int(np.count_nonzero(g.point_mills, axis=1).max())
    rng = random.Random(4)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    for _ in range(3000):
        ha, hb = rng.randint(0, rules.men), rng.randint(0, rules.men)
        a, b = rng.randint(0, rules.men - ha), rng.randint(0, rules.men - hb)
        if a + b > n or a + ha < 3 or b + hb < 3:
            continue
        points = rng.sample(range(n), a + b)
        m = sum(1 << p for p in points[:a])
        o = sum(1 << p for p in points[a:])
        empty = ((1 << n) - 1) & ~(m | o)
        k = mg.generate_moves(m, o, ha, hb, g, buf)
        if ha > 0 and empty:
            assert k >= 1
        flies = bool(g.opts[mg.OPT_FLY]) and a + ha == 3
        for frm, to, *removed in buf[:k].tolist():
            if to < 0:
                assert frm < 0 and removed == [-1, -1, -1] and g.opts[mg.OPT_PASS]  # the pass
                continue
            assert empty >> to & 1
            if frm < 0:
                assert ha > 0
                after = m | (1 << to)
            else:
                assert (ha == 0 or g.opts[mg.OPT_LASKER]) and m >> frm & 1
                assert flies or g.adj[frm] >> to & 1
                after = (m & ~(1 << frm)) | (1 << to)
            taken = [r for r in removed if r >= 0]
            assert len(taken) <= mills_through and all(o >> r & 1 for r in taken)
            if taken:
                assert mg.mills_formed(after, to, g.point_mills) > 0


@pytest.mark.parametrize("key", ["six-4", "six-4-per-mill", pytest.param("six-4-lasker", marks=pytest.mark.slow)])
def test_the_walk_ranks_removals_by_its_tables_as_without(whole_db, key):
    """The tier walk's removals ranked through the run's ``point_table`` (forced in every run:
    ``tabled_from`` 0; the six board's runs are shorter than ``TABLED_FROM``) and through
    ``slot_with``, its positions judged by the rules' own tests (``_expected_fast``) and by
    ``generate_moves``' list (``fast_ok`` False): the same mismatches, slot for slot, on every tier
    with men in hand with random values changed, and what the direct check finds in the slots of
    positions. (``tests/test_verify_fast.py`` compares the two judges position by position.)"""
    from solver.index.compact import rank_tables
    from solver.tiers import successor_kinds, successors
    from solver.verify import placing_kernels as pk
    from solver.verify.check import _TierCheck

    rng = np.random.default_rng(7)
    with Database(whole_db(key)) as db:
        tiers = [s.tier for s in db.tiers() if s.placing]
        tc = _TierCheck(db, None, tiers, budget=None)
        ix, g = tc.ix, tc.g
        found = 0
        for t in tiers:
            a, b, ha, hb = t
            reached = set(successors(tc.rules, t))
            succ = tuple(tc.held(x) if x in reached else NO_VALUES for x in successor_kinds(t))
            v = tc.held(t).copy()
            for slot in rng.choice(v.size, size=min(v.size, 8), replace=False):
                v[slot] = rng.choice([0, 1, 2, 3, DUP])
            items = pk.work_items(ix.n, a, b, int(tc.index.rep_count[b]), ix.binom)
            got = []
            for tabled_from, fast_ok in ((0, True), (1 << 40, True), (1 << 40, False)):
                bad = np.full(64, -1, dtype=np.int64)
                wrong, lost = pk.verify_tier_walk(a, b, ha, hb, 0, items, 4, v, succ, g, ix, rank_tables(), tabled_from, fast_ok, bad, 64)
                got.append((int(wrong), int(lost), sorted(bad.tolist())))
            assert got[0] == got[1] == got[2], t
            direct_wrong, direct_lost = pk.verify_tier_direct(a, b, ha, hb, v, succ, g, ix, np.full(64, -1, dtype=np.int64), 64)
            # the direct check also counts the slots of no position (DUP before) changed; the walk
            # leaves those to ``check_duplicates``
            off_slots = int(np.count_nonzero((tc.held(t) == DUP) & (v != DUP)))
            assert got[0][1] == direct_lost == 0
            assert direct_wrong == got[0][0] + off_slots
            found += got[0][0]
    assert found > 0


def test_a_tight_memory_budget_gives_the_same_verdicts(whole_db, tmp_path):
    """With no room for held values (every tier read back from the database when a check needs
    it), a whole game passes as without a budget, and a changed value is caught the same."""
    src = whole_db("six-4-lasker")
    free = verify(src, progress=False)
    tight = verify(src, progress=False, max_memory=1)
    assert [(c.name, c.ok, c.mismatches, c.method) for c in tight] == [(c.name, c.ok, c.mismatches, c.method) for c in free]
    assert all(c.ok for c in tight)
    with Database(src) as db:
        tier = max(placing_names(src), key=lambda n: db.info(*map(int, n.split("-"))).positions)
        values = db.values(*map(int, tier.split("-")))
    slot = _slot_of_kind(values, "win", np.random.default_rng(11))
    bad = changed_tier(src, tmp_path / "bad", tier, {slot: 0})
    failed = [(c.name, c.mismatches) for c in verify(bad, progress=False, max_memory=1) if not c.ok]
    assert tier in dict(failed) and dict(failed)[tier] >= 1  # (under Lasker's rule its twin reads it too)
    assert failed == [(c.name, c.mismatches) for c in verify(bad, progress=False) if not c.ok]


def test_verify_max_memory_option(std_db):
    """``--max-memory`` takes a size; a bad one is one line that names it."""
    assert run("verify", "--db", str(std_db), "--max-memory", "1MiB", "-q").exit_code == 0
    res = run("verify", "--db", str(std_db), "--max-memory", "lots")
    assert res.exit_code != 0 and "--max-memory 'lots'" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("budget", [1, None])
def test_the_dry_run_plans_the_reads_the_verify_makes(whole_db, monkeypatch, budget):
    """``memory_plan`` (``--dry-run``) foretells, byte for byte, what the verify then reads from
    the database, tight (every tier read back) or unbounded (each once)."""
    from solver.verify.check import memory_plan

    src = whole_db("six-4-lasker")
    plan = memory_plan(src, max_memory=budget)
    read = []
    original = Database.values

    def counting(self, *t):
        v = original(self, *t)
        read.append(v.nbytes)
        return v

    monkeypatch.setattr(Database, "values", counting)
    assert all(c.ok for c in verify(src, progress=False, max_memory=budget))
    assert sum(read) == sum(p["read_bytes"] for p in plan["phases"])
    assert [p["phase"] for p in plan["phases"]] == ["moving phase", "tiers with men in hand"]
    once = sum(p["once_bytes"] for p in plan["phases"])
    assert (sum(read) > once) if budget == 1 else (sum(read) == once)


def test_the_plan_before_the_solve_is_the_plan_of_the_database(whole_db):
    """``tools/verify_plan.py`` plans from the rule set's tiers, before any solve: the same
    plan as ``--dry-run`` then makes from the solved database."""
    from solver.storage.database import catalogue_key
    from solver.tiers import whole_game_tiers
    from solver.verify.check import memory_plan, plan_checks

    name, options = WHOLE["six-4-lasker"]
    tiers = sorted(whole_game_tiers(make_rules(name, options)), key=catalogue_key)
    for budget in (1, 1 << 20, None):
        after = memory_plan(whole_db("six-4-lasker"), max_memory=budget)
        assert plan_checks(make_rules(name, options), tiers, budget) == {k: after[k] for k in ("budget_bytes", "phases")}


def test_verify_dry_run_command(std_db):
    res = run("verify", "--db", str(std_db), "--dry-run", "--max-memory", "1GiB")
    assert res.exit_code == 0, res.output
    assert "within 1.0 GiB" in res.output and "moving phase: 4 checks" in res.output
    (plan,) = [json.loads(x) for x in run("verify", "--db", str(std_db), "--dry-run", "--json").stdout.splitlines()]
    assert plan["subspaces"] == 4 and plan["phases"][0]["once_bytes"] > 0
