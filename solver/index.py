"""Symmetry-reduced index of a subspace: (mover's men, opponent's men) <-> slot.

Scheme ``orbit-rep-colex/1`` (the README's "Database layout" describes it for readers of the
files):
- The canonical form of a position (M, O) is the image g(M), g(O) that is smallest under the board's
  symmetries g, comparing g(M) first and then g(O), each as an integer bitmask.
- ``reps[a]`` lists, in increasing order, the a-men sets that are smallest in their orbit.
- slot = rep_index(Mc) * C(n - a, b) + colex rank of Oc among the n - a points outside Mc.
A slot whose mover set has a non-trivial stabiliser may hold a non-canonical (Mc, O); such slots
are duplicates and are marked as such in the databases. Slots per position: 1.24 in standard 3-3,
1.04 in 6-6.
"""

from __future__ import annotations

from functools import lru_cache

import numba as nb
import numpy as np

from .bits import ctz, popcount  # noqa: F401  (re-exported for the kernels)
from .boards import BOARDS, Board

SYM_BITS = 5  # mask_info = rep << 5 | symmetric << 4 | g0


@nb.njit(cache=True)
def image(sym_img, g, mask):
    return sym_img[g, 0, mask & 255] | sym_img[g, 1, (mask >> 8) & 255] | sym_img[g, 2, (mask >> 16) & 255]


@nb.njit(cache=True)
def _build_mask_info(n, nsym, sym_img, rep_count, mask_info):
    """For every mask: the symmetry g0 giving its smallest image, whether that image has a
    non-trivial stabiliser, and the image's rank among the orbit minima of its popcount."""
    size = 1 << n
    minimum = np.empty(size, dtype=np.int64)
    for m in range(size):
        best = m
        bg = 0
        for g in range(1, nsym):
            x = image(sym_img, g, m)
            if x < best:
                best = x
                bg = g
        minimum[m] = best
        mask_info[m] = bg
    # Ranks of the minima, counted per popcount in increasing mask order.
    for m in range(size):
        if minimum[m] == m:
            a = popcount(m)
            stab = 0
            for g in range(1, nsym):
                if image(sym_img, g, m) == m:
                    stab = 1
            mask_info[m] = (rep_count[a] << SYM_BITS) | (stab << 4)
            rep_count[a] += 1
    for m in range(size):
        mc = minimum[m]
        if mc != m:
            mask_info[m] = (mask_info[mc] & ~15) | mask_info[m]


class BoardIndex:
    """Index tables of one board, shared by every subspace on it (built once, ~1 s for 24 points)."""

    def __init__(self, board: Board):
        self.board = board
        n = board.n
        self.n = n
        perms = board.symmetry_array.astype(np.int64)
        self.nsym = len(perms)
        sym_img = np.zeros((self.nsym, 3, 256), dtype=np.int64)
        for g, perm in enumerate(perms):
            for byte in range(3):
                for v in range(256):
                    out = 0
                    for bit in range(8):
                        p = byte * 8 + bit
                        if v >> bit & 1 and p < n:
                            out |= 1 << int(perm[p])
                    sym_img[g, byte, v] = out
        self.sym_img = sym_img
        self.mask_info = np.zeros(1 << n, dtype=np.int32)
        self.rep_count = np.zeros(n + 1, dtype=np.int64)
        _build_mask_info(n, self.nsym, sym_img, self.rep_count, self.mask_info)
        self.rep_offset = np.zeros(n + 2, dtype=np.int64)
        self.rep_offset[1:] = np.cumsum(self.rep_count)
        self.reps = np.zeros(int(self.rep_offset[-1]), dtype=np.int64)
        _fill_reps(n, self.mask_info, self.rep_offset, self.reps)
        self.binom = binomials(n)

    def slots(self, a: int, b: int) -> int:
        return int(self.rep_count[a]) * int(self.binom[self.n - a, b])

    def arrays(self):
        """The tables the kernels take, in their argument order."""
        return self.n, self.nsym, self.sym_img, self.mask_info, self.reps, self.rep_offset, self.binom

    def rank(self, mover: int, opponent: int) -> int:
        return int(rank_position(mover, opponent, *self.arrays()))

    def unrank(self, a: int, b: int, slot: int) -> tuple[int, int]:
        m, o = unrank_position(a, b, slot, *self.arrays())
        return int(m), int(o)

    def is_canonical(self, a: int, b: int, slot: int) -> bool:
        m, o = unrank_position(a, b, slot, *self.arrays())
        return bool(is_canonical_pair(m, o, *self.arrays()))


@nb.njit(cache=True)
def _fill_reps(n, mask_info, rep_offset, reps):
    # g0 is the identity exactly for the orbit minima (a smaller image would have been chosen).
    for m in range(1 << n):
        info = mask_info[m]
        if info & 15 == 0:
            reps[rep_offset[popcount(m)] + (info >> SYM_BITS)] = m


def binomials(n: int) -> np.ndarray:
    c = np.zeros((n + 2, n + 2), dtype=np.int64)
    for i in range(n + 2):
        c[i, 0] = 1
        for j in range(1, i + 1):
            c[i, j] = c[i - 1, j - 1] + c[i - 1, j]
    return c


@nb.njit(cache=True)
def colex_rank(oc, mc, binom):
    """Rank of the set ``oc`` among the sets of its size on the points outside ``mc``."""
    r = 0
    k = 0
    x = oc
    while x:
        low = x & -x
        j = popcount(~mc & (low - 1))  # free points below this one
        k += 1
        r += binom[j, k]
        x ^= low
    return r


@nb.njit(cache=True)
def canonical_pair(mover, opp, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    """(Mc, Oc, rep index): the canonical form of the position."""
    info = mask_info[mover]
    g0 = info & 15
    mc = image(sym_img, g0, mover)
    if info & 16 == 0:
        oc = image(sym_img, g0, opp)
    else:
        oc = -1
        for g in range(nsym):
            if image(sym_img, g, mover) == mc:
                x = image(sym_img, g, opp)
                if oc < 0 or x < oc:
                    oc = x
    return mc, oc, info >> SYM_BITS


@nb.njit(cache=True)
def rank_position(mover, opp, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    a = popcount(mover)
    b = popcount(opp)
    mc, oc, rep = canonical_pair(mover, opp, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    return rep * binom[n - a, b] + colex_rank(oc, mc, binom)


@nb.njit(cache=True)
def unrank_position(a, b, slot, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    per = binom[n - a, b]
    rep = slot // per
    r = slot - rep * per
    mc = reps[rep_offset[a] + rep]
    # colex unrank: the k-th element is the largest j with C(j, k) <= r
    chosen = 0
    j = n - a - 1
    for k in range(b, 0, -1):
        while binom[j, k] > r:
            j -= 1
        r -= binom[j, k]
        chosen |= 1 << j
        j -= 1
    # spread the chosen free-point indices onto the points outside mc
    opp = 0
    free_i = 0
    for p in range(n):
        if not (mc >> p) & 1:
            if (chosen >> free_i) & 1:
                opp |= 1 << p
            free_i += 1
    return mc, opp


@nb.njit(cache=True)
def is_canonical_pair(mover, opp, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    """True when (mover, opp) is the canonical form of its orbit."""
    mc, oc, rep = canonical_pair(mover, opp, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    return mc == mover and oc == opp


@lru_cache(maxsize=None)
def board_index(board_name: str) -> BoardIndex:
    return BoardIndex(BOARDS[board_name])


@nb.njit(cache=True, parallel=True)
def rank_many(movers, opps, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    """Slots of many positions at once (the mover's and opponent's men as arrays)."""
    out = np.empty(movers.shape[0], dtype=np.int64)
    for i in nb.prange(movers.shape[0]):
        out[i] = rank_position(movers[i], opps[i], n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    return out


@nb.njit(cache=True, parallel=True)
def unrank_many(a, b, slots, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    """(movers, opponents, canonical) of many slots at once."""
    k = slots.shape[0]
    movers = np.empty(k, dtype=np.int64)
    opps = np.empty(k, dtype=np.int64)
    canonical = np.empty(k, dtype=np.bool_)
    for i in nb.prange(k):
        m, o = unrank_position(a, b, slots[i], n, nsym, sym_img, mask_info, reps, rep_offset, binom)
        movers[i] = m
        opps[i] = o
        canonical[i] = is_canonical_pair(m, o, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    return movers, opps, canonical
