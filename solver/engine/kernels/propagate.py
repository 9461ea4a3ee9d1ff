"""One propagation step: predecessors of the decided frontier, then their decisions, both in
parallel: the predecessors are sorted into slot ranges that one thread each decides, so that no
slot is shared and results do not depend on the thread count."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYMMETRIC, unrank_position
from ...index.slots import slot_from
from ...jit import helper
from ...rules.bits import ctz
from ...rules.movegen import (
    OPT_FLY,
    OPT_MILL_WINS,
    OPT_PASS,
    men_in_mills,
    mills_formed,
)
from .codes import LAZY, NOLOSS, UNKNOWN, may_lose, wins_in
from .frontier import add
from .prefetch import AHEAD, prefetch, prefetch_slot
from .removals import removal_outcome
from .successors import count_successors, has_move, mill_keeps_men, scratch, sort_unique

ROWS = 256  # frontier entries per work item of the gather


@nb.njit(cache=True, parallel=True)
def gather_predecessors(frontier, nfront, front_a, front_b, preds, nrow, g, ix):
    """For each frontier slot of subspace (front_a, front_b) (its position is (fm, fo)), the
    distinct slots of (front_b, front_a) whose mover reaches it by a move without removal (or by
    a pass). Work item c (ROWS frontier entries) packs its predecessors one after another from
    preds[c * stride], stride = len(preds) // work items, and their number goes to nrow[c]:
    packed, the memory a block touches stays small enough for the cache. Pure geometry: no value
    is read or written here, so that the random accesses to the large arrays happen once, sorted,
    in ``decide_range``.

    Two passes per work item: the first writes each predecessor's mover (a board mask) where its
    slot will go and asks for its entry of the 64 MB ``mask_info`` table, the second ranks them,
    by then mostly from the cache.

    A flying side (3 men) has up to 3 x (n - front_a - 3) un-moves, each a new mover to rank in
    full. But the frontier comes in slot order, so a run of entries shares fm (the frontier's
    mover, orbit minimum of its block), and every predecessor of the run is (X, fm) for a set X
    of 3 of fm's free points: where the run is long enough, the slots of all those C(free, 3)
    positions are tabled once (``_flying_table``) and each predecessor's slot is read from it
    by the colex rank of its X among the free points, in the first pass."""
    n, adj, mill_masks, point_mills, opts = g.n, g.adj, g.mill_masks, g.point_mills, g.opts
    mask_info = ix.mask_info
    empty_all = (1 << n) - 1
    flying = opts[OPT_FLY] != 0 and front_b == 3
    per = ix.binom[n - front_b, front_a]  # slots per mover set in the predecessors' subspace
    per_front = ix.binom[n - front_a, front_b]  # and in the frontier's: its blocks share fm
    tabled = ix.binom[n - front_a, 3] if flying else 0  # predecessors (X, fm) for one fm
    unmoves = 3 * (n - front_a - 3) + 1
    nitems = (nfront + ROWS - 1) // ROWS
    stride = preds.shape[0] // nrow.shape[0]
    for c in nb.prange(nitems):
        others = np.empty(ROWS, dtype=np.int64)  # fm of each entry: the predecessors' opponent
        ends = np.empty(ROWS, dtype=np.int64)  # where each entry's predecessors end in preds
        ranked = np.zeros(ROWS, dtype=np.bool_)  # the entry's predecessors are slots already
        table = np.empty(tabled, dtype=np.int64)
        free_index = np.empty(n, dtype=np.int64)
        points = np.empty(n, dtype=np.int64)
        table_fm = np.int64(-1)  # the fm that ``table`` holds
        seen_fm = np.int64(-1)  # the last fm whose run was looked at
        lo, hi = c * ROWS, min(nfront, (c + 1) * ROWS)
        k = c * stride
        for i in range(lo, hi):
            fm, fo = unrank_position(front_a, front_b, frontier[i], ix)
            others[i - lo] = fm
            if flying and fm != seen_fm:
                seen_fm = fm
                run = 1  # entries of this block in this work item
                while i + run < hi and frontier[i + run] // per_front == frontier[i] // per_front:
                    run += 1
                if run * unmoves >= 2 * tabled:  # (a table entry costs about what an un-move does)
                    _flying_table(fm, per, table, free_index, points, ix)
                    table_fm = fm
            use_table = flying and fm == table_fm
            ranked[i - lo] = use_table
            if not (opts[OPT_MILL_WINS] and men_in_mills(fm, mill_masks) != 0):  # else every predecessor had lost
                empty = empty_all & ~(fm | fo)
                # The predecessor's mover had to remove when forming a mill, unless nothing was removable.
                may_keep = mill_keeps_men(fm, g)
                t = fo
                while t:
                    lowt = t & -t
                    to = ctz(lowt)
                    t ^= lowt
                    if not may_keep and mills_formed(fo, to, point_mills) > 0:
                        continue
                    f = empty if flying else adj[to] & empty
                    while f:
                        lowf = f & -f
                        f ^= lowf
                        mover = (fo & ~lowt) | lowf
                        if use_table:
                            preds[k] = table[_rank3(mover, free_index, ix.binom)]
                        else:
                            prefetch(mask_info, mover)
                            preds[k] = mover
                        k += 1
                if opts[OPT_PASS] and not has_move(fo, fm, g, flying):
                    preds[k] = table[_rank3(fo, free_index, ix.binom)] if use_table else fo
                    k += 1
            ends[i - lo] = k
        k = c * stride
        w = k  # slots are written at w <= k, behind the movers still to be read
        for i in range(lo, hi):
            fm = others[i - lo]
            first = w
            if ranked[i - lo]:
                while k < ends[i - lo]:
                    preds[w] = preds[k]
                    k += 1
                    w += 1
            else:
                while k < ends[i - lo]:
                    mover = np.int64(preds[k])
                    preds[w] = slot_from(mover, fm, mask_info[mover], per, ix)
                    k += 1
                    w += 1
            if mask_info[fm] & SYMMETRIC and w - first > 1:
                # only a symmetry fixing fm makes two share a slot
                w = first + sort_unique(preds[first:w], w - first)
        nrow[c] = w - c * stride


@helper
def _flying_table(fm, per, table, free_index, points, ix):
    """table[r] = the slot of (X, fm) in (3, popcount(fm)) for the r-th set X of 3 of fm's free
    points in colex order; free_index[p] = the index of the free point p among them."""
    m = 0
    for p in range(ix.n):
        if not (fm >> p) & 1:
            free_index[p] = m
            points[m] = p
            m += 1
    r = 0
    for i3 in range(2, m):
        b3 = np.int64(1) << points[i3]
        for i2 in range(1, i3):
            b2 = b3 | (np.int64(1) << points[i2])
            for i1 in range(i2):
                mover = b2 | (np.int64(1) << points[i1])
                table[r] = slot_from(mover, fm, ix.mask_info[mover], per, ix)
                r += 1


@helper
def _rank3(x, free_index, binom):
    """The colex rank of a set of 3 free points among the free points (``free_index``)."""
    p1 = ctz(x)
    x &= x - 1
    p2 = ctz(x)
    x &= x - 1
    return binom[free_index[p1], 1] + binom[free_index[p2], 2] + binom[free_index[ctz(x)], 3]


@nb.njit(cache=True, parallel=True)
def bucket_predecessors(preds, nrow, nitems, shift, flat, starts, hist):
    """Counting sort of the predecessors that ``gather_predecessors`` packed (work items
    c < nitems) by slot range (``slot >> shift``) into ``flat``; bucket b is
    flat[starts[b]:starts[b + 1]]. Each bucket covers whole words of the frontier bitmap
    (shift >= 6), so that one thread can own it. The work items are split into hist.shape[0]
    parts, counted and scattered in parallel; the order within a bucket (by part, then by item)
    does not depend on the thread count."""
    nparts = hist.shape[0]
    nbuckets = starts.shape[0] - 1
    stride = preds.shape[0] // nrow.shape[0]
    per = (nitems + nparts - 1) // nparts
    for t in nb.prange(nparts):
        hist[t, :] = 0
        for c in range(t * per, min(nitems, (t + 1) * per)):
            for j in range(c * stride, c * stride + nrow[c]):
                hist[t, preds[j] >> shift] += 1
    total = 0
    for b in range(nbuckets):
        starts[b] = total
        for t in range(nparts):
            n = hist[t, b]
            hist[t, b] = total  # where part t's entries of bucket b go
            total += n
    starts[nbuckets] = total
    for t in nb.prange(nparts):
        for c in range(t * per, min(nitems, (t + 1) * per)):
            for j in range(c * stride, c * stride + nrow[c]):
                p = preds[j]
                b = p >> shift
                flat[hist[t, b]] = p
                hist[t, b] += 1


@nb.njit(cache=True, parallel=True)
def apply_predecessors(
    lvl, flat, starts, value, count, removals, decided, pred_a, pred_b, late, nlate, g, ix, fewer,
):
    """Decide the predecessors (of subspace (pred_a, pred_b)) of a frontier at level ``lvl``,
    bucketed by ``bucket_predecessors``: one thread per bucket, so no slot is touched by two
    threads, and the decisions do not depend on the order (every frontier entry has the same
    level). Returns how many were decided (see ``decide_range``)."""
    nbuckets = starts.shape[0] - 1
    outs = np.zeros(nbuckets, dtype=np.int64)
    for b in nb.prange(nbuckets):
        nlate[b] = 0
        if starts[b] < starts[b + 1]:
            outs[b], nlate[b] = decide_range(
                lvl, flat, starts[b], starts[b + 1], value, count, removals, decided, pred_a, pred_b, late, scratch(g.n),
                g, ix, fewer,
            )
    return outs.sum()


@nb.njit(cache=True)
def apply_predecessors_serial(
    lvl, flat, starts, value, count, removals, decided, pred_a, pred_b, late, nlate, g, ix, fewer,
):
    """``apply_predecessors`` on one thread, for small blocks, where waking the threads would
    cost more than the work."""
    buffers = scratch(g.n)
    out = 0
    for b in range(starts.shape[0] - 1):
        k, nlate[b] = decide_range(
            lvl, flat, starts[b], starts[b + 1], value, count, removals, decided, pred_a, pred_b, late, buffers, g, ix, fewer,
        )
        out += k
    return out


@helper
def decide_range(lvl, flat, lo, hi, value, count, removals, decided, pred_a, pred_b, late, buffers, g, ix, fewer):
    """Decide the predecessors flat[lo:hi]; mark the decided ones in the bitmap ``decided`` (the
    next level's frontier). A predecessor left with only removals to try gets its LAZY removal
    outcome now; a loss that must wait for a removal's later level (its removals code) is written
    to late[lo + i]. Returns (how many decided, how many late). ``buffers``: ``scratch``'s."""
    succ, syms, removed_syms, removed_canon = buffers
    new = lvl + 2  # value of a predecessor decided now: level lvl + 1
    wins = not wins_in(lvl)  # a move to a lost position: win
    nout = 0
    nl = 0
    for i in range(lo, hi):
        if i + AHEAD < hi:
            prefetch_slot(value, count, removals, flat[i + AHEAD], wins)
        p = flat[i]
        if value[p] != 0:
            continue
        if wins:
            value[p] = new
            add(decided, p)
            nout += 1
            continue
        if not may_lose(removals[p]):
            continue
        if count[p] == UNKNOWN:  # first reached by a win: count its successors now
            m, o = unrank_position(pred_a, pred_b, p, ix)
            count[p] = count_successors(pred_a, pred_b, m, o, succ, syms, g, ix)
        count[p] -= 1
        if count[p] != 0:
            continue
        if removals[p] == LAZY:
            m, o = unrank_position(pred_a, pred_b, p, ix)
            removals[p] = removal_outcome(pred_a, pred_b, m, o, removed_syms, removed_canon, g, ix, fewer)
            if removals[p] != 0 and removals[p] != NOLOSS and removals[p] > lvl + 1:
                late[lo + nl] = p  # every move left wins for the opponent, but later (at removals[p])
                nl += 1
                continue
        if may_lose(removals[p]) and removals[p] <= lvl + 1:
            value[p] = new  # every successor wins for the opponent: loss
            add(decided, p)
            nout += 1
    return nout, nl


@nb.njit(cache=True)
def append_late(late, starts, nlate, removals, deferred, ndef):
    """Append each bucket's late losses to ``deferred`` as (slot, level) (room checked by the caller)."""
    for b in range(nlate.shape[0]):
        for i in range(starts[b], starts[b] + nlate[b]):
            deferred[ndef, 0] = late[i]
            deferred[ndef, 1] = removals[late[i]]
            ndef += 1
    return ndef
