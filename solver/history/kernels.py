"""One group of the moving phase (a subspace and its twin) solved over history-rule states.

The method of ``engine.kernels.cycles`` on states instead of positions, three bytes a state:
``value`` (the stored code once decided; a later code while a decision is scheduled; while
undecided, what its removals give, at PEND_BASE and above) and ``count`` (the
distinct successor states inside the group not yet known to be wins for the opponent: its moves
inside, counted when it is judged, where the next mover's men have no symmetry (then each move
leads to a state of its own); else UNKNOWN until a win first reaches the state, which ranks its
successors then, ``count_slot``).

``init_group`` judges every state by its moves: those that remove a man lead into smaller
subspaces already solved (the input store); a win among them is scheduled at once (unless a
move inside wins sooner), and so is a state whose every move removes. The others keep what their
removals give in the value itself (none, a draw, or the latest loss), the only time it matters
being when the last successor inside has become a win for the opponent: no array more, and the
removals are not ranked a second time. A state one of whose removals draws can no longer lose:
its successors inside are never counted. ``level_step`` then settles one level L (plies to the end):
the states whose code is L + 1 are found by a scan of the parts (1,024 slots of a half) that hold
any, and each one's predecessors in the twin half (un-moves, ``predecessors``) learn of it: after
a loss at L, a win at L + 1 (an atomic minimum: another thread may schedule the same one); after
a win, one successor fewer (counted first if still UNKNOWN, stored by an atomic compare-exchange
where two threads count at once; then an atomic decrement, and the thread that takes the last
decides), and a loss at the later of L + 1 and the removals' latest loss. One level is all wins or all losses, so
these two never meet on a state.

An un-move must give the predecessor's records as well as its men (docs/history-rule.md, 8): the
successor's pending record is what the move made, so it fixes which man came from where (none:
every move that opens no mill); the predecessor's active record is any of its mover's live
records that does not forbid the move; its pending record is the successor's active one, or,
where there is none, none or a record on the point the move filled.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..engine.kernels.atomic import atomic_cas, atomic_fetch_sub, atomic_min
from ..engine.kernels.cycles import NONE, merge_touched
from ..engine.kernels.successors import mill_keeps_men
from ..index.kernels import SYMMETRIC
from ..jit import helper, inlined, prefetch
from ..rules.bits import ctz, popcount
from ..rules.movegen import MAX_MOVES, OPT_FULL_DRAW, apply_move, generate_moves
from .records import closes, flies, forbids, image_of, list_records, live, made, point_of
from .states import (
    B0, BLOCK_BITS, C0, ERR_OVERFLOW, ERR_PRED, ERR_SUCC, MAX_CODES, MAX_RECORDS, PEND_MASK, V0, admissible, canonical_position,
    canonical_with, first_state, mapped_sorted, mover_setup, position_codes, rank_in_lists, scratch, slot_states, state_number,
)
from .tables import CODE_BITS

NOLOSS = 0xFFFE  # a removal's outcome: one of them draws
# an undecided state's value: what its removals give, above every code a level takes
PEND_BASE = 0xC000  # + the latest loss they allow (an even level; + 0: no removal)
PEND_NOLOSS = 0xFFFC  # one of them draws: never a loss
PENDING = 0xFFFD  # nothing known (a full board): a draw if it stays so
MAX_PEND_LEVEL = PEND_NOLOSS - PEND_BASE  # the levels an undecided value holds (solve.py checks each group's)
PART = 1024  # slots of a half per part
MAX_PREDS = 1 << 14
MAX_UNMOVES = 1024  # un-moves of one position (24 points x 23 flights at most)
MAX_COUNT = 250
UNKNOWN = 255  # count: not computed yet (a win reaching the state computes it)
assert PENDING > PEND_NOLOSS > PEND_BASE


@helper
def removals_of(v):
    """The latest loss the removals of an undecided state of value v allow (0: none), where
    one of them does not draw (v not PEND_NOLOSS)."""
    return 0 if v == PENDING else v - PEND_BASE


@nb.njit(cache=True, parallel=True)
def finish(value):
    """What stays undecided is a draw."""
    for s in nb.prange(value.shape[0]):
        if value[s] >= PEND_BASE:
            value[s] = 0


@helper
def fold(e, v):
    """A removal's outcome ``e`` (0 none, NOLOSS, else a level: odd the quickest win, even the
    latest loss) with one more successor in a solved subspace, of stored value v (its mover's)."""
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


ROW_LISTS = 1 << 15  # records of the successors of one position, for ranking its states' successors


@nb.njit(cache=True)
def judge_scratch():
    """A thread's buffers for ``judge_position``: the moves (rows), per kept row its facts
    (``facts``: from, to, mover after, opponent after, record made, kind, first state, symmetry,
    list offset, lengths), the records of the positions its removals lead to (``lists``) and a
    side's records (``tmp``)."""
    return (
        np.empty((MAX_MOVES, 5), dtype=np.int64), np.empty((MAX_MOVES, 11), dtype=np.int64),
        np.empty(ROW_LISTS, dtype=np.int64), np.empty(MAX_RECORDS, dtype=np.int64),
    )


@helper
def judge_position(m, o, n, own, out_v, out_c, t, rows, facts, lists, tmp, info, counts, bfirst, sinfo, scounts, sbfirst,
                   svalues, ht, ix, g, syms, bans, pends, codes, err):
    """(value, count) at the start of each of the n states (codes ``own``) of position (m, o),
    into out_v/out_c[t ...]: the moves generated and the positions their removals lead to ranked
    once for all of them; each state then drops what its ban forbids, places those successors
    among their positions' states by the records' lists (``rank_in_lists``) and schedules the
    removals' outcome where it decides. Its moves inside the group are only counted: that is its
    count where o has no symmetry, else the count waits for the first win to reach the state
    (``count_slot``)."""
    if g.opts[OPT_FULL_DRAW] and (m | o) == ht.full:
        for j in range(n):
            out_v[t + j] = PENDING  # a full board draws (full-board=draw)
            out_c[t + j] = 0
        return
    prefetch(ix.mask_info, o)  # (read below: whether o has a symmetry)
    n_rows = generate_moves(m, o, 0, 0, g, rows)
    used = 0
    for r in range(n_rows):
        frm, to = rows[r, 0], rows[r, 1]
        after, o2, _ = apply_move(m, o, 0, frm, to, rows[r, 2], rows[r, 3], rows[r, 4])
        f = facts[r]
        f[0], f[1], f[2], f[3], f[4] = frm, to, after, o2, made(m, frm, to, after, ht)
        if popcount(o2) < 3:
            f[5] = 0  # the opponent is left with 2 men: lost at once
            continue
        f[5] = 1 if rows[r, 2] < 0 else 2
        if f[5] == 1:
            continue  # inside the group: counted below, or when a win first reaches the state (``count_slot``)
        mc, oc, slot, nsym = canonical_position(o2, after, ix, syms)
        a2, b2 = popcount(o2), popcount(after)
        if sinfo[a2, b2, V0] < 0 or scounts[sinfo[a2, b2, C0] + slot] == 0:
            err[ERR_SUCC] += 1
            f[5] = -1
            continue
        f[6] = first_state(a2, b2, slot, sinfo, scounts, sbfirst)
        f[7] = syms[0] if nsym == 1 else -1
        if nsym == 1:
            nm = list_records(o2, after, ht, tmp)
            if used + nm + MAX_RECORDS > lists.shape[0]:
                f[7] = -1  # out of room: rank its states the long way
                continue
            mapped_sorted(tmp, nm, syms[0], ht, lists[used:])
            no = list_records(after, o2, ht, tmp)
            mapped_sorted(tmp, no, syms[0], ht, lists[used + nm :])
            f[8], f[9], f[10] = used, nm, no
            used += nm + no
    # The moves inside lead to distinct states where no symmetry but the identity fixes o, the
    # next mover's men: the successors (o, m - frm + to) are distinct positions, and only a
    # symmetry fixing o could make two of them one slot (as ``successors.count_internal`` has it)
    distinct = (ix.mask_info[o] & SYMMETRIC) == 0
    for j in range(n):
        ban = own[j] >> CODE_BITS
        pend = own[j] & PEND_MASK
        legal = 0
        inside = 0
        e = 0
        for r in range(n_rows):
            f = facts[r]
            if forbids(ban, f[0], f[1], f[2], ht):
                continue
            legal += 1
            if f[5] <= 1:
                if f[5] == 0:
                    e = fold(e, 1)
                elif f[5] == 1:
                    inside += 1
                continue
            nban = live(pend, f[3], f[2], ht)
            if f[7] >= 0:
                k = f[6] + rank_in_lists(image_of(nban, f[7], ht), image_of(f[4], f[7], ht), lists[f[8]:], f[9], lists[f[8] + f[9]:], f[10], ht)
            else:
                k, _ = state_number(f[3], f[2], nban, f[4], sinfo, scounts, sbfirst, ht, ix, syms, bans, pends, codes)
            if k < 0:
                err[ERR_SUCC] += 1
                continue
            e = fold(e, svalues[k])
        if legal == 0:
            v, c = 1, 0  # blocked: lost in 0
        elif e != 0 and e != NOLOSS and e % 2 == 1:
            v, c = e + 1, UNKNOWN  # a removal wins, unless a move inside wins sooner
        elif inside == 0:
            v, c = (PENDING if e == NOLOSS else e + 1), 0
        else:
            # what the removals give, kept for the moment the count ends; the count itself is the
            # moves inside where the next mover's men have no symmetry (``distinct``), else made
            # when a win first reaches the state (``count_slot``)
            v, c = (PEND_NOLOSS if e == NOLOSS else PEND_BASE + e), (inside if distinct else UNKNOWN)
        out_v[t + j] = v
        out_c[t + j] = c


@helper
def insert_distinct(kids, nk, k):
    """``kids[:nk]`` ascending and distinct with k added: how many now."""
    i = nk
    while i > 0 and kids[i - 1] > k:
        i -= 1
    if i > 0 and kids[i - 1] == k:
        return nk
    for q in range(nk, i, -1):
        kids[q] = kids[q - 1]
    kids[i] = k
    return nk + 1


@helper
def count_slot(x, y, rows, kids, facts, lists, tmp, own, msyms, info, counts, bfirst, value, count, ht, ix, g, syms, bans, pends, codes):
    """The distinct successor states inside the group (what a state's count starts from when a
    win first reaches it) of every state of the position (x, y) still undecided and UNKNOWN (but
    those that cannot lose: PEND_NOLOSS), stored
    (an atomic compare-exchange: another thread may store the same): the moves generated and
    their positions ranked once for all of the slot's states, as ``judge_position`` does; each
    state then drops what its ban forbids and places its successors among their positions'
    states (``rank_in_lists``). The siblings of the state a win reached are mostly reached too,
    so their counts are rarely wasted. -1 where a successor is missing, -2 past MAX_COUNT."""
    mc, oc, slot, _ = canonical_position(x, y, ix, syms)
    a, b = popcount(x), popcount(y)
    n = counts[info[a, b, C0] + slot]
    first = first_state(a, b, slot, info, counts, bfirst)
    own[0] = 0
    if n > 1:
        position_codes(mc, oc, ht, ix, bans, pends, syms, own)
    if info[b, a, V0] < 0:
        return -1
    n_rows = generate_moves(mc, oc, 0, 0, g, rows)
    # every move without a removal leaves the opponent's men as they are: the next mover, set up once
    # (a move's facts: from, to, mover after, opponent after, the record it makes, its slot, the
    # slot's first state, the symmetry to it or -1, then its records' lists: offset, lengths)
    oc_c, base, nsyms = mover_setup(oc, a, ix, msyms)
    kept = 0
    used = 0
    c0, b0 = info[b, a, C0], info[b, a, B0]
    for r in range(n_rows):
        if rows[r, 2] >= 0:
            continue  # a removal: into a smaller subspace, not counted
        frm, to = rows[r, 0], rows[r, 1]
        after, o2, _ = apply_move(mc, oc, 0, frm, to, -1, -1, -1)
        f = facts[kept]
        kept += 1
        f[0], f[1], f[2], f[3], f[4] = frm, to, after, o2, made(mc, frm, to, after, ht)
        _, slot2, nsym = canonical_with(oc_c, base, msyms, nsyms, after, ix, syms)
        f[5] = slot2
        f[7] = syms[0] if nsym == 1 else -1
        f[8] = -1  # its records' lists: listed when a state first needs them
        # the slot's count and block are scattered reads: asked for now, read below
        prefetch(counts, c0 + slot2)
        prefetch(bfirst, b0 + (slot2 >> BLOCK_BITS))
    for r in range(kept):
        f = facts[r]
        if counts[c0 + f[5]] == 0:
            return -1
        f[6] = first_state(b, a, f[5], info, counts, bfirst)
    for j in range(n):
        v = value[first + j]
        if v < PEND_BASE or v == PEND_NOLOSS or count[first + j] != UNKNOWN:
            continue
        ban = own[j] >> CODE_BITS
        pend = own[j] & PEND_MASK
        nk = 0
        for r in range(kept):
            f = facts[r]
            if forbids(ban, f[0], f[1], f[2], ht):
                continue
            nban = live(pend, f[3], f[2], ht)
            if nban == 0 and f[4] == 0:
                k = f[6]  # the plain state, first of its slot
            else:
                if f[7] >= 0 and f[8] < 0:
                    nm = list_records(f[3], f[2], ht, tmp)
                    if used + nm + MAX_RECORDS > lists.shape[0]:
                        f[7] = -1  # out of room: rank its states the long way
                    else:
                        mapped_sorted(tmp, nm, f[7], ht, lists[used:])
                        no = list_records(f[2], f[3], ht, tmp)
                        mapped_sorted(tmp, no, f[7], ht, lists[used + nm :])
                        f[8], f[9], f[10] = used, nm, no
                        used += nm + no
                if f[7] >= 0:
                    k = f[6] + rank_in_lists(image_of(nban, f[7], ht), image_of(f[4], f[7], ht), lists[f[8]:], f[9], lists[f[8] + f[9]:], f[10], ht)
                else:
                    k, _ = state_number(f[3], f[2], nban, f[4], info, counts, bfirst, ht, ix, syms, bans, pends, codes)
                    if k < 0:
                        return -1
            nk = insert_distinct(kids, nk, k)  # distinct successors: kept in increasing order as they come
        if nk > MAX_COUNT:
            return -2
        atomic_cas(count, first + j, UNKNOWN, nk)
    return 0


@nb.njit(cache=True, parallel=True)
def init_group(parts, spread, info, counts, bfirst, value, count, sinfo, scounts, sbfirst, svalues, lowest, ht, ix, g, err):
    """Judge every state of the parts ``spread`` lists (``spread_order``, or a run of it: the
    parts are independent); ``lowest[c]``: the lowest code part c schedules."""
    for r in nb.prange(spread.shape[0]):
        c = spread[r]
        a, b, lo, hi = parts[c, 0], parts[c, 1], parts[c, 2], parts[c, 3]
        rows, facts, lists, tmp = judge_scratch()
        syms, bans, pends, codes = scratch()
        syms2, bans2, pends2, own = scratch()
        low = NONE
        c0 = info[a, b, C0]
        t = first_state(a, b, lo, info, counts, bfirst)
        for s in range(lo, hi):
            n = counts[c0 + s]
            if n == 0:
                continue
            m, o = slot_states(a, b, s, np.int64(n), ht, ix, bans2, pends2, syms2, own)
            judge_position(m, o, n, own, value, count, t, rows, facts, lists, tmp, info, counts, bfirst,
                           sinfo, scounts, sbfirst, svalues, ht, ix, g, syms, bans, pends, codes, err)
            for j in range(n):
                v = value[t + j]
                if v < PEND_BASE and v < low:  # (an undecided state's value is above every level's)
                    low = v
            t += n
        lowest[c] = low


@inlined
def predecessors(m, o, ban, pend, info, counts, bfirst, part0, ht, ix, g, syms, bans, pends, codes, xbans, ylist, cands, mx, my, qs, qparts, qm, un):
    """The states of the twin half whose moves lead to state (m, o, ban, pending) without a
    removal: their numbers (repeats possible), parts and men of the side to move (``qm``; the
    opponent's are ``m``); how many, or -1 past the buffers. Each un-move's position
    is ranked once, and its states placed among the position's by its records' lists
    (``rank_in_lists``), where no symmetry but the identity fixes it. The un-moves are listed
    first (``un``), so that the scattered table entries each one's ranking reads are asked for
    a pass ahead: its mover's ``mask_info``, then its slot's count and block."""
    x = o  # the side that moved
    y = m
    empty = ht.full & ~(m | o)
    fl = flies(x, ht)
    internal_mill = mill_keeps_men(y, g)  # a mill closed by the move left y's men as they were
    nu = 0
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
            if ban != 0 and live(ban, y, xp, ht) != ban:
                continue  # y's active record was not live before the move
            if nu >= un.shape[0]:
                return -1
            un[nu, 0], un[nu, 1], un[nu, 2] = frm, to, xp
            nu += 1
            prefetch(ix.mask_info, xp)
    a_, b_ = popcount(x), popcount(y)
    c0, b0 = info[a_, b_, C0], info[a_, b_, B0]
    for u in range(nu):
        _, _, slot, nsym = canonical_position(un[u, 2], y, ix, syms)
        un[u, 3], un[u, 4] = slot, syms[0] if nsym == 1 else -1
        prefetch(counts, c0 + slot)
        prefetch(bfirst, b0 + (slot >> BLOCK_BITS))
    k = 0
    for u in range(nu):
        frm, to, xp, slot, gg = un[u, 0], un[u, 1], un[u, 2], un[u, 3], un[u, 4]
        n = counts[c0 + slot]
        if n == 1 and ban == 0:
            # a position without records: its plain state is the one predecessor, and no record
            # needs listing (a live ban would have made it a state of the position: n > 1)
            if k >= qs.shape[0]:
                return -1
            qs[k] = first_state(a_, b_, slot, info, counts, bfirst)
            qparts[k] = part0[a_, b_] + slot // PART
            qm[k] = xp
            k += 1
            continue
        nly = list_records(y, xp, ht, ylist)
        # y's pending record before the move: this state's active one, or, where there is
        # none, none or one the move killed by filling its point
        if ban != 0:
            cands[0] = ban
            nc = 1
        else:
            cands[0] = 0
            nc = 1
            for i in range(nly):
                if point_of(ylist[i], ht) == to:
                    cands[nc] = ylist[i]
                    nc += 1
        nlx = list_records(xp, y, ht, xbans[1:])
        xbans[0] = 0
        if counts[c0 + slot] == 0:
            return -1
        first = first_state(a_, b_, slot, info, counts, bfirst)
        part = part0[a_, b_] + slot // PART
        if gg >= 0:
            mapped_sorted(xbans[1:], nlx, gg, ht, mx)
            mapped_sorted(ylist, nly, gg, ht, my)
        for i in range(nlx + 1):
            xb = xbans[i]
            if forbids(xb, frm, to, x, ht):
                continue
            for j in range(nc):
                if not admissible(xb, cands[j], ht):
                    continue
                if k >= qs.shape[0]:
                    return -1
                if gg >= 0:
                    q = first + rank_in_lists(image_of(xb, gg, ht), image_of(cands[j], gg, ht), mx, nlx, my, nly, ht)
                else:
                    q, _ = state_number(xp, y, xb, cands[j], info, counts, bfirst, ht, ix, syms, bans, pends, codes)
                qs[k] = q
                qparts[k] = part
                qm[k] = xp
                k += 1
    return k


@nb.njit(cache=True)
def level_scratch():
    """A thread's buffers for ``level_step``: the moves (rows) and distinct successors (kids) of
    ``count_slot``; for ``predecessors`` the records (xbans, ylist, cands, mx, my) and the
    predecessors found (qs, qparts, qm); their order (``sort_by``); for ``count_slot``
    the moves' facts, the records of their positions and of a side, and the slot's codes; the
    un-moves of ``predecessors``."""
    return (
        np.empty((MAX_MOVES, 5), dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64),
        np.empty(MAX_RECORDS + 1, dtype=np.int64), np.empty(MAX_RECORDS, dtype=np.int64),
        np.empty(MAX_RECORDS + 1, dtype=np.int64), np.empty(MAX_RECORDS, dtype=np.int64),
        np.empty(MAX_RECORDS, dtype=np.int64), np.empty(MAX_PREDS, dtype=np.int64),
        np.empty(MAX_PREDS, dtype=np.int64), np.empty(MAX_PREDS, dtype=np.int64),
        np.empty(MAX_PREDS, dtype=np.int64), np.empty((MAX_MOVES, 11), dtype=np.int64), np.empty(ROW_LISTS, dtype=np.int64),
        np.empty(MAX_RECORDS, dtype=np.int64), np.empty(MAX_CODES + 1, dtype=np.int64),
        np.empty((MAX_UNMOVES, 5), dtype=np.int64),
    )


@helper
def sort_by(keys, k, order):
    """order[:k]: the indices of keys[:k] by increasing key (insertion sort: k is a few dozen)."""
    for i in range(k):
        x = keys[i]
        j = i - 1
        while j >= 0 and keys[order[j]] > x:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = i


@nb.njit(cache=True, parallel=True)
def level_step(level, parts, spread, part0, info, counts, bfirst, value, count, lowest, touched, ht, ix, g, err):
    """Settle ``level`` over the group (see the module's note), its parts taken in the order
    ``spread`` (``spread_order``); ``lowest[c]``: the lowest code part c holds or schedules above the last
    level. Returns the lowest code left (NONE: done)."""
    code = level + 1
    wins = level % 2 == 1
    nparts = parts.shape[0]
    for r in nb.prange(nparts):
        c = spread[r]
        if lowest[c] > code:
            continue
        a, b, lo, hi = parts[c, 0], parts[c, 1], parts[c, 2], parts[c, 3]
        rows, kids, xbans, ylist, cands, mx, my, qs, qparts, qm, order, facts, lists, tmp, own2, un = level_scratch()
        syms, bans, pends, codes = scratch()
        syms2, bans2, pends2, own = scratch()
        low = NONE
        c0 = info[a, b, C0]
        t = first_state(a, b, lo, info, counts, bfirst)
        for s in range(lo, hi):
            n = counts[c0 + s]
            known = False
            for j in range(n):
                v = value[t + j]
                if v != code:
                    if code < v < PEND_BASE and v < low:
                        low = v
                    continue
                if not known:
                    m, o = slot_states(a, b, s, np.int64(n), ht, ix, bans2, pends2, syms2, own)
                    known = True
                k = predecessors(m, o, own[j] >> CODE_BITS, own[j] & PEND_MASK, info, counts, bfirst, part0, ht, ix, g,
                                 syms, bans, pends, codes, xbans, ylist, cands, mx, my, qs, qparts, qm, un)
                if k < 0:
                    err[ERR_OVERFLOW] += 1
                    continue
                # the predecessors' values (and counts, after a win) are scattered reads that the
                # atomics below keep from starting early: all asked for now, sorted meanwhile
                for i in range(k):
                    if qs[i] >= 0:
                        prefetch(value, qs[i])
                        if wins:
                            prefetch(count, qs[i])
                sort_by(qs, k, order)
                for i in range(k):
                    r = order[i]
                    q = qs[r]
                    if i > 0 and q == qs[order[i - 1]]:
                        continue
                    if q < 0:
                        err[ERR_PRED] += 1
                        continue
                    if not wins:  # lost at this level: q wins by moving here
                        if value[q] > code + 1 and value[q] <= PENDING:
                            atomic_min(value, q, code + 1)
                            atomic_min(touched, qparts[r], code + 1)
                    elif value[q] >= PEND_BASE and value[q] != PEND_NOLOSS:
                        # won: one hope fewer for q (a scheduled or decided q needs none, nor one that a removal keeps from losing)
                        if count[q] == UNKNOWN:  # first reached by a win: count its successors inside now, its slot's with it
                            cnt = count_slot(qm[r], m, rows, kids, facts, lists, tmp, own2, syms2, info, counts, bfirst, value, count,
                                             ht, ix, g, syms, bans, pends, codes)
                            if cnt < 0:
                                err[ERR_SUCC if cnt == -1 else ERR_OVERFLOW] += 1
                                continue
                        if atomic_fetch_sub(count, q, 1) != 1:
                            continue
                        # the last: lost, when its removals allow (the latest loss they give, kept in its value)
                        lv = max(code + 1, removals_of(value[q]) + 1)
                        value[q] = lv
                        atomic_min(touched, qparts[r], lv)
            t += n
        lowest[c] = low
    return merge_touched(lowest, touched)
