"""Colex ranks of sets given as free-point indices, a byte at a time, and the tables that take a
set of board points to those indices under a symmetry (``point_table``): where many sets are
ranked among the free points of one fixed side (a tier's removals, R - q, ranked over a run of
positions), three lookups and ``compact_rank``'s three replace an image and a rank bit by bit.
Used by the solve's placement pass and by the verify's tier walk."""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np

from ..jit import helper
from ..rules.bits import popcount


@helper
def compact_rank(y, ranks):
    """The colex rank of the set y of free-point indices (24 at most), a byte at a time:
    ``ranks[byte, v, i]`` sums C(8 * byte + t, i + k) over the k-th set bit t of v."""
    lo = y & 255
    mid = (y >> 8) & 255
    return (
        np.int64(ranks[0, lo, 0])
        + np.int64(ranks[1, mid, popcount(lo)])
        + np.int64(ranks[2, (y >> 16) & 255, popcount(lo) + popcount(mid)])
    )


@cache
def rank_tables(men: int = 13) -> np.ndarray:
    """``ranks`` of ``compact_rank`` for sets of up to ``men`` elements (a side's men and the one
    placed: 13 at most)."""
    ranks = np.zeros((3, 256, men + 1), dtype=np.int32)
    for byte in range(3):
        for v in range(1, 256):
            bits = [8 * byte + t for t in range(8) if v >> t & 1]
            for i in range(men + 1):
                ranks[byte, v, i] = sum(comb(j, i + k) for k, j in enumerate(bits, 1) if i + k <= men)
    return ranks


@helper
def point_table(table, g, free, target_free, sym_img):
    """``table[byte, v]``: the men of the byte v of the board (those on ``free``) moved by the
    symmetry g, as indices among ``target_free``'s points: three lookups then give a set's
    compact form in the successor's free points, ready for ``compact_rank``."""
    for byte in range(3):
        table[byte, 0] = 0
        for v in range(1, 256):
            lowbit = v & -v
            contrib = 0
            if (free >> (8 * byte)) & lowbit:
                y = sym_img[g, byte, lowbit]  # the image point, as a mask
                contrib = np.int64(1) << popcount(target_free & (y - 1))
            table[byte, v] = table[byte, v & (v - 1)] | contrib
