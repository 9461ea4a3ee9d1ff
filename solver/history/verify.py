"""A forward check of solved history-rule states, independent of the solver's un-moves and
levels: each state's stored value must be the one its legal moves give, from its successors'
stored values (docs/history-rule.md). With depths checked too, such local consistency is the
solution: a state lost in 0 plies is one without a legal move, and by induction on the plies
every win and loss is then right, so the draws are.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..rules.bits import popcount
from ..rules.movegen import MAX_MOVES, apply_move, generate_moves
from ..values import DUP
from .kernels import ERR_SUCC, state_at
from .records import forbids, live, made
from .states import NKEYS, SLOTS, V0, state_number

CHUNK = 1024


@nb.njit(cache=True, parallel=True)
def check_half(a, b, info, vals, keys, ht, ix, g, bad, err):
    """Mark in ``bad`` (one flag per state of half (a, b)) each state whose stored value is not
    the one its moves give; every subspace a move reaches must be in the store."""
    total = info[a, b, SLOTS] + info[a, b, NKEYS]
    v0 = info[a, b, V0]
    for c in nb.prange((total + CHUNK - 1) // CHUNK):
        rows = np.empty((MAX_MOVES, 5), dtype=np.int64)
        syms = np.empty(16, dtype=np.int64)
        for t in range(c * CHUNK, min(total, (c + 1) * CHUNK)):
            m, o, ban, pend, canon = state_at(t, a, b, info, keys, ix)
            stored = vals[v0 + t]
            if not canon:
                bad[t] = stored != DUP
                continue
            if g.opts[7] and (m | o) == ht.full:
                bad[t] = stored != 0
                continue
            n_rows = generate_moves(m, o, 0, 0, g, rows)
            legal = 0
            win = 0  # the earliest win (level), 0 for none
            loss = -1  # the latest loss
            draw = False
            for r in range(n_rows):
                frm, to = rows[r, 0], rows[r, 1]
                after, o2, _ = apply_move(m, o, 0, frm, to, rows[r, 2], rows[r, 3], rows[r, 4])
                if forbids(ban, frm, to, after, ht):
                    continue
                legal += 1
                if popcount(o2) < 3:
                    win = 1
                    continue
                k = state_number(o2, after, live(pend, o2, after, ht), made(m, frm, to, after, ht), info, keys, ht, ix, syms)
                if k < 0:
                    err[ERR_SUCC] += 1
                    continue
                v = vals[k]
                if v == 0:
                    draw = True
                elif (v - 1) % 2 == 0:
                    if win == 0 or v < win:
                        win = v  # the successor's mover loses in v - 1: a win in v
                elif v > loss:
                    loss = v
            if legal == 0:
                want = 1  # blocked: lost in 0
            elif win:
                want = win + 1
            elif draw:
                want = 0
            else:
                want = loss + 1
            bad[t] = stored != want
