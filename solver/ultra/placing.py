"""Draw ranks of the tiers with men in hand without a graph: one pass a tier, reading its
successors' (rank, tempo), as the engine's placement passes read solved tiers.

Outside Lasker's rule no move of a tier with men in hand comes back to it (placements empty the
hands, removals the board; a side with no man in hand moves into its twin, whose mover then
places), so its group is the tier alone and every successor is ranked before it. The explicit
analysis (``ranks.rank_draws``) then pushes every drawing move's value on its queue and pops them
in Malom's order: the first good one decides the position, else the last bad one when the count
ends, and a move that settles at the tier's own value keeps the count from ever ending. That is
the best of the drawing moves' values by ``ranks.better``: the largest rank, then the smallest
tempo, a move settling at the tier's own value being (own value, 0), which is also what a draw
with no drawing move (a full board) keeps. ``placing_pass`` takes that best directly.

Successors are numbered as the engine's placing kernels number them (``tiers.successor_kinds``):
kind k, a placement that removes k men, into (b - k, a + 1, hb, ha - 1); kind 4 + k, a move (or
a pass) that removes k, into (b - k, a, hb, ha). ``succ_rank[kind]`` and ``succ_tempo[kind]``
hold that tier's arrays (NO_RANK where no draw; empty where no move of the tier leads there).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..engine.kernels.codes import CHUNK
from ..index.kernels import rank_position, unrank_position
from ..rules.bits import popcount
from ..rules.movegen import MAX_MOVES, ONGOING, apply_move, game_status, generate_moves
from .implicit import NO_RANK, move_rank

MOVE = 4  # the first kind of a move (``tiers.successor_kinds``)


@nb.njit(cache=True, parallel=True)
def placing_pass(a, b, ha, hb, values, own_value, succ_rank, succ_tempo, rank, tempo, g, ix):
    """(rank, tempo) of every slot of tier (a, b, ha, hb) into ``rank`` and ``tempo``: a draw
    (``values`` 0) the best value of its drawing moves, (own_value, 0) where it has none; NO_RANK,
    0 where the slot is no draw. Returns the number of moves that found no slot in their
    successor's arrays (0, or a successor tier not ranked: the caller refuses the result)."""
    slots = values.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    bad = np.zeros(nchunks, dtype=np.int64)
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            rank[s] = NO_RANK
            tempo[s] = 0
            if values[s] != 0:
                continue
            rank[s] = own_value
            m, o = unrank_position(a, b, s, ix)
            if game_status(m, o, ha, hb, g, buf) != ONGOING:
                continue  # a draw with no move: settles here
            nm = generate_moves(m, o, ha, hb, g, buf)
            found = False
            br = bt = 0
            for j in range(nm):
                m2, o2, h2 = apply_move(m, o, ha, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
                cy = popcount(o2)
                if cy + hb < 3:
                    continue  # the opponent is left with two men: a win, never a draw's move
                kind = (MOVE if h2 == ha else 0) + b - cy
                q = rank_position(o2, m2, ix)
                if q >= succ_rank[kind].shape[0]:
                    bad[c] += 1
                    continue
                if succ_rank[kind][q] == NO_RANK:
                    continue  # a win or a loss: not a drawing move
                r, t = move_rank(succ_rank[kind][q], succ_tempo[kind][q], own_value)
                if not found or r > br or (r == br and t < bt):
                    found, br, bt = True, r, t
            if found:
                rank[s] = br
                tempo[s] = bt
    return bad.sum()
