"""What lets a lookup from the shell answer without loading numba: the move generator's source run
as plain Python (``solver.rules.plain_movegen``), ranks by numpy from the orbit minima cached on
disk (``solver.index.plain``, ``solver.index.cache``). Each is compared with the compiled kernels
it stands in for, and a ``morris query`` process is checked not to import numba at all (how fast
that is, is measured by ``benchmarks/bench_query.py``, not here).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import open_database
from solver.query import movegen as query_movegen
from solver.index import cache
from solver.index.plain import PlainIndex, plain_index
from solver.index.tables import BoardIndex
from solver.rules import BOARDS, make_rules
from solver.rules import movegen as compiled
from solver.rules.plain_movegen import movegen as plain_movegen
from solver.rules.tables import game_tables

RULE_SETS = [
    ("standard", []), ("no-flying", []), ("viking", []), ("twelve", []), ("lasker", []), ("six", []), ("three", []),
    ("twelve", ["double-mill=per-mill"]), ("twelve", ["double-mill=per-mill", "removal-from-mills=forfeit"]),
    ("standard", ["double-mill=per-mill", "removal=optional"]), ("standard", ["removal=optional"]),
    ("six", ["blocked=passes"]), ("twelve", ["full-board=blocked"]), ("standard", ["mill-wins=on"]),
]


@pytest.mark.parametrize("name, options", RULE_SETS)
def test_plain_move_generator_is_the_compiled_one(name, options):
    """Game status and every move row, in order, on random positions (dense ones, so that mills,
    double and triple mills and full boards come up), with and without men in hand."""
    rules = make_rules(name, options)
    g, n, men = game_tables(rules), rules.board_data.n, rules.men
    plain = plain_movegen()
    assert plain is not compiled and "numba" not in plain.__dict__
    buf_c, buf_p = np.empty((compiled.MAX_MOVES, 5), np.int64), np.empty((plain.MAX_MOVES, 5), np.int64)
    rng = random.Random(f"plain-{name}-{options}")
    removals = doubles = lost_with_men = 0
    for _ in range(400):
        a, b = rng.randint(0, min(men, n // 2)), rng.randint(0, min(men, n // 2))
        pts = rng.sample(range(n), a + b)
        me, opp = sum(1 << p for p in pts[:a]), sum(1 << p for p in pts[a:])
        hand_me = rng.choice([0, 0, rng.randint(0, men - a)])
        hand_opp = rng.randint(0, men - b) if hand_me else 0
        args = (me, opp, hand_me, hand_opp, g)
        status = compiled.game_status(*args, buf_c)
        assert plain.game_status(*args, buf_p) == status
        lost_with_men += status == compiled.LOST and a + hand_me >= 3
        k = compiled.generate_moves(*args, buf_c)
        assert plain.generate_moves(*args, buf_p) == k
        assert np.array_equal(buf_p[:k], buf_c[:k])
        removals += int((buf_c[:k, 2] >= 0).sum())
        doubles += int((buf_c[:k, 3] >= 0).sum())
    if rules.mill_wins == "on":
        assert lost_with_men > 0  # the sample reached a side facing a mill (or blocked)
    else:
        assert removals > 0  # the sample reached moves with removals
    assert (doubles > 0) == (rules.double_mill == "per-mill")  # and two at once where the rules say so


@pytest.mark.parametrize("board_name", ["standard", "diagonal", "six", "three"])
def test_plain_ranks_are_the_index_ranks(board_name, tmp_path, monkeypatch):
    """Every subspace: positions unranked from random slots (orbit minima as movers, symmetric
    ones included) and random images of them, ranked by numpy from the cache and by the kernels."""
    monkeypatch.setenv("MORRIS_CACHE_DIR", str(tmp_path))
    board = BOARDS[board_name]
    index = BoardIndex(board)  # builds the tables and writes the cache
    plain = plain_index(board)
    assert isinstance(plain, PlainIndex) and isinstance(plain.reps, np.memmap)
    rng = np.random.default_rng(7)
    perms = np.array(board.symmetries)
    for a in range(1, board.n // 2 + 1):
        for b in range(0, min(board.n - a, board.n // 2) + 1):
            slots = rng.integers(0, index.slots(a, b), size=200)
            movers, opps, _ = index.unrank_many(a, b, slots)
            g = rng.integers(0, len(perms), size=len(slots))
            moved = [sum(1 << int(perms[gi][p]) for p in range(board.n) if m >> p & 1) for gi, m in zip(g, movers)]
            moved_o = [sum(1 << int(perms[gi][p]) for p in range(board.n) if o >> p & 1) for gi, o in zip(g, opps)]
            movers = np.concatenate([movers, moved])
            opps = np.concatenate([opps, moved_o])
            assert np.array_equal(plain.rank_many(movers, opps), index.rank_many(movers, opps)), (a, b)


def test_cache_folders_follow_the_board_and_survive_damage(tmp_path, monkeypatch):
    monkeypatch.setenv("MORRIS_CACHE_DIR", str(tmp_path))
    six, three = BOARDS["six"], BOARDS["three"]
    assert cache.folder(six) != cache.folder(three) and cache.folder(six).parent == tmp_path / "index"
    assert plain_index(six) is None  # nothing cached yet
    BoardIndex(six)
    reps, offsets = cache.load(six)
    assert int(offsets[-1]) == len(reps) and plain_index(six) is not None
    stale = tmp_path / "index" / "six-0000000000000000"  # as if written by other code: removed
    cache.folder(six).rename(stale)
    BoardIndex(six)
    assert not stale.exists() and cache.load(six) is not None
    (cache.folder(six) / "reps.npy").write_bytes(b"not an array")
    assert cache.load(six) is None and plain_index(six) is None  # damaged: not read
    # A lookup with no usable cache builds the index (and answers the same).
    monkeypatch.setenv("MORRIS_CACHE_DIR", "/proc/no-cache-here")
    BoardIndex(six)  # cannot write: silently nothing
    assert cache.load(six) is None


def flip_a_byte_of_reps(where: Path) -> None:
    """The low bit of a minimum of 4 men (the .npy file ends with the array's 8-byte numbers)."""
    reps, offsets = np.load(where / "reps.npy"), np.load(where / "rep_offset.npy")
    data = bytearray((where / "reps.npy").read_bytes())
    data[len(data) - 8 * (len(reps) - int(offsets[4]) - 10)] ^= 1
    (where / "reps.npy").write_bytes(bytes(data))


def shift_a_block_of_reps(where: Path) -> None:
    """Another array of the same shape that keeps every invariant but the sha256: the minima of 4
    men moved up one place behind a made-up first one, so that most 4-men ranks are off by one."""
    reps, offsets = np.load(where / "reps.npy"), np.load(where / "rep_offset.npy")
    lo, hi = int(offsets[4]), int(offsets[5])
    reps[lo + 1 : hi], reps[lo] = reps[lo : hi - 1].copy(), reps[lo] - 1
    np.save(where / "reps.npy", reps)


def flip_a_byte_of_rep_offset(where: Path) -> None:
    data = bytearray((where / "rep_offset.npy").read_bytes())
    data[-8 * 12] ^= 1  # the low bit of rep_offset[6] (of 18)
    (where / "rep_offset.npy").write_bytes(bytes(data))


@pytest.mark.parametrize(
    "tamper",
    [flip_a_byte_of_reps, shift_a_block_of_reps, flip_a_byte_of_rep_offset, lambda where: (where / cache.MANIFEST).unlink()],
    ids=["reps-byte", "reps-shifted", "rep-offset-byte", "no-manifest"],
)
def test_a_tampered_cache_is_not_used(six_db, tmp_path, monkeypatch, tamper):
    """A cache whose arrays no longer match what was written is removed, not read: the lookups
    rank with the index instead and answer as with the cache intact; the next build writes it
    again."""
    monkeypatch.setenv("MORRIS_CACHE_DIR", str(tmp_path))
    six = BOARDS["six"]
    BoardIndex(six)
    positions = six_positions("tampered-cache", 60)
    with open_database(six_db) as db:
        want = [db.analyse(p) for p in positions]
        assert isinstance(db._ranks, PlainIndex)  # (answered from the cache)
    where = cache.folder(six)
    tamper(where)
    assert cache.load(six) is None and not where.exists()
    with open_database(six_db) as db:
        assert [db.analyse(p) for p in positions] == want
        assert not isinstance(db._ranks, PlainIndex)
    BoardIndex(six)
    assert plain_index(six) is not None


@pytest.fixture(scope="module")
def six_db(solved_db) -> Path:
    """Six Men's Morris up to 4 men (shared by the session)."""
    return solved_db("six", 4)


def six_positions(seed: str, count: int) -> list[str]:
    """Random positions of the six board with 3 or 4 men a side, as board strings."""
    rng = random.Random(seed)
    n = 16
    positions = []
    for _ in range(count):
        a, b = rng.randint(3, 4), rng.randint(3, 4)
        pts = rng.sample(range(n), a + b)
        side = rng.choice("wb")
        me, opp = sum(1 << p for p in pts[:a]), sum(1 << p for p in pts[a:])
        white, black = (me, opp) if side == "w" else (opp, me)
        positions.append(f"{''.join('W' if white >> i & 1 else 'B' if black >> i & 1 else '.' for i in range(n))} {side}")
    return positions


def test_plain_and_compiled_lookups_agree(six_db, monkeypatch):
    """The same analyses from the plain path (few positions) and the compiled one (many)."""
    positions = six_positions("startup-agree", 300)
    with open_database(six_db) as db:
        plain = [db.analyse(p) for p in positions[:40]]  # one at a time: the plain path
        assert db._movegen.looked_up <= query_movegen.PLAIN_POSITIONS
    monkeypatch.setattr(query_movegen, "PLAIN_POSITIONS", 0)
    with open_database(six_db) as db:
        compiled_ = db.analyse_many(positions)
    assert plain == compiled_[:40]
    assert {a.probe.value for a in compiled_} == {"win", "draw", "loss"}


def test_a_query_process_loads_no_numba(six_db, tmp_path):
    """With the board's minima cached, ``morris query`` answers without importing numba, and
    prints what the in-process command prints."""
    env_cache = tmp_path / "cache"
    code = (
        "from solver.index.tables import BoardIndex\n"
        "from solver.rules import BOARDS\n"
        "BoardIndex(BOARDS['six'])\n"
    )
    env = {**os.environ, "MORRIS_CACHE_DIR": str(env_cache)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    probe = (
        "import sys\n"
        "from solver.cli import main\n"
        "try:\n"
        f"    main(['query', '--db', {str(six_db)!r}, 'W:a1,a3,a5,c1 B:b2,b4,d2,e5 w'])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print('numba loaded:', 'numba' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    *answer, last = proc.stdout.splitlines()
    assert last == "numba loaded: False"
    from click.testing import CliRunner

    from solver.cli import main

    res = CliRunner().invoke(main, ["query", "--db", str(six_db), "W:a1,a3,a5,c1 B:b2,b4,d2,e5 w"])
    assert res.exit_code == 0 and res.stdout.splitlines() == answer
