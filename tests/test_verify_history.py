"""``morris verify``'s own check of the history rule (``solver.verify.history``: its own records,
canonical forms and numbering, nothing of ``solver.history``) against the plain reference
(``tests/reference_history.py``: no symmetry, its own move generator and records, the explicit
graph), and against changed databases.

The default run checks databases built from the reference's solution alone (each state put
where the stored format says: the canonical slot, the smallest code among the images of its
records under the symmetries that take its position there; the canonical form worked out here
from the board's permutations): the check passes, so the states it lists per position are the
reference's admissible ones (a missing or extra state is a fault) and each value is the one its
moves give. Then the same database changed (its checksums recomputed to match): a value, a key
dropped, a key's records replaced by a non-least image, a dead record added: each fails the check
and ``morris verify``. The engine's own databases (compiling its kernels takes minutes) are
checked under ``-m slow``, with the solver's old check beside for the rate.
"""

from __future__ import annotations

import shutil
import time

import h5py
import numpy as np
import pytest
from click.testing import CliRunner
from reference import LOSS, WIN
from reference_history import CODE_BITS, HistoryGen, solve_history

from solver.cli import main
from solver.index import board_index
from solver.rules import make_rules
from solver.storage.database import Database
from solver.storage.files import checksum, history_checksum, subspace_file
from solver.storage.writer import write_main, write_subspace
from solver.values import DUP
from solver.verify import history_kernels as hk
from solver.verify.history import HistoryCheck

KEY_BITS = 2 * CODE_BITS


def record_images(gen: HistoryGen, perms) -> np.ndarray:
    """img[g, code]: the record ``code`` under symmetry g, from the reference's own records."""
    n = gen.n
    size = 1 + (n * n if gen.kind == "same-man" else 16 * n)
    img = np.zeros((len(perms), size), dtype=np.int64)
    for code in range(1, size):
        for g, perm in enumerate(perms):
            if gen.kind == "same-man":
                q, p = divmod(code - 1, n)
                img[g, code] = 1 + perm[q] * n + perm[p]
                continue
            p, local = divmod(code - 1, 16)
            through = gen.through[p]
            if local >> len(through):
                continue
            mills = {sum(1 << perm[x] for x in range(n) if (m >> x) & 1) for j, (_, m, _) in enumerate(through) if (local >> j) & 1}
            img[g, code] = 1 + 16 * perm[p] + sum(1 << j for j, (_, m, _) in enumerate(gen.through[perm[p]]) if m in mills)
    return img


def masks_under(masks: np.ndarray, perm) -> np.ndarray:
    out = np.zeros_like(masks)
    for q, to in enumerate(perm):
        out |= ((masks >> q) & 1) << to
    return out


def stored_layout(rules, hs, gen):
    """(plain values per slot, keys, their values) of one subspace of the reference: each state
    at its canonical slot with its least code (a state met in several orientations must get one
    value)."""
    board, index = rules.board_data, board_index(rules.board)
    perms = [list(p) for p in board.symmetries]
    img = record_images(gen, perms)
    ban, pend = hs.ban.astype(np.int64), hs.pending.astype(np.int64)
    pos = np.stack([(masks_under(hs.mover, p) << 24) | masks_under(hs.opp, p) for p in perms])
    least = pos.min(axis=0)
    codes = np.stack([(img[g, ban] << CODE_BITS) | img[g, pend] for g in range(len(perms))])
    code = np.where(pos == least, codes, np.int64(1) << 40).min(axis=0)
    value = np.where(hs.value == 0, 0, hs.plies + 1).astype(np.int64)
    assert set(np.unique(hs.value[hs.value != 0])) <= {WIN, LOSS}
    slot = index.rank_many(hs.mover, hs.opp)
    a, b = int(hs.mover[0]).bit_count(), int(hs.opp[0]).bit_count()
    plain = np.full(index.slots(a, b), DUP, dtype=np.uint16)
    at = code == 0
    plain[slot[at]] = value[at]
    keys, first = np.unique((slot[~at] << KEY_BITS) | code[~at], return_index=True)
    xvals = value[~at][first]
    back = np.searchsorted(keys, (slot[~at] << KEY_BITS) | code[~at])
    assert np.array_equal(xvals[back], value[~at]), "the reference gives symmetric states two values"
    assert np.array_equal(plain[slot[at]], value[at])
    return plain, keys, xvals.astype(np.uint16)


def stats_of(a, b, plain, xvals):
    def tally(v):
        v = v[v != DUP].astype(np.int64)
        wins, losses = v[(v % 2 == 0) & (v > 0)], v[v % 2 == 1]
        return len(v), len(wins), int((v == 0).sum()), len(losses), int(wins.max() - 1) if len(wins) else 0, int(losses.max() - 1) if len(losses) else 0

    p, s = tally(plain), tally(xvals)
    stats = {"mover": a, "opponent": b, "positions": p[0], "slots": len(plain), "win": p[1], "draw": p[2], "loss": p[3],
             "max_win": p[4], "max_loss": p[5], "max_plies": max(p[4], p[5]), "seconds": 0.0, "cpu_seconds": 0.0}
    side = {"states": p[0] + s[0], "win": p[1] + s[1], "draw": p[2] + s[2], "loss": p[3] + s[3],
            "max_win": max(p[4], s[4]), "max_loss": max(p[5], s[5])}
    return stats, side


def write_reference_database(path, rules, ref):
    gen = HistoryGen(rules)
    for (a, b), hs in ref.items():
        plain, keys, xvals = stored_layout(rules, hs, gen)
        stats, side = stats_of(a, b, plain, xvals)
        subspace_file(path, "x").parent.mkdir(parents=True, exist_ok=True)
        write_subspace(path, rules, plain, stats, dict(side, keys=keys, values=xvals))
    write_main(path, rules, None)


READINGS = ("same-man", "running-mill")
_BUILT: dict = {}


def reference_database(tmp_path_factory, reading):
    """The six board's 3-3 under ``reading`` from the reference, written once a session."""
    if reading not in _BUILT:
        rules = make_rules("six", ["men=3", f"reclose={reading}"])
        ref = solve_history(rules, subspaces=[(3, 3)])
        path = tmp_path_factory.mktemp(f"ref-{reading}") / "six3.h5"
        write_reference_database(path, rules, ref)
        _BUILT[reading] = path
    return _BUILT[reading]


def check(path, name="3-3"):
    with Database(path) as db:
        return HistoryCheck(db).check(db.info(*(int(x) for x in name.split("-"))))


def verify_exit(path) -> int:
    return CliRunner().invoke(main, ["verify", "--db", str(path), "-q"]).exit_code


# (the running-mill reading: 9 s of the reference's solve, so under -m slow)
@pytest.mark.parametrize("reading", ["same-man", pytest.param("running-mill", marks=pytest.mark.slow)])
def test_the_references_database_passes(tmp_path_factory, reading):
    """Every stored state is one the check lists for its position, none is missing, each value
    is its moves' best: the check's numbering is the reference's admissible states."""
    path = reference_database(tmp_path_factory, reading)
    v = check(path)
    with Database(path) as db:
        s = db.info(3, 3)
        assert v.states == int(s.history["states"]) > s.positions  # (states with records met)
    assert (v.checksum_ok, v.mismatches, v.error, v.examples) == (True, 0, None, [])
    assert verify_exit(path) == 0


def changed(src, tmp_path, plain=None, keys=None, values=None):
    """A copy of the database at ``src`` with subspace 3-3's plain values or side table replaced,
    its checksums (and the counts the side table lists) recomputed to match."""
    dst = tmp_path / "db" / src.name
    shutil.copytree(src.parent, dst.parent)
    with h5py.File(subspace_file(dst, "3-3"), "r+") as f:
        ds = f["subspaces/3-3"]
        if plain is not None:
            ds[...] = plain
            ds.attrs["checksum"] = checksum(plain)
        g = f["history/3-3"]
        keys = g["keys"][...] if keys is None else keys
        values = g["values"][...] if values is None else values
        for name, data in (("keys", keys), ("values", values)):
            del g[name]
            g.create_dataset(name, data=data)
        g.attrs["keys"] = len(keys)
        g.attrs["checksum"] = history_checksum(keys, values)
    return dst


def side_table(path):
    with Database(path) as db:
        g = db.history_group(3, 3)
        return g["keys"][...], g["values"][...], db.values(3, 3)


def assert_fails(path, kind):
    v = check(path)
    assert v.checksum_ok and v.faults[kind] > 0 and v.examples, v
    assert verify_exit(path) == 1
    return v


def test_a_changed_value_fails(tmp_path_factory, tmp_path):
    src = reference_database(tmp_path_factory, "same-man")
    keys, values, plain = side_table(src)
    i = int(np.flatnonzero(values != 0)[len(values) // 3])
    values = values.copy()
    values[i] += 2  # the same side wins (or loses), two plies later
    v = assert_fails(changed(src, tmp_path, values=values), hk.WRONG)
    assert v.faults[hk.WRONG] == v.mismatches and "successors give" in v.examples[0]  # (it and states that move to it)


def test_a_changed_value_fails_a_rerun_with_the_log_of_a_pass(tmp_path_factory, tmp_path):
    """``morris verify --log`` reuses no pass of a history database whose side table changed since,
    though its checksums were made to match: the logged evidence is of the values read then."""
    import json

    db = changed(reference_database(tmp_path_factory, "same-man"), tmp_path)  # (an unchanged copy)
    log = tmp_path / "verify.log"
    first = CliRunner().invoke(main, ["verify", "--db", str(db), "--log", str(log)])
    assert first.exit_code == 0 and json.loads(first.stdout.splitlines()[-1])["ok"], first.output
    with h5py.File(subspace_file(db, "3-3"), "r+") as f:
        g = f["history/3-3"]
        values = g["values"][...]
        values[int(np.flatnonzero(values != 0)[len(values) // 3])] += 2
        g["values"][...] = values
        g.attrs["checksum"] = history_checksum(g["keys"][...], values)
    again = CliRunner().invoke(main, ["verify", "--db", str(db), "--log", str(log)])
    assert again.exit_code == 1, again.output
    assert "0 passed before" in again.output
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["subspace"] == "3-3" and not last["ok"] and last["mismatches"] > 0


def test_a_dropped_key_fails(tmp_path_factory, tmp_path):
    src = reference_database(tmp_path_factory, "same-man")
    keys, values, _ = side_table(src)
    i = len(keys) // 2
    v = assert_fails(changed(src, tmp_path, keys=np.delete(keys, i), values=np.delete(values, i)), hk.MISSING)
    assert any("not stored" in e for e in v.examples)


def test_a_key_under_another_image_fails(tmp_path_factory, tmp_path):
    """A state stored under an image of its records by a symmetry other than the identity (on six
    board's 3-3 no symmetric position has records that a symmetry fixing it moves: the least
    image among several is left to the slow tests' larger games)."""
    src = reference_database(tmp_path_factory, "same-man")
    rules = make_rules("six", ["men=3", "reclose=same-man"])
    keys, values, _ = side_table(src)
    img = record_images(HistoryGen(rules), [list(p) for p in rules.board_data.symmetries])
    held = set(keys.tolist())
    for i, key in enumerate(keys.tolist()):
        slot, code = key >> KEY_BITS, key & ((1 << KEY_BITS) - 1)
        for g in range(1, len(img)):
            other = slot << KEY_BITS | int(img[g, code >> CODE_BITS]) << CODE_BITS | int(img[g, code & ((1 << CODE_BITS) - 1)])
            if other not in held:
                new = keys.copy()
                new[i] = other
                order = np.argsort(new)
                v = assert_fails(changed(src, tmp_path, keys=new[order], values=values[order]), hk.EXTRA)
                assert v.faults[hk.MISSING] == 1  # (the state it replaced)
                return
    pytest.fail("no key with another image")


def test_a_dead_record_fails(tmp_path_factory, tmp_path):
    """A ban whose point is taken: it forbids no move, so the state is the plain position's."""
    src = reference_database(tmp_path_factory, "same-man")
    rules = make_rules("six", ["men=3", "reclose=same-man"])
    keys, values, plain = side_table(src)
    index, n = board_index(rules.board), rules.board_data.n
    held = set(keys.tolist())
    for slot in range(len(plain)):
        if plain[slot] == DUP:
            continue
        m, o = index.unrank(3, 3, slot)
        q = (m & -m).bit_length() - 1
        p = (o & -o).bit_length() - 1  # the mover's man on q, banned from the opponent's point p
        key = slot << KEY_BITS | (1 + q * n + p) << CODE_BITS
        if key not in held:
            at = int(np.searchsorted(keys, key))
            v = assert_fails(changed(src, tmp_path, keys=np.insert(keys, at, key), values=np.insert(values, at, plain[slot])), hk.EXTRA)
            assert v.mismatches == 1 and "not a state the rules admit" in v.examples[0]
            return
    pytest.fail("no slot to add a dead record to")


def test_a_changed_plain_value_fails(tmp_path_factory, tmp_path):
    src = reference_database(tmp_path_factory, "same-man")
    _, _, plain = side_table(src)
    plain = plain.copy()
    i = int(np.flatnonzero((plain != DUP) & (plain != 0))[7])
    plain[i] += 2
    v = assert_fails(changed(src, tmp_path, plain=plain), hk.WRONG)
    assert v.faults[hk.WRONG] == v.mismatches


# -- the engine's databases (compiling the engine takes minutes) ---------------------------------------------------


def solve(path, rules_args):
    result = CliRunner().invoke(main, ["solve", *rules_args, "--db", str(path), "-q"])
    assert result.exit_code == 0, result.output


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, options",
    [("six", ["men=3", "reclose=same-man"]), ("six", ["men=3", "reclose=running-mill"]), ("standard", ["men=3", "reclose=same-man"]),
     ("six", ["men=4", "reclose=same-man"])],
)
def test_the_engines_database_passes_and_agrees_with_the_solvers_check(tmp_path, name, options):
    """The engine's database (moving phase) passes; the solver's own check (``history.check``)
    agrees, and each one's rate is printed (``-s``)."""
    from solver.history.check import MovingCheck

    path = tmp_path / "db.h5"
    solve(path, ["--rules", name, *(x for o in options for x in ("-o", o)), "--max-men", options[0][4:]])
    with Database(path) as db:
        for s in db.subspaces():
            t0 = time.perf_counter()
            v = HistoryCheck(db).check(s)
            t1 = time.perf_counter()
            old = MovingCheck(db).check(s)
            t2 = time.perf_counter()
            assert (v.checksum_ok, v.mismatches, v.error) == (True, 0, None) == old
            print(f"{name} {options} {s.name}: {v.states:,} states, this check {t1 - t0:.2f} s, the solver's {t2 - t1:.2f} s")
    assert verify_exit(path) == 0


@pytest.mark.slow
def test_a_key_not_the_least_image_fails(tmp_path):
    """On the standard board with 3 men (flying) some positions that a symmetry fixes have records
    it moves: such a state is stored once, under the least image. The same state under the other
    image (the keys kept in order, the checksums recomputed) fails."""
    rules = make_rules("standard", ["men=3", "reclose=same-man"])
    path = tmp_path / "solved" / "std3.h5"
    solve(path, ["--rules", "standard", "-o", "men=3", "-o", "reclose=same-man", "--max-men", "3"])
    keys, values, _ = side_table(path)
    board, index = rules.board_data, board_index(rules.board)
    img = record_images(HistoryGen(rules), [list(p) for p in board.symmetries])
    held = set(keys.tolist())
    low = (1 << CODE_BITS) - 1
    for i, key in enumerate(keys.tolist()):
        slot, code = key >> KEY_BITS, key & ((1 << KEY_BITS) - 1)
        m, o = index.unrank(3, 3, slot)
        for g, perm in enumerate(board.symmetries):
            if g and int(masks_under(np.array([m]), perm)[0]) == m and int(masks_under(np.array([o]), perm)[0]) == o:
                other = slot << KEY_BITS | int(img[g, code >> CODE_BITS]) << CODE_BITS | int(img[g, code & low])
                if other > key and other not in held:
                    new = keys.copy()
                    new[i] = other
                    order = np.argsort(new)
                    v = assert_fails(changed(path, tmp_path, keys=new[order], values=values[order]), hk.EXTRA)
                    assert v.faults[hk.EXTRA] == 1 and v.faults[hk.MISSING] == 1
                    return
    pytest.fail("no state of a symmetric position under two images")
