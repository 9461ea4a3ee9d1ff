"""One group of the moving phase (a subspace and its twin) solved over history-rule states.

The pair engine's method on states instead of positions: each state is first judged by its
moves (``init_half``): those that remove a man lead into smaller subspaces already solved and are
folded into ``ext`` (the quickest win they give, else the latest loss they allow, NOLOSS where one
draws); the others stay in the group and are counted, once per distinct successor state. Then
``level_half`` settles one level L (plies to the end) at a time: the states scheduled for L are
decided, and each one's predecessors in the twin half (un-moves, ``predecessors``) learn of it:
after a loss at L, a win at L + 1; after a win, one successor fewer, and where it was the last and
``ext`` allows it, a loss at the later of L + 1 and ``ext``'s loss.

An un-move must give the predecessor's records as well as its men (docs/history-rule.md, 8): the
successor's pending record is what the move made, so it fixes which man came from where (none:
every move that opens no mill); the predecessor's active record is any of its mover's live
records that does not forbid the move; its pending record is the successor's active one, or,
where there is none, none or a record on the point the move filled.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import is_canonical_pair, unrank_position
from ..jit import helper
from ..rules.bits import ctz, popcount
from ..rules.movegen import MAX_MOVES, apply_move, generate_moves
from ..engine.kernels.successors import mill_keeps_men
from ..values import DUP
from .records import closes, flies, forbids, list_records, live, made, point_of
from .states import CODE_MASK, K0, KEY_SHIFT, MAX_RECORDS, NKEYS, SLOTS, V0, admissible, state_number
from .tables import CODE_BITS

NOLOSS = 0xFFFE  # ext: a move into a solved subspace draws
NONE = 0xFFFF  # sched: nothing scheduled
MAX_PREDS = 1 << 16
# errors counted by the kernels (a successor or predecessor state that its store lacks)
ERR_SUCC, ERR_PRED, ERR_OVERFLOW = range(3)


@helper
def state_at(t, a, b, info, keys, ix):
    """(men of the side to move, of the opponent, ban, pending, canonical) of state t of half (a, b)."""
    slots = info[a, b, SLOTS]
    if t < slots:
        m, o = unrank_position(a, b, t, ix)
        return m, o, 0, 0, is_canonical_pair(m, o, ix)
    key = keys[info[a, b, K0] + t - slots]
    m, o = unrank_position(a, b, key >> KEY_SHIFT, ix)
    code = key & CODE_MASK
    return m, o, code >> CODE_BITS, code & ((1 << CODE_BITS) - 1), True


@helper
def fold(e, v):
    """``ext`` with one more successor in a solved subspace, of stored value v (its mover's)."""
    if v == 0:
        if e == 0 or (e != NOLOSS and e % 2 == 0):
            return NOLOSS
        return e
    lvl = v - 1
    if lvl % 2 == 0:  # the successor's mover loses: a win at lvl + 1
        w = lvl + 1
        if e == 0 or e == NOLOSS or e % 2 == 0 or w < e:
            return w
        return e
    loss = lvl + 1  # the successor's mover wins: a loss, at lvl + 1 at the earliest
    if e == 0:
        return loss
    if e != NOLOSS and e % 2 == 0 and loss > e:
        return loss
    return e


@nb.njit(cache=True)
def init_half(a, b, info, vals, keys, sinfo, svals, skeys, count, ext, sched, ht, ix, g, err):
    """Judge every state of half (a, b): DUP, ``ext``, ``count`` and what is scheduled."""
    rows = np.empty((MAX_MOVES, 5), dtype=np.int64)
    kids = np.empty(MAX_MOVES, dtype=np.int64)
    syms = np.empty(16, dtype=np.int64)
    v0 = info[a, b, V0]
    total = info[a, b, SLOTS] + info[a, b, NKEYS]
    full = ht.full
    for t in range(total):
        idx = v0 + t
        m, o, ban, pend, canon = state_at(t, a, b, info, keys, ix)
        if not canon:
            vals[idx] = DUP
            continue
        sched[idx] = NONE
        if g.opts[7] and (m | o) == full:  # a full board draws (full-board=draw)
            ext[idx] = NOLOSS
            continue
        n_rows = generate_moves(m, o, 0, 0, g, rows)
        legal = 0
        nk = 0
        e = 0
        for r in range(n_rows):
            frm, to = rows[r, 0], rows[r, 1]
            after, o2, _ = apply_move(m, o, 0, frm, to, rows[r, 2], rows[r, 3], rows[r, 4])
            if forbids(ban, frm, to, after, ht):
                continue
            legal += 1
            if popcount(o2) < 3:
                e = fold(e, 1)  # the opponent is left with 2 men: lost at once
                continue
            nban = live(pend, o2, after, ht)
            npend = made(m, frm, to, after, ht)
            if rows[r, 2] < 0:
                k = state_number(o2, after, nban, npend, info, keys, ht, ix, syms)
                if k < 0:
                    err[ERR_SUCC] += 1
                    continue
                kids[nk] = k
                nk += 1
            else:
                k = state_number(o2, after, nban, npend, sinfo, skeys, ht, ix, syms)
                if k < 0:
                    err[ERR_SUCC] += 1
                    continue
                e = fold(e, svals[k])
        if nk > 1:
            kids[:nk].sort()
        distinct = 0
        for i in range(nk):
            if i == 0 or kids[i] != kids[i - 1]:
                distinct += 1
        count[idx] = distinct
        ext[idx] = e
        if legal == 0:
            sched[idx] = 0  # blocked: lost
        elif e != 0 and e != NOLOSS and e % 2 == 1:
            sched[idx] = e  # a removal wins, unless a move inside wins sooner
        elif distinct == 0 and e != NOLOSS:
            sched[idx] = e  # every move removes, and each loses


@helper
def predecessors(m, o, ban, pend, info, keys, ht, ix, g, syms, bans, cands, out):
    """The states of the twin half whose moves lead to state (m, o, ban, pending) of this one
    without a removal, into ``out`` (repeats possible); how many, or -1 past the buffer."""
    x = o  # the side that moved
    y = m
    empty = ht.full & ~(m | o)
    fl = flies(x, ht)
    internal_mill = mill_keeps_men(y, g)  # a mill closed by the move left y's men as they were
    k = 0
    t = x
    while t:
        to = ctz(t)
        t &= t - 1
        if closes(x, to, ht) and not internal_mill:
            continue
        src = empty if fl else empty & ht.adj[to]
        while src:
            frm = ctz(src)
            src &= src - 1
            xp = (x & ~(np.int64(1) << to)) | (np.int64(1) << frm)
            if made(xp, frm, to, x, ht) != pend:
                continue
            # y's pending record before the move: this state's active one, or, where there is
            # none, none or one the move killed by filling its point
            nc = 0
            if ban != 0:
                if live(ban, y, xp, ht) != ban:
                    continue
                cands[0] = ban
                nc = 1
            else:
                cands[0] = 0
                nc = 1 + list_records(y, xp, ht, cands[1:])
                j = 1
                for i in range(1, nc):
                    if point_of(cands[i], ht) == to:
                        cands[j] = cands[i]
                        j += 1
                nc = j
            nbn = 1 + list_records(xp, y, ht, bans[1:])
            bans[0] = 0
            for i in range(nbn):
                xb = bans[i]
                if forbids(xb, frm, to, x, ht):
                    continue
                for j in range(nc):
                    if not admissible(xb, cands[j], ht):
                        continue
                    s = state_number(xp, y, xb, cands[j], info, keys, ht, ix, syms)
                    if k >= out.shape[0]:
                        return -1
                    out[k] = s
                    k += 1
    return k


@nb.njit(cache=True)
def level_half(a, b, level, info, vals, keys, count, ext, sched, ht, ix, g, err):
    """Decide the states of half (a, b) scheduled for ``level`` and tell their predecessors in
    the twin half; returns (states decided, the latest level scheduled)."""
    syms = np.empty(16, dtype=np.int64)
    bans = np.empty(MAX_RECORDS + 1, dtype=np.int64)
    cands = np.empty(MAX_RECORDS + 1, dtype=np.int64)
    preds = np.empty(MAX_PREDS, dtype=np.int64)
    v0 = info[a, b, V0]
    total = info[a, b, SLOTS] + info[a, b, NKEYS]
    decided = 0
    latest = -1
    win = level % 2 == 1
    for t in range(total):
        idx = v0 + t
        if sched[idx] != level or vals[idx] != 0:
            continue
        vals[idx] = level + 1
        decided += 1
        m, o, ban, pend, _ = state_at(t, a, b, info, keys, ix)
        k = predecessors(m, o, ban, pend, info, keys, ht, ix, g, syms, bans, cands, preds)
        if k < 0:
            err[ERR_OVERFLOW] += 1
            continue
        if k > 1:
            preds[:k].sort()
        for i in range(k):
            p = preds[i]
            if i > 0 and p == preds[i - 1]:
                continue
            if p < 0:
                err[ERR_PRED] += 1
                continue
            if vals[p] != 0:
                continue
            if not win:
                if level + 1 < sched[p] or sched[p] == NONE:
                    sched[p] = level + 1
                    latest = max(latest, level + 1)
            else:
                count[p] -= 1
                if count[p] == 0:
                    e = ext[p]
                    if e == 0 or (e != NOLOSS and e % 2 == 0):
                        sched[p] = max(level + 1, e)
                        latest = max(latest, sched[p])
    return decided, latest
