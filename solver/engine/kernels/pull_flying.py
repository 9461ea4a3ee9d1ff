"""The pull (``kernels.pull``) of a flying side's half, visited in its twin's slot order.

Pulled in its own slot order, an open position (m, o) of the half (3, b), m the flying side's
three men, finds its up to 3 x (n - b - 3) successors (o, m') in one block of the twin (b, 3),
the C(n - b, 3) slots of o's orbit minimum: a different block for each position, read from far
away, a dozen cache lines of it, and o's entry of the 64 MB ``mask_info`` table besides. Here the
twin's blocks are taken in turn instead: for o an orbit minimum, every canonical slot (o, m) of
the block is one position (m, o) of the half (the colours swapped: one-to-one, as in
``verify``'s twin walk), and all their successors lie in that block, in cache. Each position
costs one scattered access to its own slot, asked for ahead. A successor's slot is the colex
rank of m' among o's free points, from the three free-point indices of m' (or ``slot_with``
where o has symmetries of its own). Nearly every position of a flying side's half is lost, and
each loss asks what its removals give: o less each removable man is set up once per block
(``removals.removal_outcome_kept``), and the values those removals read lie in one block of the
smaller subspace per man.

The decisions are ``pull._pull_range``'s (``pull.settle``), so the two orders give the same
values; the bitmaps are marked atomically, as positions of one word may fall to two threads.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import image, rank_position
from ...index.slots import canon_setup, slot_with
from ...jit import helper
from ...rules.bits import ctz
from ...rules.movegen import mills_formed
from .codes import may_lose, wins_in
from .prefetch import AHEAD, prefetch_slot
from .pull import read_successors, settle
from .removals import forget_removals
from .successors import mill_keeps_men, scratch, sort_unique

PARTS = 256  # work items: ranges of the twin's orbit minima


@nb.njit(cache=True, parallel=True)
def pull_level_by_twin(lvl, tb, value, count, removals, decided, late, svalue, g, ix, fewer):
    """``pull.pull_level`` for the half (3, tb) whose side to move flies, from the values
    ``svalue`` of its twin (tb, 3), whose frontier is at level ``lvl``. Returns (how many
    decided, how many marked late)."""
    n = ix.n
    nreps = ix.rep_offset[tb + 1] - ix.rep_offset[tb]
    per = ix.binom[n - tb, 3]
    parts = max(1, min(nreps, PARTS))
    outs = np.zeros(parts, dtype=np.int64)
    lates = np.zeros(parts, dtype=np.int64)
    for c in nb.prange(parts):
        buffers = scratch(n)
        fp = np.empty(n, dtype=np.int64)
        ms = np.empty(per, dtype=np.int64)
        cms = np.empty(per, dtype=np.int64)
        ps = np.empty(per, dtype=np.int64)
        for r in range(c * nreps // parts, (c + 1) * nreps // parts):
            d, k = _pull_block(lvl, tb, r, value, count, removals, decided, late, svalue, buffers, fp, ms, cms, ps, g, ix, fewer)
            outs[c] += d
            lates[c] += k
    return outs.sum(), lates.sum()


@helper
def _pull_block(lvl, tb, r, value, count, removals, decided, late, svalue, buffers, fp, ms, cms, ps, g, ix, fewer):
    """The positions of the half whose twin slots form block r (orbit minimum o): their own
    slots first (``ps``, with m and its free-point set ``cms``), then each open one decided."""
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    succ, syms = buffers[0], buffers[1]
    o = np.int64(ix.reps[ix.rep_offset[tb] + r])
    nsyms = canon_setup(o, ix, syms)
    per = binom[n - tb, 3]
    nfree = 0
    for q in range(n):
        if not (o >> q) & 1:
            fp[nfree] = q
            nfree += 1
    k = 0
    for x in range(2, nfree):  # the 3-sets of free points in colex order: i < j < x
        for j in range(1, x):
            for i in range(j):
                m = (np.int64(1) << fp[i]) | (np.int64(1) << fp[j]) | (np.int64(1) << fp[x])
                # (o, m) is canonical in the twin when m is the least of its images under o's
                # stabiliser; the other slots hold DUP
                least = True
                for s in range(1, nsyms):
                    if image(sym_img, syms[s], m) < m:
                        least = False
                        break
                if least:
                    ms[k] = m
                    cms[k] = (1 << i) | (1 << j) | (1 << x)
                    ps[k] = rank_position(m, o, ix)
                    k += 1
    wins = not wins_in(lvl)  # the frontier lost at lvl: a move to it wins
    forget_removals(o, buffers[3], g)  # o's removals, set up once for the block (``settle``)
    keep = mill_keeps_men(o, g)  # a move closing a mill may leave o's men: it stays in the twin
    out = 0
    nlate = 0
    for t in range(k):
        if t + AHEAD < k:
            prefetch_slot(value, count, removals, ps[t + AHEAD], wins)
        p = ps[t]
        if value[p] != 0:
            continue
        if not wins and (count[p] == 0 or not may_lose(removals[p])):
            continue  # waiting for a removal's level, or a removal already wins or draws
        m = ms[t]
        left, hit = _successors(lvl, wins, m, cms[t], o, r, per, nsyms, syms, keep, fp, nfree, svalue, succ, g, ix)
        if hit == 0:
            continue
        d, late_one = settle(p, lvl, wins, left, 3, tb, m, o, value, count, removals, decided, late, buffers, True, g, ix, fewer)
        out += d
        nlate += late_one
    return out, nlate


@helper
def _successors(lvl, wins, m, cm, o, r, per, nsyms, syms, keep, fp, nfree, svalue, succ, g, ix):
    """``pull._successors`` of (m, o), m flying, cm its free-point indices: each flight of a man
    to an empty point, less those that close a mill and must remove."""
    point_mills, binom = g.point_mills, ix.binom
    base = r * per
    ns = 0
    f = cm
    while f:
        fi = ctz(f)
        f &= f - 1
        rest = cm & ~(np.int64(1) << fi)
        for ti in range(nfree):
            if (cm >> ti) & 1:
                continue
            to = fp[ti]
            m2 = (m & ~(np.int64(1) << fp[fi])) | (np.int64(1) << to)
            if not keep and mills_formed(m2, to, point_mills) != 0:
                continue  # it removes: a successor in a smaller subspace
            if nsyms == 1:
                c2 = rest | (np.int64(1) << ti)
                a0 = ctz(c2)
                c2 &= c2 - 1
                a1 = ctz(c2)
                c2 &= c2 - 1
                s = base + a0 + binom[a1, 2] + binom[ctz(c2), 3]  # colex rank: C(a0, 1) + C(a1, 2) + C(a2, 3)
            else:
                s = slot_with(o, r, m2, syms, nsyms, ix.sym_img, per, binom)
            succ[ns] = s
            ns += 1
    if nsyms > 1 and ns > 1:
        ns = sort_unique(succ, ns)  # a symmetry of o makes two flights share a slot
    return read_successors(lvl, wins, succ, ns, svalue)
