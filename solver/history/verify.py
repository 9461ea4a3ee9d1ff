"""A forward check of solved history-rule states, independent of the solver's un-moves and
levels: each state's stored value must be the one its legal moves give, from its successors'
stored values (docs/history-rule.md). With depths checked too, such local consistency is the
solution: a state lost in 0 plies is one without a legal move, and by induction on the plies
every win and loss is then right, so the draws are.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..jit import called, prefetch
from ..rules.bits import popcount
from ..rules.movegen import MAX_MOVES, OPT_FULL_DRAW, apply_move, generate_moves
from . import records, states
from .records import forbids, image_of, live, made, point_of
from .states import (
    B0, BLOCK_BITS, C0, ERR_SUCC, MAX_CODES, MAX_RECORDS, PEND_MASK, SLOTS, V0, find_code, first_state, mapped_sorted, pair_codes, scratch, slot_states,
)
from .tables import CODE_BITS

# the solver's inlined helpers, called here (``jit.called``; ``slot_states`` is called by both)
list_records = called(records.list_records)
canonical_position, canonical_with, mover_setup = called(states.canonical_position), called(states.canonical_with), called(states.mover_setup)
position_codes, state_number = called(states.position_codes), called(states.state_number)

CHUNK = 1024
ROW_CODES = 1 << 15  # the codes of the slots a position's moves lead into, listed once for its states
# a move's facts in ``check_half``: from, to, mover after, opponent after, the record it makes,
# its kind (LOST: the opponent is left 2 men; MISSING: its slot is not in the store; else
# RANKED), the successor slot's first state, the symmetry to its canonical form (-1: several,
# ranked the long way), the offset of its codes in ``lists`` (-1: not listed yet), how many
# states the slot holds (then how many codes listed), the canonical mover and opponent
LOST, MISSING, RANKED = 0, -1, 1


@nb.njit(cache=True, parallel=True)
def check_half(a, b, info, counts, bfirst, vals, ht, ix, g, bad, err):
    """Mark in ``bad`` (one flag per state of half (a, b), in its numbering) each state whose
    stored value is not the one its moves give; every subspace a move reaches must be in the
    store. A slot's moves, their successors' slots and those slots' codes are found once for all
    of its states; the successors' values once for each pending record among them (a successor's
    code is the smallest image of its records, ``states.canonical_state``'s, found among its
    slot's); each state then folds those of the moves its ban leaves."""
    slots = info[a, b, SLOTS]
    v0 = info[a, b, V0]
    c0 = info[a, b, C0]
    for c in nb.prange((slots + CHUNK - 1) // CHUNK):
        rows = np.empty((MAX_MOVES, 5), dtype=np.int64)
        facts = np.empty((MAX_MOVES, 12), dtype=np.int64)
        lists = np.empty(ROW_CODES, dtype=np.int64)
        syms, bans, pends, codes = scratch()
        syms2, bans2, pends2, own = scratch()
        msyms = np.empty(16, dtype=np.int64)
        succ = np.empty(MAX_MOVES, dtype=np.int64)  # a move's successor value under one pending record (-1: missing)
        order = np.empty(MAX_CODES + 1, dtype=np.int64)
        orecs = np.empty(MAX_RECORDS, dtype=np.int64)  # the next mover's records wherever their point is empty
        lo = c * CHUNK
        t = first_state(a, b, lo, info, counts, bfirst)
        for s in range(lo, min(slots, lo + CHUNK)):
            n = counts[c0 + s]
            if n == 0:
                continue
            m, o = slot_states(a, b, s, np.int64(n), ht, ix, bans2, pends2, syms2, own)
            n_orecs = -1  # (listed when a successor's codes first need them)
            if g.opts[OPT_FULL_DRAW] and (m | o) == ht.full:
                for jj in range(n):
                    bad[t + jj - v0] = vals[t + jj] != 0
                t += n
                continue
            n_rows = generate_moves(m, o, 0, 0, g, rows)
            # a move without a removal leaves the opponent's men as they are: the next mover, set up once
            oc_c, base, nm = mover_setup(o, a, ix, msyms)
            for r in range(n_rows):
                frm, to = rows[r, 0], rows[r, 1]
                after, o2, _ = apply_move(m, o, 0, frm, to, rows[r, 2], rows[r, 3], rows[r, 4])
                f = facts[r]
                f[0], f[1], f[2], f[3], f[4] = frm, to, after, o2, made(m, frm, to, after, ht)
                if popcount(o2) < 3:
                    f[5] = LOST
                    continue
                a2, b2 = popcount(o2), popcount(after)
                if info[a2, b2, V0] < 0:
                    f[5] = MISSING
                    continue
                if o2 == o:
                    oc, slot, nsym = canonical_with(oc_c, base, msyms, nm, after, ix, syms)
                    mc = oc_c
                else:
                    mc, oc, slot, nsym = canonical_position(o2, after, ix, syms)
                f[5] = RANKED
                f[6] = slot
                f[7] = syms[0] if nsym == 1 else -1
                f[8], f[10], f[11] = -1, mc, oc  # (its codes listed when a state first needs them)
                # the slot's count and block are scattered reads: asked for now, read below
                prefetch(counts, info[a2, b2, C0] + slot)
                prefetch(bfirst, info[a2, b2, B0] + (slot >> BLOCK_BITS))
            for r in range(n_rows):
                f = facts[r]
                if f[5] != RANKED:
                    continue
                a2, b2 = popcount(f[3]), popcount(f[2])
                slot = f[6]
                f[9] = counts[info[a2, b2, C0] + slot]
                if f[9] == 0:
                    f[5] = MISSING
                    continue
                f[6] = first_state(a2, b2, slot, info, counts, bfirst)
                prefetch(vals, f[6])
            # A successor depends on the state's pending record (it becomes the next mover's
            # ban) and not on its ban, which only forbids moves: the successors' values are found
            # once for each pending record of the slot's states, then each state folds the moves
            # its ban leaves. (Slots hold about 2.5 states at 9 men, and fewer pending records.)
            for jj in range(n):  # the states in order of their pending record (a few: insertion)
                key = own[jj] & PEND_MASK
                i = jj - 1
                while i >= 0 and (own[order[i]] & PEND_MASK) > key:
                    order[i + 1] = order[i]
                    i -= 1
                order[i + 1] = jj
            used = 0
            g0 = 0
            while g0 < n:
                pend = own[order[g0]] & PEND_MASK
                g1 = g0 + 1
                while g1 < n and (own[order[g1]] & PEND_MASK) == pend:
                    g1 += 1
                for r in range(n_rows):  # each move's successor value under this pending record
                    f = facts[r]
                    if f[5] == LOST:
                        succ[r] = 1  # the opponent is left 2 men: as a successor lost in 0
                        continue
                    if f[5] == MISSING:
                        succ[r] = -1
                        continue
                    nban = live(pend, f[3], f[2], ht)
                    if nban == 0 and f[4] == 0:
                        k = f[6]  # the plain state, first of its slot
                    else:
                        if f[7] >= 0 and f[8] < 0 and f[9] > 1:  # its slot's codes, listed once
                            if used + MAX_CODES + 1 <= lists.shape[0]:
                                if f[3] == o:
                                    # No removal: the next mover's men are o, as before the move, so
                                    # its records are o's, listed once for the position (they depend
                                    # on o alone), less those whose point the move fills; only the
                                    # mover's are listed again. One symmetry ranks the successor
                                    # (f[7] >= 0), so its records map by it and none other fixes it.
                                    if n_orecs < 0:
                                        n_orecs = list_records(o, 0, ht, orecs)
                                    nb_ = 0
                                    for i in range(n_orecs):
                                        if (f[2] >> point_of(orecs[i], ht)) & 1 == 0:
                                            bans2[nb_] = orecs[i]
                                            nb_ += 1
                                    np_ = list_records(f[2], o, ht, pends2)
                                    mapped_sorted(bans2, nb_, f[7], ht, bans)
                                    mapped_sorted(pends2, np_, f[7], ht, pends)
                                    f[9] = pair_codes(bans, nb_, pends, np_, syms, 0, ht, lists[used:])
                                else:
                                    f[9] = position_codes(f[10], f[11], ht, ix, bans, pends, syms, lists[used:])
                                f[8] = used
                                used += f[9]
                            else:
                                f[7] = -1  # out of room: the long way
                        if f[7] < 0:
                            k, _ = state_number(f[3], f[2], nban, f[4], info, counts, bfirst, ht, ix, syms, bans, pends, codes)
                        elif f[9] == 1:
                            k = -1  # a record, and the slot holds only the plain state
                        else:
                            j = find_code(lists[f[8]:], f[9], (image_of(nban, f[7], ht) << CODE_BITS) | image_of(f[4], f[7], ht))
                            k = f[6] + j if j >= 0 else -1
                    succ[r] = vals[k] if k >= 0 else -1
                for q in range(g0, g1):
                    jj = order[q]
                    ban = own[jj] >> CODE_BITS
                    legal = 0
                    win = 0  # the earliest win (as a stored code), 0 for none
                    loss = -1  # the latest loss
                    draw = False
                    for r in range(n_rows):
                        if ban != 0 and forbids(ban, facts[r, 0], facts[r, 1], facts[r, 2], ht):
                            continue
                        legal += 1
                        v = succ[r]
                        if v < 0:
                            err[ERR_SUCC] += 1  # a successor missing from the store
                        elif v == 0:
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
                    bad[t + jj - v0] = vals[t + jj] != want
                g0 = g1
            t += n
