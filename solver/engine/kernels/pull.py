"""One level's decisions made forwards: each undecided position of the target half looks at its
own successors, instead of the frontier listing its predecessors.

Pushing (``propagate``) costs a few ranks and a random access per predecessor of every frontier
entry. Where a level's frontier is a large share of a half and few positions of the other half
are still open, most of that work lands on positions that are decided already, or hits one open
position many times (a flying side's position has up to 3 x 13 predecessors, and at its first
levels nearly every position of 9-3 is in the frontier). Then it is cheaper to visit the open
positions of the target and look at their successors, which all share the opponent's men and so
lie in one block of the frontier's half, in cache: a direction-optimizing search.

The decisions are those of ``propagate.decide_range`` exactly, with the same successors as
``successors.count_successors``:
- a frontier of losses at level L: an open position with a successor lost at L is won at L + 1;
- a frontier of wins at level L: an open position that may still lose, with a successor won at L
  (else the push would not have reached it either), gets as its count the successors not won at
  a level <= L; at 0 it is lost at L + 1, after its removals as in ``decide_range`` (a loss that
  must wait for a removal's later level is marked in ``late`` for the caller to defer).
Positions decided at L + 1 in the same step (by the twin's push) are not wins or losses at a level
<= L here, so the order of the two halves' steps does not matter. Rules where a mill wins at once
or a blocked side passes take the push (``usable``). A flying side's half is pulled in its twin's
order instead (``pull_flying``), with the same decisions (``settle``, ``read_successors``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYM_BITS, SYMMETRIC, image, unrank_position
from ...index.slots import canon_setup, slot_with
from ...jit import helper
from ...rules.bits import ctz
from ...rules.movegen import OPT_FLY, OPT_MILL_WINS, OPT_PASS, mills_formed
from ...values import DUP
from .codes import LAZY, NOLOSS, may_lose, wins_in
from .frontier import add, add_shared
from .removals import removal_outcome, removal_outcome_kept
from .successors import mill_keeps_men, scratch, sort_unique


def usable(opts) -> bool:
    """Whether these rules' decisions can be pulled (mill-wins and passes are pushed only)."""
    return not opts[OPT_MILL_WINS] and not opts[OPT_PASS]


@nb.njit(cache=True, parallel=True)
def count_open(value):
    """Positions not decided yet (value 0; DUP slots hold no position)."""
    n = value.shape[0]
    parts = 64
    out = np.zeros(parts, dtype=np.int64)
    for p in nb.prange(parts):
        k = 0
        for s in range(n * p // parts, n * (p + 1) // parts):
            k += value[s] == 0
        out[p] = k
    return out.sum()


@nb.njit(cache=True, parallel=True)
def pull_level(lvl, ta, tb, value, count, removals, decided, late, shift, svalue, g, ix, fewer):
    """Decide the open positions of the half (ta, tb) from the values ``svalue`` of its twin
    (tb, ta), whose frontier is at level ``lvl``. Ranges of 2**shift slots (whole words of the
    bitmaps) go to the threads. Returns (how many decided, how many marked late)."""
    n = value.shape[0]
    nranges = (n >> shift) + 1
    outs = np.zeros(nranges, dtype=np.int64)
    lates = np.zeros(nranges, dtype=np.int64)
    for r in nb.prange(nranges):
        lo = np.int64(r) << shift  # (int64: prange's uint64 index would compile _pull_range twice)
        outs[r], lates[r] = _pull_range(
            lvl, ta, tb, lo, min(n, lo + (1 << shift)), value, count, removals, decided, late, svalue, scratch(g.n), g, ix, fewer
        )
    return outs.sum(), lates.sum()


@helper
def _pull_range(lvl, ta, tb, lo, hi, value, count, removals, decided, late, svalue, buffers, g, ix, fewer):
    succ, syms = buffers[0], buffers[1]
    wins = not wins_in(lvl)  # the frontier lost at lvl: a move to it wins
    nout = 0
    nlate = 0
    for p in range(lo, hi):
        if value[p] != 0:
            continue
        if not wins and (count[p] == 0 or not may_lose(removals[p])):
            continue  # waiting for a removal's level, or a removal already wins or draws
        m, o = unrank_position(ta, tb, p, ix)
        left, hit = _successors(lvl, wins, ta, tb, m, o, svalue, succ, syms, g, ix)
        if hit == 0:
            continue  # no successor in this level's frontier: nothing changes
        d, late_one = settle(p, lvl, wins, left, ta, tb, m, o, value, count, removals, decided, late, buffers, False, g, ix, fewer)
        nout += d
        nlate += late_one
    return nout, nlate


@helper
def settle(p, lvl, wins, left, ta, tb, m, o, value, count, removals, decided, late, buffers, by_twin, g, ix, fewer):
    """The decision of the open position p = (m, o) that has a successor in the frontier at
    ``lvl``, ``left`` of its successors not won at a level <= lvl: (1, 0) where it is decided now,
    (0, 1) where it is marked late, else (0, 0). ``by_twin``: visited in the twin's order
    (``pull_flying``), where other threads mark slots of the same bitmap words at once and o's
    removals are set up once for all its positions."""
    new = lvl + 2  # value of a position decided now: level lvl + 1
    if wins:
        value[p] = new
        _mark(decided, p, by_twin)
        return 1, 0
    count[p] = left
    if left != 0:
        return 0, 0
    if removals[p] == LAZY:
        if by_twin:
            removals[p] = removal_outcome_kept(ta, tb, m, o, buffers[2], buffers[3], g, ix, fewer)
        else:
            removals[p] = removal_outcome(ta, tb, m, o, buffers[2], buffers[3], g, ix, fewer)
        if removals[p] != 0 and removals[p] != NOLOSS and removals[p] > lvl + 1:
            _mark(late, p, by_twin)  # every move left wins for the opponent, but later (at removals[p])
            return 0, 1
    if may_lose(removals[p]) and removals[p] <= lvl + 1:
        value[p] = new
        _mark(decided, p, by_twin)
        return 1, 0
    return 0, 0


@helper
def _mark(bits, p, shared):
    if shared:
        add_shared(bits, p)
    else:
        add(bits, p)


@helper
def _won_by(v, lvl):
    """A stored twin value that is a win for its side to move at a level <= lvl."""
    return v != 0 and v != DUP and v - 1 <= lvl and wins_in(v - 1)


@helper
def _successors(lvl, wins, ta, tb, m, o, svalue, succ, syms, g, ix):
    """(successors not won at a level <= lvl, successors in the frontier at lvl) of the position
    (m, o): its distinct slots of the twin reached by a move without removal, as
    ``count_successors`` counts them, listed in ``succ``. Looking for a win (``wins``), it stops
    at the first hit."""
    n, adj, point_mills, opts = g.n, g.adj, g.point_mills, g.opts
    sym_img, mask_info, binom = ix.sym_img, ix.mask_info, ix.binom
    empty = ((1 << n) - 1) & ~(m | o)
    flying = opts[OPT_FLY] != 0 and ta == 3
    symmetric = mask_info[o] & SYMMETRIC != 0
    nsyms = canon_setup(o, ix, syms)
    oc = image(sym_img, syms[0], o)
    rep_o = mask_info[o] >> SYM_BITS
    per_twin = binom[n - tb, ta]
    keep = -1  # whether a move closing a mill may keep o's men: asked once one does
    ns = 0
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
            if mills_formed(m2, ctz(lowt), point_mills) != 0:
                if keep < 0:
                    keep = 1 if mill_keeps_men(o, g) else 0
                if keep == 0:
                    continue  # it removes: a successor in a smaller subspace
            succ[ns] = slot_with(oc, rep_o, m2, syms, nsyms, sym_img, per_twin, binom)
            ns += 1
    if symmetric and ns > 1:
        ns = sort_unique(succ, ns)  # a symmetry of o makes two moves share a slot
    return read_successors(lvl, wins, succ, ns, svalue)


@helper
def read_successors(lvl, wins, succ, ns, svalue):
    """(successors not won at a level <= lvl, successors in the frontier at lvl) among the
    distinct twin slots succ[:ns]; looking for a win (``wins``), it stops at the first hit."""
    left = 0
    hit = 0
    for i in range(ns):
        v = svalue[succ[i]]
        if v == lvl + 1:
            hit += 1
            if wins:
                return 0, hit
        if not _won_by(v, lvl):
            left += 1
    return left, hit
