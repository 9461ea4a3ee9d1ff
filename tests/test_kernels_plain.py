"""Checks small enough to run with the kernels as plain Python (``NUMBA_DISABLE_JIT=1``), so that
coverage tools can see inside them:

    NUMBA_DISABLE_JIT=1 python -m pytest -q tests/test_kernels_plain.py

In the default run they run compiled; ``test_the_kernels_run_as_plain_python`` (under ``-m slow``)
runs this file again with the JIT disabled. Only the small boards: building the standard board's index tables in
plain Python would take hours.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver.rules import bits

PLAIN = os.environ.get("NUMBA_DISABLE_JIT") == "1"


def _plain(fn):
    return getattr(fn, "py_func", fn)  # the Python source of a compiled function


@pytest.mark.parametrize("as_python", [False, True])
def test_popcount_and_ctz(as_python):
    """Exact on masks up to 62 bits, compiled (the processor's instructions) and as the plain
    Python that replaces them without the JIT (where the int64 product of popcount does not wrap)."""
    popcount = bits.popcount_plain if as_python else bits.popcount
    ctz = bits.ctz_plain if as_python else bits.ctz
    rng = random.Random(1)
    for _ in range(2000):
        x = rng.getrandbits(rng.randint(1, 62))
        assert popcount(x) == bin(x).count("1")
        if x:
            assert ctz(x) == (x & -x).bit_length() - 1
    assert popcount((1 << 62) - 1) == 62


@pytest.mark.parametrize("board_name,a,b", [("three", 3, 3), ("six", 3, 4)])
def test_index_round_trip(board_name, a, b):
    from solver.index import board_index

    bi = board_index(board_name)
    slots = np.arange(bi.slots(a, b))
    movers, opps, canonical = bi.unrank_many(a, b, slots)
    ranked = bi.rank_many(movers, opps)
    assert np.array_equal(ranked[canonical], slots[canonical])
    assert canonical[ranked].all()


@pytest.mark.parametrize("board_name,a,b", [("three", 3, 3), ("six", 3, 4), ("six", 4, 3), ("six", 5, 5)])
def test_next_position_walks_the_slots_in_order(board_name, a, b):
    """``next_position`` (the first pass's way through a chunk) gives, slot after slot, what
    unranking each slot gives, across every change of the mover's set."""
    from solver.index import board_index
    from solver.index.kernels import next_position, unrank_position

    bi = board_index(board_name)
    ix = bi.tables
    per = int(ix.binom[ix.n - a, b])
    m, o = unrank_position(a, b, 0, ix)
    r, rep = 0, 0
    for s in range(1, bi.slots(a, b)):
        m, o, r, rep = next_position(a, b, m, o, r, rep, ix)
        assert (m, o) == tuple(unrank_position(a, b, s, ix)), s
        assert (r, rep) == (s % per, s // per)


def test_moves_agree_with_the_reference():
    from reference import MoveGen

    from solver.rules import make_rules
    from solver.rules.game import legal_moves, play
    from solver.rules.notation import Position

    rules = make_rules("six", ["double-mill=per-mill"])
    gen = MoveGen(rules)
    rng = random.Random(3)
    n = rules.board_data.n
    for _ in range(200):
        points = rng.sample(range(n), rng.randint(6, 10))
        k = rng.randint(3, len(points) - 3)
        me = sum(1 << p for p in points[:k])
        opp = sum(1 << p for p in points[k:])
        pos = Position(me, opp, "w")
        ours = {(after.opponent, after.mover) for after in (play(pos, m, rules, check=False) for m in legal_moves(pos, rules))}
        assert ours == set(gen.moves(me, opp))


@pytest.mark.parametrize("name,max_men", [("three", 3), ("six", 3)])
def test_engine_matches_reference(tmp_path, name, max_men):
    from test_engine_vs_reference import _compare_with_reference

    from solver.rules import make_rules

    _compare_with_reference(tmp_path, make_rules(name), max_men)


def test_whole_game_matches_reference(tmp_path):
    """Three Men's Morris whole: the tiers with men in hand by the placement pass (as plain
    Python here), every position against the reference."""
    from test_whole_game import compare_whole

    from solver.rules import make_rules

    compare_whole(tmp_path, make_rules("three"))


def test_verify_passes(tmp_path):
    from solver.engine.run import solve
    from solver.rules import make_rules
    from solver.verify.check import verify

    path = tmp_path / "three.h5"
    solve(make_rules("three"), 3, path, progress=False, echo=lambda s: None)
    checks = verify(path, progress=False)
    assert [c.name for c in checks] == ["3-3"] and checks[0].ok


@pytest.mark.slow  # (9 s: the checks above run compiled in the default run)
@pytest.mark.skipif(PLAIN, reason="this is the run it starts")
def test_the_kernels_run_as_plain_python():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    here = Path(__file__)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(here)],
        env=env, capture_output=True, text=True, cwd=here.parents[1],
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
