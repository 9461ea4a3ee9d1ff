"""Moves that stay in the twin subspace: whether there are any, and how many distinct successors."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYM_BITS, SYMMETRIC, image
from ...index.slots import canon_setup, slot_with
from ...jit import helper
from ...rules.bits import ctz, popcount
from ...rules.movegen import (
    MAX_MOVES,
    OPT_FLY,
    OPT_FORFEIT,
    OPT_MILL_WINS,
    OPT_OPTIONAL,
    OPT_PASS,
    mills_formed,
    removable_men,
)
from .codes import SYMS


@nb.njit(cache=True)
def scratch(n):
    """A thread's buffers for ranking one position's successors (``succ``, ``syms``) and its
    removals' (``removed_syms``, ``removed_canon``; see ``removals.removal_outcome``)."""
    return (
        np.empty(MAX_MOVES, dtype=np.int64), np.empty(SYMS, dtype=np.int64),
        np.empty((n, SYMS), dtype=np.int64), np.empty((n, 3), dtype=np.int64),
    )


@helper
def mill_keeps_men(opp, g):
    """Whether a move that closes a mill may leave ``opp``'s men as they are, so that it stays in
    the twin subspace: the removal is optional, a mill wins outright, or nothing is removable."""
    mill_masks, opts = g.mill_masks, g.opts
    return opts[OPT_OPTIONAL] != 0 or opts[OPT_MILL_WINS] != 0 or removable_men(opp, mill_masks, opts[OPT_FORFEIT]) == 0


@helper
def has_move(m, o, g, flying):
    n, adj = g.n, g.adj
    empty = ((1 << n) - 1) & ~(m | o)
    if flying:
        return empty != 0
    f = m
    while f:
        low = f & -f
        if adj[ctz(low)] & empty:
            return True
        f ^= low
    return False


@helper
def has_internal_move(m, o, g, flying):
    """Whether some move (or the pass) stays in the twin subspace: forms no mill, or removes
    nothing. Whether the opponent's men may be kept is asked only once a move closes a mill:
    most positions answer at their first move."""
    n, adj, point_mills, opts = g.n, g.adj, g.point_mills, g.opts
    empty = ((1 << n) - 1) & ~(m | o)
    keep = -1  # not asked yet
    moves = False
    f = m
    while f:
        lowf = f & -f
        f ^= lowf
        t = empty if flying else adj[ctz(lowf)] & empty
        if t:
            moves = True
        rest = m ^ lowf
        while t:
            lowt = t & -t
            t ^= lowt
            if mills_formed(rest | lowt, ctz(lowt), point_mills) == 0:
                return True
            if keep < 0:
                keep = 1 if mill_keeps_men(o, g) else 0
            if keep:
                return True
    return not moves and opts[OPT_PASS] != 0


@helper
def open_mills(m, empty, mill_masks, third, pair):
    """The mills that ``m`` holds two points of, the third empty: how many, each one's empty
    point in ``third`` and its two men in ``pair``. A move closes a mill exactly where it goes to
    such a point from outside that mill's two men (``closed_by``)."""
    k = 0
    for i in range(mill_masks.shape[0]):
        line = mill_masks[i]
        held = line & m
        if popcount(held) == 2 and line & empty:
            third[k] = line ^ held
            pair[k] = held
            k += 1
    return k


@helper
def closed_by(man, nopen, third, pair):
    """The points where the man at ``man`` (a bit) closes a mill by moving there."""
    points = 0
    for j in range(nopen):
        if pair[j] & man == 0:
            points |= third[j]
    return points


@helper
def count_successors(a, b, m, o, succ, syms, g, ix):
    """Distinct slots of the twin subspace that (m, o) reaches by a move without removal (or by
    a pass), exactly the moves whose inverse ``gather_predecessors`` generates."""
    return count_internal(a, b, m, o, g.opts[OPT_FLY] != 0 and a == 3, succ, syms, g, ix)


@helper
def count_internal(a, b, m, o, flying, succ, syms, g, ix):
    """``count_successors`` where the mover flies if ``flying`` (with men in hand under Lasker's
    rule, a side flies when its men on the board and in hand are three: ``cycles``).

    Two such moves reach the same slot only through a symmetry that fixes ``o``; when ``o`` has
    none, the moves are counted without ranking or listing them: all of them (a popcount per
    man), less those that close a mill and must remove (``closed_by``; whether the men may be
    kept is asked only if there are any)."""
    n, adj, opts = g.n, g.adj, g.opts
    mask_info = ix.mask_info
    empty = ((1 << n) - 1) & ~(m | o)
    if mask_info[o] & SYMMETRIC != 0:
        nsucc = _ranked_internal(a, b, m, o, empty, flying, succ, syms, g, ix)
    else:
        # succ is free here: it holds the open mills (the board has at most 20)
        nm = g.mill_masks.shape[0]
        third, pair = succ[:nm], succ[nm : 2 * nm]
        nopen = open_mills(m, empty, g.mill_masks, third, pair)
        nsucc = 0
        closing = 0
        f = m
        while f:
            lowf = f & -f
            f ^= lowf
            t = empty if flying else adj[ctz(lowf)] & empty
            nsucc += popcount(t)
            if nopen:
                closing += popcount(t & closed_by(lowf, nopen, third, pair))
        if closing and not mill_keeps_men(o, g):
            nsucc -= closing
    if nsucc == 0 and opts[OPT_PASS] and not has_move(m, o, g, flying):
        return 1  # the pass
    return nsucc


@helper
def _ranked_internal(a, b, m, o, empty, flying, succ, syms, g, ix):
    """``count_internal`` where ``o`` has a symmetry: the successors inside are ranked, and the
    slots counted once each."""
    adj, point_mills = g.adj, g.point_mills
    sym_img, mask_info, binom = ix.sym_img, ix.mask_info, ix.binom
    keep = mill_keeps_men(o, g)
    nsyms = canon_setup(o, ix, syms)
    oc = image(sym_img, syms[0], o)
    rep_o = mask_info[o] >> SYM_BITS
    per_twin = binom[g.n - b, a]
    nsucc = 0
    f = m
    while f:
        lowf = f & -f
        f ^= lowf
        rest = m ^ lowf
        t = empty if flying else adj[ctz(lowf)] & empty
        while t:
            lowt = t & -t
            t ^= lowt
            m2 = rest | lowt
            if keep or mills_formed(m2, ctz(lowt), point_mills) == 0:
                succ[nsucc] = slot_with(oc, rep_o, m2, syms, nsyms, sym_img, per_twin, binom)
                nsucc += 1
    if nsucc > 1:
        nsucc = sort_unique(succ, nsucc)  # symmetric successors share a slot: count it once
    return nsucc


@helper
def sort_unique(xs, k):
    """Sort xs[:k] in place (insertion sort: k is small) and drop repeats; return the new length."""
    return sort_unique_range(xs, 0, k)


@helper
def sort_unique_range(xs, lo, hi):
    """``sort_unique`` of xs[lo:hi]: returns where the distinct values end."""
    for i in range(lo + 1, hi):
        x = xs[i]
        j = i - 1
        while j >= lo and xs[j] > x:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = x
    if hi <= lo:
        return hi
    d = lo + 1
    for i in range(lo + 1, hi):
        if xs[i] != xs[d - 1]:
            xs[d] = xs[i]
            d += 1
    return d
