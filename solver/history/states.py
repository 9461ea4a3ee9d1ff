"""The states of a moving subspace under the history rule, and their numbers.

A subspace (a, b) holds every position with every admissible (ban, pending) pair
(docs/history-rule.md, 3.3): ``ban`` none or a live record of the side to move, ``pending`` none
or a live record of the opponent, on different points. Numbered so that the plain engine's
layout stays as it is:

- state ``slot`` (0 <= slot < slots) is the plain position of that slot (no record);
- state ``slots + i`` is the i-th key of the side table ``keys``: ``slot << 20 | ban << 10 |
  pending``, ascending, one per state of a canonical slot that carries a record.

Symmetries: a position with a non-trivial stabiliser (some g fixes both sides' men) has records
that g maps onto one another, the same state; only the smallest code among those images is listed
and ranked. Ranking a state takes its position to the canonical form and its records with it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import G0_MASK, SYM_BITS, SYMMETRIC, colex_rank, image, is_canonical_pair, unrank_position
from ..index.slots import canon_setup
from ..jit import helper
from ..rules.bits import ctz, popcount
from .records import image_of, list_records, point_of
from .tables import CODE_BITS

KEY_SHIFT = 2 * CODE_BITS
CODE_MASK = (1 << KEY_SHIFT) - 1
MAX_RECORDS = 512  # records of one side in one position (24 points x 15 mill sets at most)
CHUNK = 1024


@helper
def stabiliser_of(m, o, ix, syms):
    """The symmetries other than the identity that fix both m (an orbit minimum) and o; how many."""
    info = ix.mask_info[m]
    if info & SYMMETRIC == 0:
        return 0
    rest = np.int64(ix.stabiliser[ix.rep_offset[popcount(m)] + (info >> SYM_BITS)]) & ~1
    k = 0
    while rest:
        g = ctz(rest)
        rest &= rest - 1
        if image(ix.sym_img, g, o) == o:
            syms[k] = g
            k += 1
    return k


@helper
def admissible(ban, pend, ht):
    return ban == 0 or pend == 0 or point_of(ban, ht) != point_of(pend, ht)


@helper
def smallest_image(ban, pend, syms, nsyms, ht):
    """The smallest code ``ban << 10 | pending`` among the images under ``syms``."""
    best = (ban << CODE_BITS) | pend
    for i in range(nsyms):
        g = syms[i]
        c = (image_of(ban, g, ht) << CODE_BITS) | image_of(pend, g, ht)
        if c < best:
            best = c
    return best


@helper
def position_codes(m, o, ht, ix, bans, pends, syms, out):
    """The codes of the states of the canonical position (m, o) that carry a record, ascending,
    into ``out``; how many."""
    nb_ = list_records(m, o, ht, bans)
    np_ = list_records(o, m, ht, pends)
    if nb_ == 0 and np_ == 0:
        return 0
    nsyms = stabiliser_of(m, o, ix, syms)
    k = 0
    for i in range(-1, nb_):
        ban = 0 if i < 0 else bans[i]
        for j in range(-1, np_):
            pend = 0 if j < 0 else pends[j]
            if ban == 0 and pend == 0:
                continue
            if not admissible(ban, pend, ht):
                continue
            c = (ban << CODE_BITS) | pend
            if nsyms and smallest_image(ban, pend, syms, nsyms, ht) != c:
                continue
            out[k] = c
            k += 1
    return k


@nb.njit(cache=True, parallel=True)
def count_records(a, b, slots, ht, ix):
    """States with a record, per slot of subspace (a, b) (0 at a duplicate slot)."""
    counts = np.zeros(slots, dtype=np.int64)
    for c in nb.prange((slots + CHUNK - 1) // CHUNK):
        bans = np.empty(MAX_RECORDS, dtype=np.int64)
        pends = np.empty(MAX_RECORDS, dtype=np.int64)
        syms = np.empty(16, dtype=np.int64)
        out = np.empty(MAX_RECORDS * MAX_RECORDS, dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            m, o = unrank_position(a, b, s, ix)
            if is_canonical_pair(m, o, ix):
                counts[s] = position_codes(m, o, ht, ix, bans, pends, syms, out)
    return counts


@nb.njit(cache=True, parallel=True)
def fill_keys(a, b, slots, starts, ht, ix, keys):
    """``keys[starts[s]...]``: slot s's states with a record (``count_records``)."""
    for c in nb.prange((slots + CHUNK - 1) // CHUNK):
        bans = np.empty(MAX_RECORDS, dtype=np.int64)
        pends = np.empty(MAX_RECORDS, dtype=np.int64)
        syms = np.empty(16, dtype=np.int64)
        out = np.empty(MAX_RECORDS * MAX_RECORDS, dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if starts[s + 1] == starts[s]:
                continue
            m, o = unrank_position(a, b, s, ix)
            k = position_codes(m, o, ht, ix, bans, pends, syms, out)
            for i in range(k):
                keys[starts[s] + i] = (np.int64(s) << KEY_SHIFT) | out[i]


def subspace_keys(a: int, b: int, slots: int, ht, ix) -> np.ndarray:
    """The side table of subspace (a, b): its states with a record, as ascending keys."""
    counts = count_records(a, b, slots, ht, ix)
    starts = np.zeros(slots + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    keys = np.empty(int(starts[-1]), dtype=np.int64)
    fill_keys(a, b, slots, starts, ht, ix, keys)
    return keys


@helper
def find_key(keys, lo, hi, key):
    """The index of ``key`` in the ascending ``keys[lo:hi]``, or -1."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and keys[lo] == key:
        return lo
    return -1


# A store: the states of several subspaces in two flat arrays (values, keys), each subspace's part
# found by ``info[a, b]``: (first value, slots, first key, keys), -1 where the store lacks it.
V0, SLOTS, K0, NKEYS = range(4)


@helper
def state_number(m, o, ban, pend, info, keys, ht, ix, syms):
    """The number, in its store's values, of the state (m, o, ban, pending) of any orientation:
    its position taken to the canonical form, its records with it. -1 where the store has no
    such state (not admissible, or the subspace missing)."""
    a = popcount(m)
    b = popcount(o)
    v0 = info[a, b, V0]
    if v0 < 0:
        return -1
    nsyms = canon_setup(m, ix, syms)
    mc = image(ix.sym_img, syms[0], m)
    oc = image(ix.sym_img, syms[0], o)
    for i in range(1, nsyms):
        x = image(ix.sym_img, syms[i], o)
        if x < oc:
            oc = x
    per = ix.binom[ix.n - a, b]
    slot = (ix.mask_info[m] >> SYM_BITS) * per + colex_rank(oc, mc, ix.binom)
    if ban == 0 and pend == 0:
        return v0 + slot
    best = -1
    for i in range(nsyms):
        g = syms[i]
        if image(ix.sym_img, g, o) != oc:
            continue
        c = (image_of(ban, g, ht) << CODE_BITS) | image_of(pend, g, ht)
        if best < 0 or c < best:
            best = c
    k0 = info[a, b, K0]
    j = find_key(keys, k0, k0 + info[a, b, NKEYS], (np.int64(slot) << KEY_SHIFT) | best)
    if j < 0:
        return -1
    return v0 + info[a, b, SLOTS] + (j - k0)


@nb.njit(cache=True, parallel=True)
def state_numbers(movers, opps, bans, pends, info, keys, ht, ix):
    """``state_number`` of many states at once."""
    out = np.empty(movers.shape[0], dtype=np.int64)
    for c in nb.prange((movers.shape[0] + CHUNK - 1) // CHUNK):
        syms = np.empty(16, dtype=np.int64)
        for i in range(c * CHUNK, min(movers.shape[0], (c + 1) * CHUNK)):
            out[i] = state_number(movers[i], opps[i], bans[i], pends[i], info, keys, ht, ix, syms)
    return out
