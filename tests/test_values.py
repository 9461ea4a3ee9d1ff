"""The stored value encoding (``solver.values``): the one decoder everything uses."""

from __future__ import annotations

import numpy as np
import pytest

from solver.values import DRAW, DUP, LOSS, MAX_PLIES, WIN, decode, decode_many, describe, encode


def test_codes():
    assert decode(0) == (DRAW, None)
    assert decode(1) == (LOSS, 0)  # lost already: the side to move has no move, or two men
    assert decode(2) == (WIN, 1)
    assert decode(27) == (LOSS, 26)
    assert decode(DUP) == (None, None)
    assert describe(8) == "win in 7" and describe(0) == "draw" and "duplicate" in describe(DUP)


def test_round_trip_and_parity():
    for plies in range(0, 400):
        value = WIN if plies % 2 else LOSS
        assert decode(encode(value, plies)) == (value, plies)
        with pytest.raises(ValueError):
            encode(LOSS if plies % 2 else WIN, plies)  # a win takes an odd number of plies
    assert decode(encode(DRAW, None)) == (DRAW, None)
    assert encode(WIN if MAX_PLIES % 2 else LOSS, MAX_PLIES) < DUP
    with pytest.raises(ValueError):
        encode(WIN, MAX_PLIES + 2)


def test_decode_many_agrees_with_decode():
    values = np.array([0, 1, 2, 3, 100, 101, DUP, MAX_PLIES + 1], dtype=np.uint16)
    kind, plies = decode_many(values)
    names = {1: WIN, 0: DRAW, -1: LOSS, -2: None}
    for v, k, p in zip(values, kind, plies):
        value, want_plies = decode(int(v))
        assert names[int(k)] == value
        assert (None if p < 0 else int(p)) == want_plies


@pytest.mark.parametrize("threads", [1, 2])
def test_tally_agrees_with_decode(threads):
    """The stored statistics (``codes.tally``, a histogram per thread) against ``decode`` slot
    by slot: positions, wins, draws, losses and the longest of each, any split among threads."""
    import numba

    from solver.engine.kernels import codes

    rng = np.random.default_rng(threads)
    values = rng.integers(0, 400, 100_003).astype(np.uint16)
    values[rng.random(values.shape[0]) < 0.3] = DUP
    values[rng.random(values.shape[0]) < 0.2] = 0
    decoded = [decode(int(v)) for v in values]
    wins = [p for v, p in decoded if v == WIN]
    losses = [p for v, p in decoded if v == LOSS]
    draws = sum(v == DRAW for v, _ in decoded)
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        got = codes.tally(values)
        assert codes.tally(np.full(5, DUP, dtype=np.uint16)) == (0, 0, 0, 0, -1, -1)
    finally:
        numba.set_num_threads(before)
    assert tuple(int(x) for x in got) == (len(wins) + len(losses) + draws, len(wins), draws, len(losses), max(wins), max(losses))
