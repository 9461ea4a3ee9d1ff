"""One propagation step: predecessors of the decided frontier (in parallel), then their decisions (in
order, so that results do not depend on the thread count)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYMMETRIC, unrank_position
from ...rules.bits import ctz
from ...rules.movegen import MAX_MOVES, OPT_FLY, OPT_MILL_WINS, OPT_PASS, men_in_mills, mills_formed
from .codes import SYMS, LAZY, NOLOSS, UNKNOWN, may_lose
from .frontier import add
from .removals import removal_outcome
from .slots import slot_of
from .successors import count_successors, has_move, mill_keeps_men, sort_unique


@nb.njit(cache=True, parallel=True)
def gather_predecessors(frontier, nfront, front_a, front_b, front_value, preds, npreds, value, count, removals, g, ix):
    """For each frontier slot of subspace (front_a, front_b) (values ``front_value``; its position
    is (fm, fo)), the distinct slots of (front_b, front_a) (``value``, ``count``, ``removals``)
    whose mover reaches it by a move without removal (or by a pass). Writes preds[i, :npreds[i]].

    Where the frontier position is a win, an undecided predecessor that could still lose gets
    its successor count now, before ``apply_predecessors`` decrements it (two threads may compute
    the same count; they write the same number)."""
    n, adj, mill_masks, point_mills, opts = g.n, g.adj, g.mill_masks, g.point_mills, g.opts
    mask_info = ix.mask_info
    empty_all = (1 << n) - 1
    flying = opts[OPT_FLY] != 0 and front_b == 3
    nchunks = (nfront + 255) // 256
    for c in nb.prange(nchunks):
        syms = np.empty(SYMS, dtype=np.int64)
        succ = np.empty(MAX_MOVES, dtype=np.int64)
        for i in range(c * 256, min(nfront, (c + 1) * 256)):
            q = frontier[i]
            front_wins = (front_value[q] - 1) % 2 == 1
            fm, fo = unrank_position(front_a, front_b, q, ix)
            k = 0
            if opts[OPT_MILL_WINS] and men_in_mills(fm, mill_masks) != 0:
                npreds[i] = 0  # every predecessor had already lost
                continue
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
                    pred_m = (fo & ~lowt) | lowf
                    p = slot_of(pred_m, fm, ix)
                    preds[i, k] = p
                    k += 1
                    if front_wins and count[p] == UNKNOWN and value[p] == 0 and may_lose(removals[p]):
                        count[p] = count_successors(front_b, front_a, pred_m, fm, succ, syms, g, ix)
            # The pass repeats the lines above on purpose: moving them into a helper made the
            # chain about 20% slower (morris bench); this loop is the engine's hot path.
            if opts[OPT_PASS] and not has_move(fo, fm, g, flying):
                p = slot_of(fo, fm, ix)
                preds[i, k] = p
                k += 1
                if front_wins and count[p] == UNKNOWN and value[p] == 0 and may_lose(removals[p]):
                    count[p] = count_successors(front_b, front_a, fo, fm, succ, syms, g, ix)
            if mask_info[fm] & SYMMETRIC and k > 1:
                k = sort_unique(preds[i], k)  # only a symmetry fixing fm makes two share a slot
            npreds[i] = k


@nb.njit(cache=True)
def apply_predecessors(
    frontier, nfront, front_value, preds, npreds, value, count, removals, decided, nout, pred_a, pred_b, deferred, ndef,
    g, ix,
    fewer1, fewer2, fewer3,
):
    """Serial half of a propagation step: decide predecessors (of subspace (pred_a, pred_b)) and mark
    the decided ones in the bitmap ``decided`` (the next level's frontier), counting them in nout. A predecessor left with only removals to try gets its LAZY
    removal outcome now; a loss that must wait for a removal's later level goes to ``deferred``
    (slot, level). Returns (nout, ndef)."""
    n = g.n
    removed_syms = np.empty((n, SYMS), dtype=np.int64)
    removed_canon = np.empty((n, 3), dtype=np.int64)
    for i in range(nfront):
        lvl = front_value[frontier[i]] - 1
        new = lvl + 2  # value of a predecessor decided now: level lvl + 1
        for j in range(npreds[i]):
            p = preds[i, j]
            if value[p] != 0:
                continue
            if lvl % 2 == 0:
                value[p] = new  # a move to a lost position: win
                add(decided, p)
                nout += 1
                continue
            if not may_lose(removals[p]):
                continue
            count[p] -= 1
            if count[p] != 0:
                continue
            if removals[p] == LAZY:
                m, o = unrank_position(pred_a, pred_b, p, ix)
                removals[p] = removal_outcome(
                    pred_a, pred_b, m, o, removed_syms, removed_canon, g, ix, fewer1, fewer2, fewer3,
                )
                if removals[p] != 0 and removals[p] != NOLOSS and removals[p] > lvl + 1:
                    deferred[ndef, 0] = p  # every move left wins for the opponent, but later
                    deferred[ndef, 1] = removals[p]
                    ndef += 1
                    continue
            if may_lose(removals[p]) and removals[p] <= lvl + 1:
                value[p] = new  # every successor wins for the opponent: loss
                add(decided, p)
                nout += 1
    return nout, ndef
