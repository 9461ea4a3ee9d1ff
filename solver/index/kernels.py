"""Numba kernels of the index ``orbit-rep-colex/1``: canonical form, rank and unrank.

- The canonical form of a position (M, O) is the image g(M), g(O) that is smallest under the
  board's symmetries g, comparing g(M) first and then g(O), each as an integer bitmask.
- ``ix.reps`` lists, per number of men a and in increasing order, the a-men sets that are smallest
  in their orbit; ``ix.rep_offset[a]`` is where those of a men start.
- slot = rep_index(Mc) * C(n - a, b) + colex rank of Oc among the n - a points outside Mc.
A slot whose mover set has a non-trivial stabiliser may hold a non-canonical (Mc, O); such slots
are duplicates and are marked as such in the databases. Slots per position: 1.24 in standard 3-3,
1.04 in 6-6.

Every kernel takes the board's tables as one ``IndexTables`` (``ix``, see ``tables``).
``ix.mask_info[m]`` packs, for every mask m, ``rep << SYM_BITS | symmetric << 4 | g0``: g0 takes m
to its orbit minimum, ``symmetric`` says the minimum has a non-trivial stabiliser, and rep is the
minimum's rank among the orbit minima of its popcount.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..rules.bits import ctz, popcount
from ..jit import helper

SYM_BITS = 5  # mask_info = rep << 5 | symmetric << 4 | g0
G0_MASK = 15  # g0: 4 bits, so at most 16 symmetries (checked where a board is built)
SYMMETRIC = 16


@helper
def image(sym_img, g, mask):
    """The image of ``mask`` under symmetry g, by one table lookup per byte (24 points at most)."""
    return sym_img[g, 0, mask & 255] | sym_img[g, 1, (mask >> 8) & 255] | sym_img[g, 2, (mask >> 16) & 255]


@nb.njit(cache=True)
def build_mask_info(n, nsym, sym_img, rep_count, mask_info):
    """Fill ``mask_info`` for every mask of n points and count the orbit minima per popcount."""
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
            mask_info[m] = (rep_count[a] << SYM_BITS) | (stab * SYMMETRIC)
            rep_count[a] += 1
    for m in range(size):
        mc = minimum[m]
        if mc != m:
            mask_info[m] = (mask_info[mc] & ~G0_MASK) | mask_info[m]


@nb.njit(cache=True)
def fill_reps(n, mask_info, rep_offset, reps):
    # g0 is the identity exactly for the orbit minima (a smaller image would have been chosen).
    for m in range(1 << n):
        info = mask_info[m]
        if info & G0_MASK == 0:
            reps[rep_offset[popcount(m)] + (info >> SYM_BITS)] = m


@nb.njit(cache=True)
def fill_stabilisers(nsym, sym_img, reps, stabiliser):
    """stabiliser[i]: the symmetries fixing the orbit minimum reps[i], one bit each (bit 0, the
    identity, always set)."""
    for i in range(reps.shape[0]):
        m = reps[i]
        bits = 0
        for g in range(nsym):
            if image(sym_img, g, m) == m:
                bits |= 1 << g
        stabiliser[i] = bits


@helper
def colex_unrank(r, free, k, binom):
    """The r-th set of k among ``free`` points (as indices 0 ... free - 1) in colex order: its
    i-th element is the largest j with C(j, i) <= what is left of r."""
    chosen = 0
    j = free - 1
    for i in range(k, 0, -1):
        while binom[j, i] > r:
            j -= 1
        r -= binom[j, i]
        chosen |= 1 << j
        j -= 1
    return chosen


@nb.njit(cache=True)
def fill_subsets(subset_offset, subsets):
    """subsets[subset_offset[f, k] + r]: the r-th set of k among f points in colex order, which is
    increasing order as integers (the next one by Gosper's hack), for every tabled (f, k)."""
    for f in range(subset_offset.shape[0]):
        for k in range(subset_offset.shape[1]):
            off = subset_offset[f, k]
            if off < 0:
                continue
            x = (1 << k) - 1
            i = 0
            while x < (1 << f):
                subsets[off + i] = x
                i += 1
                if x == 0:
                    break  # the one empty set
                low = x & -x
                ripple = x + low
                x = (((ripple ^ x) >> 2) // low) | ripple


@helper
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


@helper
def canonical_pair(mover, opp, ix):
    """(Mc, Oc, rep index): the canonical form of the position."""
    info = ix.mask_info[mover]
    mc, oc = canonical_with(mover, opp, info, ix)
    return mc, oc, info >> SYM_BITS


@helper
def canonical_with(mover, opp, info, ix):
    """(Mc, Oc) given the mover's ``mask_info`` entry, read by the caller (who may have asked
    for it early: the table is large)."""
    sym_img = ix.sym_img
    g0 = info & G0_MASK
    mc = image(sym_img, g0, mover)
    oc = image(sym_img, g0, opp)
    if info & SYMMETRIC == 0:
        return mc, oc
    # The symmetries taking mover to mc are g0 followed by one fixing mc (its stabiliser, tabled
    # per orbit minimum): try those on g0's image of opp, not all 16 on both sets.
    rest = np.int64(ix.stabiliser[ix.rep_offset[popcount(mover)] + (info >> SYM_BITS)]) & ~1
    x = oc
    while rest:
        g = ctz(rest)
        rest &= rest - 1
        y = image(sym_img, g, x)
        if y < oc:
            oc = y
    return mc, oc


@helper
def rank_position(mover, opp, ix):
    """The slot of (mover, opp) in its subspace (popcount(mover), popcount(opp))."""
    mc, oc, rep = canonical_pair(mover, opp, ix)
    return rep * ix.binom[ix.n - popcount(mover), popcount(opp)] + colex_rank(oc, mc, ix.binom)


@helper
def unrank_position(a, b, slot, ix):
    """(mover, opp) held by ``slot`` of subspace (a, b)."""
    n, binom = ix.n, ix.binom
    per = binom[n - a, b]
    rep = slot // per
    r = slot - rep * per
    mc = ix.reps[ix.rep_offset[a] + rep]
    # the r-th set of b among the n - a free points, in colex order: tabled for the movers of
    # the moving phase (a lookup, where the search below mispredicts a branch per man)
    off = ix.subset_offset[n - a, b]
    if off >= 0:
        chosen = np.int64(ix.subsets[off + r])
    else:
        chosen = colex_unrank(r, n - a, b, binom)
    # spread the chosen free-point indices onto the points outside mc, a byte at a time
    free = ((1 << n) - 1) & ~mc
    opp = 0
    for byte in range(3):
        f = (free >> (8 * byte)) & 255
        k = popcount(f)
        opp |= np.int64(ix.deposit[f, chosen & ((1 << k) - 1)]) << (8 * byte)
        chosen >>= k
    return mc, opp


@helper
def lowest_points(free, k):
    """The k lowest points of the set ``free``."""
    out = 0
    for _ in range(k):
        low = free & -free
        out |= low
        free ^= low
    return out


@helper
def next_position(a, b, m, o, r, rep, ix):
    """The position of the slot after the one holding (m, o), where r is that slot's colex rank
    and rep its mover's rep index: (m, o, r, rep) of the next slot, without unranking it. The
    next set of b free points in colex order is the next larger integer with b bits inside the
    free points: add the lowest bit, carrying through the points that are not free, and put the
    bits the carry cleared back at the lowest free points."""
    n = ix.n
    full = (1 << n) - 1
    r += 1
    if r == ix.binom[n - a, b]:
        rep += 1
        m = ix.reps[ix.rep_offset[a] + rep]
        return m, lowest_points(full & ~m, b), 0, rep
    free = full & ~m
    nxt = ((o | ~free) + (o & -o)) & free
    return m, nxt | lowest_points(free, b - popcount(nxt)), r, rep


@helper
def is_canonical_pair(mover, opp, ix):
    """True when (mover, opp) is the canonical form of its orbit."""
    mc, oc, rep = canonical_pair(mover, opp, ix)
    return mc == mover and oc == opp


@nb.njit(cache=True, parallel=True)
def rank_many(movers, opps, ix):
    """Slots of many positions at once (the mover's and opponent's men as arrays)."""
    out = np.empty(movers.shape[0], dtype=np.int64)
    for i in nb.prange(movers.shape[0]):
        out[i] = rank_position(movers[i], opps[i], ix)
    return out


@nb.njit(cache=True, parallel=True)
def unrank_many(a, b, slots, ix):
    """(movers, opponents, canonical) of many slots at once."""
    k = slots.shape[0]
    movers = np.empty(k, dtype=np.int64)
    opps = np.empty(k, dtype=np.int64)
    canonical = np.empty(k, dtype=np.bool_)
    for i in nb.prange(k):
        m, o = unrank_position(a, b, slots[i], ix)
        movers[i] = m
        opps[i] = o
        canonical[i] = is_canonical_pair(m, o, ix)
    return movers, opps, canonical
