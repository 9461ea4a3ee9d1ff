"""Numba kernel of ``morris verify``: every stored value against the best over its successors.

It recomputes each position's value from scratch with forward move generation (the kernel that
is tested against OpenSpiel) and the stored values of its successors. It shares no code with the
engine's un-move generation, counting or scheduling, so it checks them independently. Together
over all positions, these local checks determine every value and depth uniquely: by induction on
the depth, each stored win or loss is then right, and so is each draw.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import is_canonical_pair, rank_position, unrank_position
from ..rules.bits import popcount
from ..rules.movegen import MAX_MOVES, OPT_FULL_DRAW, OPT_MILL_WINS, generate_moves, men_in_mills
from ..values import DUP
from ..jit import helper


@helper
def expected_value(m, o, buf, twin, fewer1, fewer2, fewer3, b, g, ix):
    """The value (engine encoding) that (m, o) must have, given its successors' stored values:
    ``twin`` is (b, a), ``fewerK`` is (b - K, a), after a move that removes K men."""
    if g.opts[OPT_MILL_WINS] and men_in_mills(o, g.mill_masks) != 0:
        return 1
    if g.opts[OPT_FULL_DRAW] and (m | o) == (1 << g.n) - 1:
        return 0  # a full board is a draw (game_status says so too)
    k = generate_moves(m, o, 0, 0, g, buf)
    if k == 0:
        return 1
    best_win = 0
    worst_loss = 0
    draw = False
    for i in range(k):
        frm, to = buf[i, 0], buf[i, 1]
        m2 = m
        if to >= 0:
            if frm >= 0:
                m2 = m2 & ~(1 << frm)
            m2 = m2 | (1 << to)
        o2 = o
        for j in range(2, 5):
            if buf[i, j] >= 0:
                o2 = o2 & ~(1 << buf[i, j])
        left = popcount(o2)
        if left < 3:
            sv = 1  # the opponent has lost: a loss in 0 for them
        else:
            s = rank_position(o2, m2, ix)
            if left == b:
                sv = np.int64(twin[s])
            elif left == b - 1:
                sv = np.int64(fewer1[s])
            elif left == b - 2:
                sv = np.int64(fewer2[s])
            else:
                sv = np.int64(fewer3[s])
        if sv == 0:
            draw = True
        elif sv % 2 == 1:  # the opponent loses: we win one ply later
            if best_win == 0 or sv + 1 < best_win:
                best_win = sv + 1
        elif sv + 1 > worst_loss:
            worst_loss = sv + 1
    if best_win:
        return best_win
    if draw:
        return 0
    return worst_loss


@nb.njit(cache=True, parallel=True)
def verify_subspace(a, b, values, twin, fewer1, fewer2, fewer3, g, ix, bad, max_bad):
    """Check every slot of (a, b); return the number of mismatches and write up to ``max_bad``
    mismatched slots into ``bad`` (per block, so the first few of each block)."""
    slots = values.shape[0]
    block = 4096
    nblocks = (slots + block - 1) // block
    errors = np.zeros(nblocks, dtype=np.int64)
    first = np.full(nblocks, -1, dtype=np.int64)
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        for slot in range(c * block, min(slots, (c + 1) * block)):
            m, o = unrank_position(a, b, slot, ix)
            canonical = is_canonical_pair(m, o, ix)
            if not canonical:
                ok = values[slot] == DUP
            else:
                want = expected_value(m, o, buf, twin, fewer1, fewer2, fewer3, b, g, ix)
                ok = values[slot] == want
            if not ok:
                errors[c] += 1
                if first[c] < 0:
                    first[c] = slot
    k = 0
    for c in range(nblocks):
        if first[c] >= 0 and k < max_bad:
            bad[k] = first[c]
            k += 1
    return errors.sum()
