"""Kernels of the tiers with men in hand: forward passes over the successors, and retrograde
analysis over an explicit graph where moves cycle between a tier and its twin (Lasker's rule).

A position of tier (a, b, ha, hb) is judged from its successors. Those in other tiers are solved
already: ``succ[t]`` holds their values, t = k for a placement that removes k men and 4 + k for a
move (or a pass) that does (``successor_kind``). Successors of kind t with ``internal[t]`` set lie
in the group being solved: they are counted (``tier_pass``), listed (``tier_edges``) and settled
by ``retrograde``. A successor whose side to move is left with fewer than 3 men is a loss in 0
for it, stored nowhere.

Codes as in ``solver.values`` (draw 0, plies + 1, DUP). Per slot ``tier_pass`` also leaves
``win_at``: the fewest plies of a win its solved successors give (0: none); ``loss_at``: the most
plies of the loss they allow if every one is a win (``NOLOSS``: one is a draw); ``nint``: its
successors inside the group.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYMMETRIC, is_canonical_pair, unrank_position
from ...index.slots import slot_from, slot_of
from ...jit import helper
from ...rules.bits import popcount
from ...rules.movegen import (
    MAX_MOVES,
    OPT_FULL_DRAW,
    OPT_MILL_WINS,
    apply_move,
    generate_moves,
    men_in_mills,
)
from ...values import DUP, MAX_PLIES
from .codes import CHUNK, NOLOSS, wins_in
from .prefetch import prefetch

KINDS = 8  # successor kinds: placement removing 0..3 men, move (or pass) removing 0..3
MOVE = 4


@helper
def successor_kind(frm, to, r1, r2, r3):
    k = 0  # (not a sum of comparisons: as plain Python, numpy adds two bools to a bool)
    for r in (r1, r2, r3):
        if r >= 0:
            k += 1
    if frm < 0 and to >= 0:
        return k  # a placement
    return MOVE + k  # a move, or the pass (to = -1)


@helper
def judge(win_at, loss_at):
    """The value code of a position from what its successors give."""
    if win_at:
        return win_at + 1
    if loss_at == NOLOSS:
        return 0
    return loss_at + 1


@helper
def _position(a, b, slot, ix):
    """(mover, opponent, canonical) of a slot: only a mover set with symmetries of its own can
    leave the slot's position non-canonical."""
    m, o = unrank_position(a, b, slot, ix)
    return m, o, ix.mask_info[m] & SYMMETRIC == 0 or is_canonical_pair(m, o, ix)


@nb.njit(cache=True, parallel=True)
def tier_pass(a, b, ha, hb, first, value, nint, win_at, loss_at, succ, internal, g, ix):
    """One pass over the slots ``first`` to ``first + len(value)`` of tier (a, b, ha, hb),
    ``value[i]`` for slot ``first + i`` (a part of a tier at a time keeps a cycling group's
    summaries small: ``cycles``). A position whose successors all lie in solved tiers gets its
    value; one with successors in the group gets ``nint`` > 0 and its value is left to
    ``retrograde``. Where no successor lies in the group, ``nint``, ``win_at`` and ``loss_at``
    may be one-element arrays: nothing is kept but the values. Returns the number of successors
    that found no stored position (a bug or a damaged input: the caller refuses the result)."""
    slots = value.shape[0]
    keep = nint.shape[0] == slots
    n = g.n
    full = (1 << n) - 1
    mask_info, binom = ix.mask_info, ix.binom
    nchunks = (slots + CHUNK - 1) // CHUNK
    bad = np.zeros(nchunks, dtype=np.int64)
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        kinds = np.empty(MAX_MOVES, dtype=np.int64)
        movers = np.empty(MAX_MOVES, dtype=np.int64)
        others = np.empty(MAX_MOVES, dtype=np.int64)
        ranks = np.empty(MAX_MOVES, dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if keep:
                nint[s] = 0
                win_at[s] = 0
                loss_at[s] = 0
            m, o, canonical = _position(a, b, first + s, ix)
            if not canonical:
                value[s] = DUP
                continue
            if g.opts[OPT_MILL_WINS] and men_in_mills(o, g.mill_masks) != 0:
                value[s] = 1  # the opponent's mill has won: a loss in 0
                continue
            if g.opts[OPT_FULL_DRAW] and (m | o) == full:
                value[s] = 0  # a full board is a draw (Twelve Men's Morris)
                if keep:
                    loss_at[s] = NOLOSS
                continue
            k = generate_moves(m, o, ha, hb, g, buf)
            if k == 0:
                value[s] = 1  # blocked: a loss in 0
                continue
            # Three passes over the successors, so that the loads of one pass overlap: the
            # successors' mover entries of the 64 MB mask_info table are asked for, then their
            # slots are ranked and their values asked for, then the values are read.
            best_win, worst_loss, count = 0, 0, 0
            for j in range(k):
                me2, opp2, hand2 = apply_move(m, o, ha, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
                t = successor_kind(buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
                if popcount(opp2) + hb < 3:
                    best_win = 1  # the opponent is left with two men: a win in 1
                    t = -1
                elif internal[t]:
                    count += 1
                    t = -1
                else:
                    prefetch(mask_info, opp2)
                kinds[j], movers[j], others[j] = t, opp2, me2
            for j in range(k):
                t = kinds[j]
                if t >= 0:
                    mv, ot = movers[j], others[j]
                    slot = slot_from(mv, ot, mask_info[mv], binom[n - popcount(mv), popcount(ot)], ix)
                    ranks[j] = slot
                    if slot < succ[t].shape[0]:
                        prefetch(succ[t], slot)
            for j in range(k):
                t = kinds[j]
                if t < 0:
                    continue
                slot = ranks[j]
                if slot >= succ[t].shape[0]:
                    bad[c] += 1
                    continue
                v = succ[t][slot]
                if v == DUP:
                    bad[c] += 1
                elif v == 0:
                    worst_loss = NOLOSS
                elif not wins_in(v - 1):  # a loss for the opponent
                    if best_win == 0 or v < best_win:
                        best_win = v  # our win: one ply more, v - 1 + 1
                elif worst_loss != NOLOSS and v > worst_loss:
                    worst_loss = v
            if keep:
                win_at[s] = best_win
                loss_at[s] = worst_loss
                nint[s] = count
            value[s] = judge(best_win, worst_loss) if count == 0 else 0
    return bad.sum()


@nb.njit(cache=True, parallel=True)
def tier_edges(a, b, ha, hb, value, nint, ptr, dst, twin_offset, internal, g, ix):
    """The successors inside the group of the slots with ``nint`` > 0: written to
    ``dst[ptr[s] ...]`` as numbers of the group (``twin_offset`` + the twin's slot)."""
    slots = value.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    mask_info = ix.mask_info
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        movers = np.empty(MAX_MOVES, dtype=np.int64)
        others = np.empty(MAX_MOVES, dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if nint[s] == 0:
                continue
            m, o = unrank_position(a, b, s, ix)
            k = generate_moves(m, o, ha, hb, g, buf)
            inside = 0  # (as in tier_pass: the mask_info entries are asked for before they are read)
            for j in range(k):
                me2, opp2, hand2 = apply_move(m, o, ha, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
                if popcount(opp2) + hb < 3:
                    continue
                if internal[successor_kind(buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])]:
                    prefetch(mask_info, opp2)
                    movers[inside], others[inside] = opp2, me2
                    inside += 1
            for j in range(inside):
                dst[ptr[s] + j] = twin_offset + slot_of(movers[j], others[j], ix)


@nb.njit(cache=True)
def retrograde(value, nint, win_at, loss_at, ptr, dst):
    """Settle the positions of a group left undecided by ``tier_pass`` (``nint`` > 0), level by
    level over the explicit successor graph (``dst[ptr[s]:ptr[s + 1]]``). A position is a win at
    L + 1 once a successor is a loss at L, or at ``win_at`` if no internal successor wins sooner;
    a loss once its last internal successor has become a win, at the later of that and
    ``loss_at``; otherwise a draw. Returns the longest level, or -1 past ``MAX_PLIES``."""
    size = value.shape[0]
    rptr = np.zeros(size + 1, dtype=np.int64)
    for s in range(size):
        for e in range(ptr[s], ptr[s + 1]):
            rptr[dst[e] + 1] += 1
    for s in range(size):
        rptr[s + 1] += rptr[s]
    fill = rptr[:-1].copy()
    src = np.empty(rptr[size], dtype=np.int64)
    for s in range(size):
        for e in range(ptr[s], ptr[s + 1]):
            d = dst[e]
            src[fill[d]] = s
            fill[d] += 1

    # Buckets of positions by level: a position enters at most twice (scheduled by a win of a
    # solved successor, and when decided), hence 2 * size entries.
    head = np.full(MAX_PLIES + 2, -1, dtype=np.int64)
    at = np.empty(2 * size + 1, dtype=np.int64)
    nxt = np.empty(2 * size + 1, dtype=np.int64)
    state = np.zeros(size, dtype=np.uint8)  # 0 undecided, 1 decided, 2 decided and propagated
    used = 0
    top = 0
    for s in range(size):
        v = value[s]
        if v == DUP:
            state[s] = 2
        elif nint[s] == 0:
            state[s] = 1
            if v != 0:
                at[used], nxt[used], head[v - 1] = s, head[v - 1], used
                used += 1
                top = max(top, v - 1)
        elif win_at[s]:
            w = win_at[s]
            at[used], nxt[used], head[w] = s, head[w], used
            used += 1
            top = max(top, w)
    level = 0
    while level <= top:
        i = head[level]
        while i >= 0:
            s = at[i]
            i = nxt[i]
            if state[s] == 0:
                state[s] = 1  # a win scheduled by a solved successor, none sooner
                value[s] = level + 1
            if state[s] == 2 or value[s] != level + 1:
                continue
            state[s] = 2
            for e in range(rptr[s], rptr[s + 1]):
                q = src[e]
                if state[q] != 0:
                    continue
                if not wins_in(level):  # s is a loss: q wins at level + 1
                    lv = level + 1
                else:
                    nint[q] -= 1
                    if nint[q] != 0 or win_at[q] != 0 or loss_at[q] == NOLOSS:
                        continue
                    lv = max(level + 1, np.int64(loss_at[q]))
                if lv > MAX_PLIES:
                    return -1
                state[q] = 1
                value[q] = lv + 1
                at[used], nxt[used], head[lv] = q, head[lv], used
                used += 1
                top = max(top, lv)
        level += 1
    return top
