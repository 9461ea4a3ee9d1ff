"""The states of a moving subspace under the history rule, and their numbers.

A subspace (a, b) holds every position with every admissible (ban, pending) pair
(docs/history-rule.md, 3.3): ``ban`` none or a live record of the side to move, ``pending`` none
or a live record of the opponent, on different points. A position with a non-trivial stabiliser
(some symmetry fixes both sides' men) has records that the symmetry maps onto one another: one
state, listed once, by the smallest code among the images.

Numbering, slot by slot: the states of a canonical slot are its plain position, then its states
with a record in increasing code (``ban << 10 | pending``); a duplicate slot has none. A subspace
keeps only ``counts`` (a byte per slot: its states) and ``block_first`` (the number of the first
state of every 32nd slot), 1.25 bytes a slot; a state's place within its slot is found again
from its position's records (``position_codes``) when it is ranked. Flat arrays hold several
subspaces at once (a "store"), each found by ``info[a, b]``: (first state, slots, first count,
first block).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import SYM_BITS, SYMMETRIC, colex_rank, image, is_canonical_pair, unrank_position
from ..index.slots import canon_setup
from ..jit import helper, inlined
from ..rules.bits import ctz, popcount
from ..values import DUP
from .records import image_of, list_records, point_of
from .tables import CODE_BITS

KEY_SHIFT = 2 * CODE_BITS
CODE_MASK = (1 << KEY_SHIFT) - 1
PEND_MASK = (1 << CODE_BITS) - 1
MAX_RECORDS = 512  # records of one side in one position (24 points x 15 mill sets at most)
MAX_CODES = 255  # states of one slot, as a byte (the 9-men games have at most about 70)
# errors counted by the kernels (the solver's and the forward check's): a successor or
# predecessor state that its store lacks, a buffer or a count too small
ERR_SUCC, ERR_PRED, ERR_OVERFLOW = range(3)
BLOCK_BITS = 5
CHUNK = 1024
V0, SLOTS, C0, B0 = range(4)


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


@inlined
def position_codes(m, o, ht, ix, bans, pends, syms, out):
    """The codes of the canonical position (m, o)'s states: ``out[0] = 0`` (the plain state),
    then those with a record, ascending; how many, or -1 past ``out``."""
    nb_ = list_records(m, o, ht, bans)
    np_ = list_records(o, m, ht, pends)
    if nb_ == 0 and np_ == 0:
        out[0] = 0
        return 1
    return pair_codes(bans, nb_, pends, np_, syms, stabiliser_of(m, o, ix, syms), ht, out)


@helper
def pair_codes(bans, nb_, pends, np_, syms, nsyms, ht, out):
    """``position_codes`` from the position's live records, ascending (``bans[:nb_]``, the side
    to move's; ``pends[:np_]``) and the symmetries other than the identity that fix it
    (``syms[:nsyms]``): the admissible pairs, each listed once, by its smallest image."""
    out[0] = 0
    k = 1
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
            if k >= out.shape[0]:
                return -1
            out[k] = c
            k += 1
    return k


@nb.njit(cache=True)
def scratch():
    """A thread's buffers for ranking states: (syms, bans, pends, codes)."""
    return (
        np.empty(16, dtype=np.int64), np.empty(MAX_RECORDS, dtype=np.int64),
        np.empty(MAX_RECORDS, dtype=np.int64), np.empty(MAX_CODES + 1, dtype=np.int64),
    )


@nb.njit(cache=True, parallel=True)
def count_states(a, b, slots, ht, ix, counts):
    """States per slot of subspace (a, b) into ``counts`` (uint8: 0 at a duplicate slot); how
    many slots have more than MAX_CODES. Written straight into the store's byte per slot: a
    wider array of 9-men slots would be 4 GB a half."""
    nchunks = (slots + CHUNK - 1) // CHUNK
    over = np.zeros(nchunks, dtype=np.int64)
    for c in nb.prange(nchunks):
        syms, bans, pends, codes = scratch()
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            counts[s] = 0
            m, o = unrank_position(a, b, s, ix)
            if is_canonical_pair(m, o, ix):
                k = position_codes(m, o, ht, ix, bans, pends, syms, codes)
                if k < 0 or k > MAX_CODES:
                    over[c] += 1
                else:
                    counts[s] = k
    return over.sum()


def block_firsts(counts: np.ndarray, out: np.ndarray) -> int:
    """``out``: the number, within the subspace, of the first state of every 32nd slot (its
    ``block_first``), from ``counts``; returns the subspace's states."""
    slots = len(counts)
    if slots == 0:
        return 0
    per_block = np.add.reduceat(counts, np.arange(0, slots, 1 << BLOCK_BITS), dtype=np.int64)
    out[0] = 0
    np.cumsum(per_block[:-1], out=out[1:])
    return int(out[-1] + per_block[-1])


def blocks_of(slots: int) -> int:
    return (slots + (1 << BLOCK_BITS) - 1) >> BLOCK_BITS


def subspace_index(a: int, b: int, slots: int, ht, ix) -> tuple[np.ndarray, np.ndarray]:
    """(counts, block_first) of subspace (a, b), in arrays of their own."""
    counts = np.empty(slots, dtype=np.uint8)
    if count_states(a, b, slots, ht, ix, counts):
        raise ValueError(f"subspace {a}-{b}: a position with more than {MAX_CODES} states")
    block_first = np.zeros(blocks_of(slots), dtype=np.int64)
    block_firsts(counts, block_first)
    return counts, block_first


@helper
def first_state(a, b, s, info, counts, bfirst):
    """The number, in the store, of slot s's first state (its plain position)."""
    c0 = info[a, b, C0]
    blk = s >> BLOCK_BITS
    t = bfirst[info[a, b, B0] + blk]
    for i in range(c0 + (blk << BLOCK_BITS), c0 + s):
        t += counts[i]
    return info[a, b, V0] + t


@inlined
def canonical_position(m, o, ix, syms):
    """(canonical mover, opponent, slot, how many symmetries take (m, o) there): those
    symmetries are left first in ``syms``."""
    mc, base, nsyms = mover_setup(m, popcount(o), ix, syms)
    oc, slot, k = canonical_with(mc, base, syms, nsyms, o, ix, syms)  # (in place: k never passes i)
    return mc, oc, slot, k


@inlined
def mover_setup(m, b, ix, msyms):
    """What ``canonical_position`` of (m, o) needs of m alone, for a mover met with many
    opponents of b men: (its canonical image, its slots' base, how many symmetries take it
    there), those symmetries in ``msyms``."""
    nsyms = canon_setup(m, ix, msyms)
    return image(ix.sym_img, msyms[0], m), (ix.mask_info[m] >> SYM_BITS) * ix.binom[ix.n - popcount(m), b], nsyms


@inlined
def canonical_with(mc, base, msyms, nm, o, ix, syms):
    """``canonical_position`` of (m, o) from ``mover_setup(m, ...)``: (canonical opponent, slot,
    how many symmetries take (m, o) there), those symmetries first in ``syms``."""
    oc = image(ix.sym_img, msyms[0], o)
    for i in range(1, nm):
        x = image(ix.sym_img, msyms[i], o)
        if x < oc:
            oc = x
    k = 0
    for i in range(nm):
        if image(ix.sym_img, msyms[i], o) == oc:
            syms[k] = msyms[i]
            k += 1
    return oc, base + colex_rank(oc, mc, ix.binom), k


@helper
def canonical_state(m, o, ban, pend, ix, ht, syms):
    """(canonical mover, opponent, slot, code) of the state (m, o, ban, pending)."""
    mc, oc, slot, k = canonical_position(m, o, ix, syms)
    if ban == 0 and pend == 0:
        return mc, oc, slot, 0
    best = -1
    for i in range(k):
        c = (image_of(ban, syms[i], ht) << CODE_BITS) | image_of(pend, syms[i], ht)
        if best < 0 or c < best:
            best = c
    return mc, oc, slot, best


@helper
def mapped_sorted(src, n, g, ht, out):
    """The records src[:n] under symmetry g, ascending, into out."""
    for i in range(n):
        x = image_of(src[i], g, ht)
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x


@helper
def rank_in_lists(ban, pend, bans, nb_, pends, np_, ht):
    """The place of state (ban, pending) among the states of a position with no symmetry but
    the identity, whose live records are the ascending ``bans[:nb_]`` (the side to move's) and
    ``pends[:np_]``: how many admissible pairs have a smaller code (the plain state first)."""
    r = 0
    # pairs with a smaller ban: ban 0 (every pending), then each smaller record
    if ban != 0:
        r += 1 + np_
        for i in range(nb_):
            b = bans[i]
            if b >= ban:
                break
            pb = point_of(b, ht)
            r += 1
            for j in range(np_):
                if point_of(pends[j], ht) != pb:
                    r += 1
    # the same ban, a smaller pending
    if pend != 0:
        r += 1
        pb = point_of(ban, ht) if ban != 0 else -1
        for j in range(np_):
            p = pends[j]
            if p >= pend:
                break
            if pb < 0 or point_of(p, ht) != pb:
                r += 1
    return r


@helper
def slot_states(a, b, s, n, ht, ix, bans, pends, syms, own):
    """(mover, opponent) of slot s and, in ``own``, the codes of its n states."""
    m, o = unrank_position(a, b, s, ix)
    own[0] = 0
    if n > 1:
        position_codes(m, o, ht, ix, bans, pends, syms, own)
    return m, o


@helper
def find_code(codes, k, code):
    """The place of ``code`` among the ascending ``codes[:k]``, or -1."""
    lo, hi = 0, k
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    if lo < k and codes[lo] == code:
        return lo
    return -1


@inlined
def state_number(m, o, ban, pend, info, counts, bfirst, ht, ix, syms, bans, pends, codes):
    """(number in the store, slot) of the state (m, o, ban, pending) of any orientation; number
    -1 where the store has no such state (not admissible, or the subspace missing)."""
    a = popcount(m)
    b = popcount(o)
    if info[a, b, V0] < 0:
        return -1, -1
    mc, oc, slot, code = canonical_state(m, o, ban, pend, ix, ht, syms)
    if counts[info[a, b, C0] + slot] == 0:
        return -1, slot
    t = first_state(a, b, slot, info, counts, bfirst)
    if code == 0:
        return t, slot
    k = position_codes(mc, oc, ht, ix, bans, pends, syms, codes)
    j = find_code(codes, k, code)
    if j < 0:
        return -1, slot
    return t + j, slot


@nb.njit(cache=True)
def state_numbers(movers, opps, bans_, pends_, info, counts, bfirst, ht, ix):
    """``state_number`` of many states at once (a lookup's one, the tests' thousands: one thread,
    which compiles in half the time of a parallel loop)."""
    out = np.empty(movers.shape[0], dtype=np.int64)
    syms, bans, pends, codes = scratch()
    for i in range(movers.shape[0]):
        out[i] = state_number(movers[i], opps[i], bans_[i], pends_[i], info, counts, bfirst, ht, ix, syms, bans, pends, codes)[0]
    return out


@nb.njit(cache=True, parallel=True)
def canonical_per_chunk(counts):
    """Canonical slots (a count above 0) in each CHUNK of slots."""
    slots = counts.shape[0]
    out = np.zeros((slots + CHUNK - 1) // CHUNK, dtype=np.int64)
    for c in nb.prange(out.shape[0]):
        k = 0
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if counts[s] != 0:
                k += 1
        out[c] = k
    return out


@nb.njit(cache=True, parallel=True)
def to_side_table(a, b, slots, c_lo, c_hi, counts, bfirst, canon_before, values, ht, ix, plain, keys, xvals, x0):
    """From the numbering by slots (slot s's states from its first, ``bfirst`` every 32nd slot)
    to the stored layout, over the CHUNKs of slots c_lo ... c_hi - 1: ``plain[s]`` (DUP at a
    duplicate slot), and the states with a record as ascending keys ``slot << 20 | code`` with
    their values, side-table entry x at ``keys[x - x0]``. A chunk's first entry is its first
    state less the canonical slots before it (``canon_before``, per chunk): no array of a word
    per slot, and the side table can be made a piece at a time."""
    for c in nb.prange(c_lo, c_hi):
        syms, bans, pends, codes = scratch()
        lo = c * CHUNK
        t = bfirst[lo >> BLOCK_BITS]  # (CHUNK is a multiple of the block)
        x = t - canon_before[c] - x0
        for s in range(lo, min(slots, lo + CHUNK)):
            n = counts[s]
            if n == 0:
                plain[s] = DUP
                continue
            plain[s] = values[t]
            if n > 1:
                m, o = unrank_position(a, b, s, ix)
                position_codes(m, o, ht, ix, bans, pends, syms, codes)
                for j in range(1, n):
                    keys[x + j - 1] = (np.int64(s) << KEY_SHIFT) | codes[j]
                    xvals[x + j - 1] = values[t + j]
            t += n
            x += n - 1


@nb.njit(cache=True)
def count_keys(keys, counts):
    """counts[slot] += 1 for each key (``slot << 20 | code``; the side table read back)."""
    for i in range(keys.shape[0]):
        counts[keys[i] >> KEY_SHIFT] += 1


@nb.njit(cache=True)
def count_plain(plain, lo, counts):
    """counts[lo + i] += 1 where plain[i] holds a position (not DUP)."""
    for i in range(plain.shape[0]):
        if plain[i] != DUP:
            counts[lo + i] += 1


@nb.njit(cache=True)
def place_plain(plain, lo, counts, bfirst, values):
    """The plain values of slots lo ... into their states' places (each slot's first state)."""
    s = lo
    t = bfirst[s >> BLOCK_BITS]
    for i in range((s >> BLOCK_BITS) << BLOCK_BITS, s):
        t += counts[i]
    for i in range(plain.shape[0]):
        if plain[i] != DUP:
            values[t] = plain[i]
        t += counts[lo + i]


@nb.njit(cache=True)
def place_keys(keys, xvals, counts, bfirst, values, at):
    """The side table's values (keys ascending) into their states' places: a slot's keys follow
    its plain state in order. ``at`` = (slot, next place) carried from the keys before."""
    cur, pos = at[0], at[1]
    for i in range(keys.shape[0]):
        s = keys[i] >> KEY_SHIFT
        if s != cur:
            cur = s
            pos = bfirst[s >> BLOCK_BITS] + 1
            for j in range((s >> BLOCK_BITS) << BLOCK_BITS, s):
                pos += counts[j]
        values[pos] = xvals[i]
        pos += 1
    at[0], at[1] = cur, pos
