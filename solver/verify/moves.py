"""The verify's moves of a run of positions that share the opponent's men, from the rules' own
tests rather than ``generate_moves``' list (the tier walk, ``placing_kernels``, and the moving
phase's twin walk, ``kernels``): the walks hold the opponent o fixed over a run and give each
position's men m as a set of o's free points, so that a move's successor (o, m - f + t) ranks by
three lookups, and the successors of a move that removes, (o - q, m - f + t), through the
symmetries of each o - q set up once per run. It is the verify's own (nothing of the engine's
kernels), and ``tests/test_verify_fast.py`` holds it to ``generate_moves``' list (the move
generator tested against OpenSpiel) position by position, with random successor values; the walks
take the list without it (``fast_ok`` False) and where it cannot serve (``TWO_MILLS``)."""

from __future__ import annotations

import numpy as np

from ..index.compact import compact_rank, point_table
from ..index.kernels import SYM_BITS, image
from ..index.slots import canon_setup, slot_with
from ..jit import helper, inlined
from ..rules.bits import ctz, popcount
from ..rules.movegen import OPT_FLY, OPT_FORFEIT, OPT_OPTIONAL, OPT_PER_MILL, mills_formed, removable_men

MISSED = -1  # expected value of a position with a successor in a tier the caller did not load
TWO_MILLS = -2  # a move closes two mills under one removal per mill (or the side passes): list the moves
NO_WIN = 1 << 20  # ``fold``'s quickest win while there is none: above every code, DUP's win too
TABLED_FROM = 2048  # runs this long or longer set up a removal's ``point_table`` (3 x 255 entries)


@helper
def fold(sv, win, loss, draw):
    """``_best`` without a branch the processor could mispredict, for the fast walks: the
    quickest win (an odd sv, the opponent's loss, is our win in sv + 1; ``NO_WIN`` while there is
    none), the longest loss (an even sv > 0), and whether a successor is a draw (sv = 0). DUP
    (odd) folds in as a win that no stored value equals: a mismatch, as with ``_best``."""
    odd = sv & 1
    win = min(win, sv + 1 + (1 - odd) * NO_WIN)
    loss = max(loss, (sv + 1) * ((1 - odd) * (sv != 0)))
    return win, loss, draw | (sv == 0)


@helper
def removal_setup(o, rem, qsyms, qn, qmc, qrep, ix):
    """For each removable man q of ``o`` (``rem``), in increasing order: the symmetries taking
    o - q to its orbit minimum (``canon_setup``), that minimum and its rank. Returns how many."""
    k = 0
    r = rem
    while r:
        q = ctz(r)
        r &= r - 1
        oq = o & ~(1 << q)
        qn[k] = canon_setup(oq, ix, qsyms[k])
        qmc[k] = image(ix.sym_img, qsyms[k, 0], oq)
        qrep[k] = ix.mask_info[oq] >> SYM_BITS
        k += 1
    return k


@helper
def setup_removals(o, tabled, qsyms, qn, qmc, qrep, qpts, g, ix):
    """A run's removals (``removal_setup`` of o's removable men), and where ``tabled`` the point
    table of each o - q without a symmetry of its own (``point_table``: o's free points to o - q's
    minimum's). Returns how many."""
    n = ix.n
    nq = removal_setup(o, removable_men(o, g.mill_masks, g.opts[OPT_FORFEIT]), qsyms, qn, qmc, qrep, ix)
    free = ((1 << n) - 1) & ~o
    for i in range(nq if tabled else 0):
        if qn[i] == 1:
            point_table(qpts[i], qsyms[i, 0], free, ((1 << n) - 1) & ~qmc[i], ix.sym_img)
    return nq


@inlined
def fold_moves(m, cm, o, ha, hb, rep_o, syms, nsyms, rem, twin, take, g, ix, win, loss, draw):
    """The moves of (m, o) (slides, or flights where the mover's men on the board and in hand are
    3) folded into (win, loss, draw) (``fold``'s way), and how many; the win is TWO_MILLS or
    MISSED where this cannot serve. ``cm``: m as a set of o's free points; ``rem``: the run's
    removals (``setup_removals``: nq, their symmetries, orbit minima, ranks and point tables, whether
    tabled, ``compact_rank``'s tables). A move f-t leaves the opponent's men as they are unless it
    closes a mill and o has removable men: then it leads to (o - q, m - f + t) in ``take``, tier
    (b - 1, a, hb, ha), for each of them (through the run's point table of o - q where it has one,
    else ``slot_with``), and under optional removal also to (o, m - f + t); else to (o, m - f + t)
    in ``twin``, tier (b, a, hb, ha), at the colex rank of cm with f's free-point index swapped for
    t's (``compact_rank``: three lookups), or by ``slot_with`` where o has symmetries of its own."""
    nq, qsyms, qn, qmc, qrep, qpts, tabled, ranks = rem
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    optional, per_mill = g.opts[OPT_OPTIONAL] != 0, g.opts[OPT_PER_MILL] != 0
    a = popcount(m)
    b = popcount(o)
    free = ((1 << n) - 1) & ~o
    empty = free & ~m
    per_tw = binom[n - b, a]  # slots per mover set of the twin, and of the tier after a removal
    per_q = binom[n - b + 1, a]
    flying = g.opts[OPT_FLY] != 0 and a + ha == 3
    moves = 0
    x = m
    while x:
        f = ctz(x)
        x &= x - 1
        mf = m & ~(np.int64(1) << f)
        cmf = cm & ~(np.int64(1) << popcount(free & ((np.int64(1) << f) - 1)))
        t = empty if flying else g.adj[f] & empty
        while t:
            to = ctz(t)
            t &= t - 1
            moves += 1
            m2 = mf | (np.int64(1) << to)
            if nq > 0:
                formed = mills_formed(m2, to, g.point_mills)
                if formed > 0:
                    if per_mill and formed > 1:
                        return np.int64(TWO_MILLS), loss, draw, moves
                    for i in range(nq):
                        if b - 1 + hb < 3:
                            sv = np.int64(1)  # the opponent is left with two men: a loss in 0 for them
                        else:
                            if tabled and qn[i] == 1:
                                tb = qpts[i]
                                s = qrep[i] * per_q + compact_rank(tb[0, m2 & 255] | tb[1, (m2 >> 8) & 255] | tb[2, (m2 >> 16) & 255], ranks)
                            else:
                                s = slot_with(qmc[i], qrep[i], m2, qsyms[i], qn[i], sym_img, per_q, binom)
                            if s >= take.shape[0]:
                                return np.int64(MISSED), loss, draw, moves
                            sv = np.int64(take[s])
                        win, loss, draw = fold(sv, win, loss, draw)
                    if not optional:
                        continue
            if nsyms == 1:
                s = rep_o * per_tw + compact_rank(cmf | (np.int64(1) << popcount(free & ((np.int64(1) << to) - 1))), ranks)
            else:
                s = slot_with(o, rep_o, m2, syms, nsyms, sym_img, per_tw, binom)
            if s >= twin.shape[0]:
                return np.int64(MISSED), loss, draw, moves
            win, loss, draw = fold(np.int64(twin[s]), win, loss, draw)
    return win, loss, draw, moves
