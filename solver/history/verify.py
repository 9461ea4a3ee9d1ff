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
from ..rules.movegen import MAX_MOVES, OPT_FULL_DRAW, apply_move, generate_moves
from .kernels import ERR_SUCC
from .records import forbids, live, made
from .states import C0, PEND_MASK, SLOTS, V0, first_state, scratch, slot_states, state_number
from .tables import CODE_BITS

CHUNK = 1024


@nb.njit(cache=True, parallel=True)
def check_half(a, b, info, counts, bfirst, vals, ht, ix, g, bad, err):
    """Mark in ``bad`` (one flag per state of half (a, b), in its numbering) each state whose
    stored value is not the one its moves give; every subspace a move reaches must be in the
    store."""
    slots = info[a, b, SLOTS]
    v0 = info[a, b, V0]
    c0 = info[a, b, C0]
    for c in nb.prange((slots + CHUNK - 1) // CHUNK):
        rows = np.empty((MAX_MOVES, 5), dtype=np.int64)
        syms, bans, pends, codes = scratch()
        syms2, bans2, pends2, own = scratch()
        lo = c * CHUNK
        t = first_state(a, b, lo, info, counts, bfirst)
        for s in range(lo, min(slots, lo + CHUNK)):
            n = counts[c0 + s]
            if n == 0:
                continue
            m, o = slot_states(a, b, s, n, ht, ix, bans2, pends2, syms2, own)
            for jj in range(n):
                ban = own[jj] >> CODE_BITS
                pend = own[jj] & PEND_MASK
                stored = vals[t + jj]
                if g.opts[OPT_FULL_DRAW] and (m | o) == ht.full:
                    bad[t + jj - v0] = stored != 0
                    continue
                n_rows = generate_moves(m, o, 0, 0, g, rows)
                legal = 0
                win = 0  # the earliest win (as a stored code), 0 for none
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
                    k, _ = state_number(o2, after, live(pend, o2, after, ht), made(m, frm, to, after, ht), info, counts, bfirst, ht, ix, syms, bans, pends, codes)
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
                bad[t + jj - v0] = stored != want
            t += n
