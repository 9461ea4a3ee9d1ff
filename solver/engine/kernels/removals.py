"""Moves with a removal: what the smaller, solved subspaces say of them (a position's ``removals`` code),
and the positions whose removals may win, found backwards from the losses they remove into."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYM_BITS, image, unrank_position
from ...index.slots import canon_setup, slot_of, slot_with
from ...jit import helper
from ...rules.bits import ctz, popcount
from ...rules.movegen import (
    OPT_FLY,
    OPT_FORFEIT,
    OPT_MILL_WINS,
    OPT_OPTIONAL,
    OPT_PER_MILL,
    men_in_mills,
    mills_formed,
    removable_men,
)
from ...values import DUP
from .atomic import atomic_min
from .codes import CANDIDATE, CHUNK, LAZY, NOLOSS, UNKNOWN, wins_in
from .prefetch import prefetch
from .successors import count_successors, scratch


@helper
def removal_level(m2, o, r1, a, b, removed_syms, removed_canon, ix, smaller):
    """Level this position gets from the successor where ``m2`` is the mover's men after the
    move and r1 alone is removed: odd = a win, even = a loss, 0 = a draw."""
    n = ix.n
    sym_img, mask_info, binom = ix.sym_img, ix.mask_info, ix.binom
    if b - 1 < 3:
        return 1  # the opponent is left with two men: won at once
    # The successor's mover is o - r1, the same for every move removing r1: set up once.
    if removed_canon[r1, 0] < 0:
        o2 = o & ~(1 << r1)
        removed_canon[r1, 0] = canon_setup(o2, ix, removed_syms[r1])
        removed_canon[r1, 1] = image(sym_img, removed_syms[r1, 0], o2)
        removed_canon[r1, 2] = mask_info[o2] >> SYM_BITS
    s = slot_with(removed_canon[r1, 1], removed_canon[r1, 2], m2, removed_syms[r1], removed_canon[r1, 0], sym_img, binom[n - b + 1, a], binom)
    return np.int64(smaller[s])  # the successor is at level v - 1: this position at v


@helper
def left_level(m2, o2, b, ix, fewer):
    """Level from the successor where the opponent is left with ``o2``, 1 to 3 of its b men
    fewer (``fewer[k - 1]`` holds (b - k, a))."""
    left = popcount(o2)
    if left < 3:
        return 1  # won at once
    s = slot_of(o2, m2, ix)
    if left == b - 1:
        return np.int64(fewer[0][s])
    if left == b - 2:
        return np.int64(fewer[1][s])
    return np.int64(fewer[2][s])


@helper
def multi_removal_level(m2, o, r1, more, a, b, removed_syms, removed_canon, g, ix, fewer):
    """The outcome of removing r1 and then up to ``more`` (1 or 2) men more, one per further mill
    the move closes, over every choice as the move generator lists them (each chosen among the
    men removable then; fewer where nothing is removable or the removal is optional), summed up
    as one level: the quickest win if any, else 0 (a draw) if any, else the longest loss. That
    is all the caller keeps of a set of choices anyway, so a set reached in two orders may count
    twice."""
    mill_masks, opts = g.mill_masks, g.opts
    forfeit = opts[OPT_FORFEIT]
    optional = opts[OPT_OPTIONAL] != 0
    o1 = o & ~(1 << r1)
    rem2 = removable_men(o1, mill_masks, forfeit)
    win = 0
    worst = 0
    draw = False
    if rem2 == 0 or optional:
        lvl = removal_level(m2, o, r1, a, b, removed_syms, removed_canon, ix, fewer[0])
        win, worst, draw = fold_level(lvl, win, worst, draw)
    x = rem2
    while x:
        low = x & -x
        x ^= low
        o2 = o1 ^ low
        rem3 = 0
        if more == 2:
            rem3 = removable_men(o2, mill_masks, forfeit)
        if more == 1 or rem3 == 0 or optional:
            lvl = left_level(m2, o2, b, ix, fewer)
            win, worst, draw = fold_level(lvl, win, worst, draw)
        y = rem3
        while y:
            low3 = y & -y
            y ^= low3
            lvl = left_level(m2, o2 ^ low3, b, ix, fewer)
            win, worst, draw = fold_level(lvl, win, worst, draw)
    if win:
        return win
    if draw:
        return 0
    return worst


@helper
def fold_level(lvl, win, worst, draw):
    """(quickest win, longest loss, any draw) with one more successor's level taken in."""
    if lvl == 0:
        return win, worst, True
    if wins_in(lvl):
        if win == 0 or lvl < win:
            return lvl, worst, draw
        return win, worst, draw
    if lvl > worst:
        return win, lvl, draw
    return win, worst, draw


@helper
def removal_outcome(a, b, m, o, removed_syms, removed_canon, g, ix, fewer):
    """What the moves with a removal give the position (m, o): its ``removals`` code.

    Mill-forming moves are found from the mills (two of the mover's men and an empty third
    point), not by trying every move; ``verify`` checks the results with the general generator.
    """
    return _removal_outcome(a, b, m, o, removed_syms, removed_canon, g, ix, fewer, True)


@helper
def removal_outcome_kept(a, b, m, o, removed_syms, removed_canon, g, ix, fewer):
    """``removal_outcome`` keeping the forms of o less a man that ``removal_level`` set up for an
    earlier position with the same o (``forget_removals`` once for each o)."""
    return _removal_outcome(a, b, m, o, removed_syms, removed_canon, g, ix, fewer, False)


@helper
def forget_removals(o, removed_canon, g):
    """Clear the set-up forms of o less each removable man (``removal_level`` fills them in)."""
    _forget(removable_men(o, g.mill_masks, g.opts[OPT_FORFEIT]), removed_canon)


@helper
def _forget(rem, removed_canon):
    x = rem
    while x:
        low = x & -x
        removed_canon[ctz(low), 0] = -1
        x ^= low


@helper
def _removal_outcome(a, b, m, o, removed_syms, removed_canon, g, ix, fewer, fresh):
    """``removal_outcome``; ``fresh``: the set-up forms cleared first (their removable men are
    computed here anyway)."""
    n, adj, mill_masks, point_mills, opts = g.n, g.adj, g.mill_masks, g.point_mills, g.opts
    if opts[OPT_MILL_WINS]:
        return 0  # a mill wins at once, without a removal: the twin holds every successor
    rem = removable_men(o, mill_masks, opts[OPT_FORFEIT])
    if rem == 0:
        return 0  # nothing may be removed: every move stays in the twin subspace
    if fresh:
        _forget(rem, removed_canon)
    empty = ((1 << n) - 1) & ~(m | o)
    flying = opts[OPT_FLY] != 0 and a == 3
    per_mill = opts[OPT_PER_MILL] != 0
    win_at = 0
    floor = 0
    draw_by_removal = False
    for mill in mill_masks:
        mine = m & mill
        if popcount(mine) != popcount(mill) - 1:
            continue
        target = mill & ~m
        if target & empty == 0:
            continue
        to = ctz(target)
        # A man of this mill moving in would leave the mill open.
        f = (m & ~mill) if flying else (adj[to] & m & ~mill)
        while f:
            lowf = f & -f
            f ^= lowf
            m2 = (m ^ lowf) | target
            # Removals after the first: one per further mill closed (per-mill), two at most.
            more = min(mills_formed(m2, to, point_mills), 3) - 1 if per_mill else 0
            x = rem
            while x:
                lowr = x & -x
                x ^= lowr
                r1 = ctz(lowr)
                if more:
                    lvl = multi_removal_level(
                        m2, o, r1, more, a, b, removed_syms, removed_canon, g, ix, fewer
                    )
                else:
                    lvl = removal_level(m2, o, r1, a, b, removed_syms, removed_canon, ix, fewer[0])
                if lvl == 0:
                    draw_by_removal = True
                elif wins_in(lvl):
                    if win_at == 0 or lvl < win_at:
                        win_at = lvl
                        if lvl == 1:
                            return 1  # a win in 1 settles it: nothing is quicker
                elif lvl > floor:
                    floor = lvl
    if win_at:
        return win_at
    if draw_by_removal:
        return NOLOSS
    return floor


@helper
def settle_removals(a, b, m, o, succ, syms, removed_syms, removed_canon, g, ix, fewer):
    """(removals, count) of a position whose removal outcome is computed now. Where removals allow a
    loss at level e, the schedule will ask at e whether every other successor has become a win,
    so the count is needed too."""
    e = removal_outcome(a, b, m, o, removed_syms, removed_canon, g, ix, fewer)
    if not wins_in(e) and e != NOLOSS:
        return e, count_successors(a, b, m, o, succ, syms, g, ix)
    return e, UNKNOWN


MARKS = 4096  # candidate positions buffered per thread before their slots are read


@nb.njit(cache=True, parallel=True)
def mark_removal_candidates(a, b, value, count, removals, smaller_mover, smaller_values, settle, g, ix):
    """Find every position of (a, b) that some move with a removal takes to a loss of
    ``smaller_values``, the solved subspace (smaller_mover, a), where smaller_mover is b - 1 (or
    b - 2, b - 3: two or three removals, one per mill closed): un-move the mover's man that closed
    as many mills, put the removed men back on empty points.

    With ``settle`` (every move removes one man at most, and a mill does not win outright) the
    position's removals code is settled here: a win one ply beyond the quickest loss its legal
    removals reach, the minimum over every loss that finds it. Otherwise the LAZY positions found
    are marked (count = CANDIDATE), a superset that ``resolve_candidates`` then settles exactly.
    The positions are buffered (``MARKS`` a thread) and handled in passes (see ``mark_buffered``),
    so that the scattered reads of each pass were asked for during the one before."""
    n, adj, point_mills, mill_masks, opts = g.n, g.adj, g.point_mills, g.mill_masks, g.opts
    mask_info = ix.mask_info
    flying = opts[OPT_FLY] != 0 and a == 3
    forfeit = opts[OPT_FORFEIT]
    nq = smaller_values.shape[0]
    removed = b - smaller_mover
    nchunks = (nq + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        pms = np.empty(MARKS, dtype=np.int64)
        pos = np.empty(MARKS, dtype=np.int64)
        lvls = np.empty(MARKS, dtype=np.uint16)
        k = 0
        for q in range(c * CHUNK, min(nq, (c + 1) * CHUNK)):
            v = smaller_values[q]
            if v == DUP or v == 0 or wins_in(v - 1):
                continue  # not a loss for its side to move
            # (qm, qo): the smaller position, whose mover lost men; qo is the mover here after its move
            qm, qo = unrank_position(smaller_mover, a, q, ix)
            empty = ((1 << n) - 1) & ~(qm | qo)
            t = qo
            while t:
                lowt = t & -t
                t ^= lowt
                if mills_formed(qo, ctz(lowt), point_mills) < removed:
                    continue  # (its origin is empty in qo, so these are the mills it closed)
                fs = empty if flying else adj[ctz(lowt)] & empty
                while fs:
                    lowf = fs & -fs
                    fs ^= lowf
                    pm = (qo ^ lowt) | lowf
                    prefetch(mask_info, pm)
                    r1s = empty & ~lowf
                    while r1s:
                        low1 = r1s & -r1s
                        r1s ^= low1
                        if removed == 1:
                            po = qm | low1
                            if settle and not may_remove(po, ctz(low1), point_mills, mill_masks, forfeit):
                                continue
                            k = buffer_mark(pm, po, v, pms, pos, lvls, k, value, count, removals, settle, ix)
                            continue
                        r2s = r1s  # the second removed man: a higher point, each pair once
                        while r2s:
                            low2 = r2s & -r2s
                            r2s ^= low2
                            if removed == 2:
                                k = buffer_mark(pm, qm | low1 | low2, v, pms, pos, lvls, k, value, count, removals, settle, ix)
                                continue
                            r3s = r2s  # the third: higher still
                            while r3s:
                                low3 = r3s & -r3s
                                r3s ^= low3
                                k = buffer_mark(pm, qm | low1 | low2 | low3, v, pms, pos, lvls, k, value, count, removals, settle, ix)
        mark_buffered(pms, pos, lvls, k, value, count, removals, settle, ix)


@helper
def may_remove(o, r, point_mills, mill_masks, forfeit):
    """Whether the man of ``o`` on point r may be removed (``movegen.removable_men`` for one man:
    outside every mill, or every man of ``o`` in a mill and no forfeit)."""
    if mills_formed(o, r, point_mills) == 0:
        return True
    return forfeit == 0 and men_in_mills(o, mill_masks) == o


@helper
def buffer_mark(pm, po, v, pms, pos, lvls, k, value, count, removals, settle, ix):
    """Add the position (pm, po), reaching a loss at level v, to the buffer of k; handle the
    buffer's positions when it is full."""
    pms[k] = pm
    pos[k] = po
    lvls[k] = v
    k += 1
    if k == pms.shape[0]:
        mark_buffered(pms, pos, lvls, k, value, count, removals, settle, ix)
        k = 0
    return k


@helper
def mark_buffered(pms, pos, lvls, k, value, count, removals, settle, ix):
    """Handle the k buffered positions: their slots first (the movers' ``mask_info`` entries were
    asked for as they were buffered), asking for their removal codes (and values), then settle
    or mark them."""
    for j in range(k):
        p = slot_of(pms[j], pos[j], ix)
        pms[j] = p
        prefetch(removals, p)
        if not settle:
            prefetch(value, p)
    for j in range(k):
        p = pms[j]
        if settle:
            # The loss is at level v - 1, so the win is at v. A position whose code was computed
            # already holds a win at v or sooner (or 0, lost at once): the minimum keeps it.
            atomic_min(removals, p, lvls[j])
        elif removals[p] == LAZY and value[p] == 0:
            count[p] = CANDIDATE  # threads racing here all write the same byte


@nb.njit(cache=True, parallel=True)
def resolve_candidates(a, b, value, count, removals, g, ix, fewer):
    """Exact removal outcome (and, where it allows a loss, the count) of each marked position."""
    n = g.n
    slots = value.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        succ, syms, removed_syms, removed_canon = scratch(n)
        for slot in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if count[slot] != CANDIDATE:
                continue
            m, o = unrank_position(a, b, slot, ix)
            removals[slot], count[slot] = settle_removals(
                a, b, m, o, succ, syms, removed_syms, removed_canon, g, ix, fewer,
            )
