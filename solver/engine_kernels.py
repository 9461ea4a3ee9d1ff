"""Numba kernels of the retrograde engine: arrays and integers in, arrays out, no I/O.

Values, one uint16 per slot, for the side to move: 0 = draw (undetermined while solving), DUP =
a slot that holds no canonical position, otherwise ``level + 1`` where ``level`` is the number of
plies to the end of the game; an odd level is a win, an even level a loss.

While solving, each slot also has
- ``count``: its distinct successors inside the twin subspace (no removal) not yet known to be wins
  for the opponent;
- ``ext``: what its removals into smaller, solved subspaces say: an odd level is the earliest win
  they give, an even level the latest loss they allow (the loss waits for it), NOLOSS when one of
  them is a draw, 0 when there are none.
A position is a win at level L+1 as soon as one successor is a loss at L; a loss at L+1 when its
last undecided successor becomes a win at L and every removal allows it. Levels are processed in
increasing order, so winners get the fewest plies and losers the most.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .index import canonical_pair, colex_rank, image, is_canonical_pair, popcount, unrank_position
from .movegen import MAX_MOVES, OPT_FLY, OPT_FORFEIT, OPT_MILL_WINS, OPT_OPTIONAL, OPT_PASS
from .movegen import generate_moves, men_in_mills, mills_formed, removable_men

DUP = 0xFFFF
NOLOSS = 0xFFFE
MAX_LEVEL = 0xFFFD - 1  # value = level + 1 must stay below NOLOSS and DUP
CHUNK = 4096


@nb.njit(cache=True)
def _canon_setup(mover, n, nsym, sym_img, mask_info, syms):
    """Symmetries that take ``mover`` to its orbit minimum: writes them to syms, returns how many
    (1 unless the minimum has a non-trivial stabiliser)."""
    info = mask_info[mover]
    g0 = info & 15
    if info & 16 == 0:
        syms[0] = g0
        return 1
    mc = image(sym_img, g0, mover)
    k = 0
    for g in range(nsym):
        if image(sym_img, g, mover) == mc:
            syms[k] = g
            k += 1
    return k


@nb.njit(cache=True)
def _slot_with(mc, rep, other, syms, nsyms, sym_img, per, binom):
    """Slot of (mover, other) given the mover's canonical image mc and its symmetries."""
    oc = image(sym_img, syms[0], other)
    for i in range(1, nsyms):
        x = image(sym_img, syms[i], other)
        if x < oc:
            oc = x
    return rep * per + colex_rank(oc, mc, binom)


@nb.njit(cache=True)
def _slot(mover, other, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    mc, oc, rep = canonical_pair(mover, other, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    return rep * binom[n - popcount(mover), popcount(other)] + colex_rank(oc, mc, binom)


@nb.njit(cache=True)
def _init_position(
    a, b, m, o, buf, succ, syms, rsyms, rinfo,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
    ext1, ext2,
):
    """(value, count, ext) of the canonical position (m, o) before propagation."""
    if opts[OPT_MILL_WINS] and men_in_mills(o, mill_masks) != 0:
        return 1, 0, 0  # lost already: loss in 0
    k = generate_moves(m, o, 0, 0, n, adj, mill_masks, point_mills, opts, buf)
    if k == 0:
        return 1, 0, 0  # blocked: loss in 0
    # Removals first: a win they give makes the successor count irrelevant (a win is never
    # decided by counting), and a win in 1 ends the search.
    win_at = 0
    floor = 0
    draw_ext = False
    per_ext1 = binom[n - (b - 1), a]
    rinfo[:] = -1  # per removed point: its canonical setup, filled on first use
    for i in range(k):
        r1 = buf[i, 2]
        if r1 < 0:
            continue
        frm = buf[i, 0]
        to = buf[i, 1]
        r2 = buf[i, 3]
        m2 = m
        if frm >= 0:
            m2 = m2 & ~(1 << frm)
        m2 = m2 | (1 << to)
        o2 = o & ~(1 << r1)
        if r2 >= 0:
            o2 = o2 & ~(1 << r2)
        left = popcount(o2)
        lvl = 1  # the opponent is left with two men: won at once
        if left >= 3:
            if r2 < 0:
                # The successor's mover is o2, the same for every move removing r1.
                if rinfo[r1, 0] < 0:
                    rinfo[r1, 0] = _canon_setup(o2, n, nsym, sym_img, mask_info, rsyms[r1])
                    rinfo[r1, 1] = image(sym_img, rsyms[r1, 0], o2)
                    rinfo[r1, 2] = mask_info[o2] >> 5
                s = _slot_with(rinfo[r1, 1], rinfo[r1, 2], m2, rsyms[r1], rinfo[r1, 0], sym_img, per_ext1, binom)
            else:
                s = _slot(o2, m2, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            if left == b - 1:
                lvl = np.int64(ext1[s])  # the successor is at level v - 1: this one at v
            else:
                lvl = np.int64(ext2[s])
        if lvl == 0:
            draw_ext = True
        elif lvl % 2 == 1:
            if win_at == 0 or lvl < win_at:
                win_at = lvl
                if lvl == 1:
                    break
        elif lvl > floor:
            floor = lvl
    if win_at:
        return 0, 0, win_at
    # Successors inside the twin subspace are seen from the opponent, whose men are fixed.
    nsyms = _canon_setup(o, n, nsym, sym_img, mask_info, syms)
    oc = image(sym_img, syms[0], o)
    rep_o = mask_info[o] >> 5
    per_twin = binom[n - b, a]
    nsucc = 0
    for i in range(k):
        if buf[i, 2] >= 0:
            continue
        frm = buf[i, 0]
        to = buf[i, 1]
        m2 = m
        if to >= 0:  # else a pass
            if frm >= 0:
                m2 = m2 & ~(1 << frm)
            m2 = m2 | (1 << to)
        succ[nsucc] = _slot_with(oc, rep_o, m2, syms, nsyms, sym_img, per_twin, binom)
        nsucc += 1
    if nsyms > 1 and nsucc > 1:
        nsucc = _sort_unique(succ, nsucc)  # symmetric successors share a slot: count it once
    if draw_ext:
        return 0, nsucc, NOLOSS
    return 0, nsucc, floor


@nb.njit(cache=True)
def _sort_unique(xs, k):
    """Sort xs[:k] in place (insertion sort: k is small) and drop repeats; return the new length."""
    for i in range(1, k):
        x = xs[i]
        j = i - 1
        while j >= 0 and xs[j] > x:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = x
    d = 1
    for i in range(1, k):
        if xs[i] != xs[d - 1]:
            xs[d] = xs[i]
            d += 1
    return d


@nb.njit(cache=True, parallel=True)
def init_subspace(
    a, b, value, count, ext, base,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
    ext1, ext2,
):
    """First pass over the slots ``base ...`` of subspace (a, b) (``value``, ``count``, ``ext`` are
    their slices): terminal losses, successor counts, removal outcomes. ``ext1``/``ext2`` hold the
    solved values of (b-1, a) and (b-2, a) (two removals at once)."""
    slots = value.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 4), dtype=np.int64)
        succ = np.empty(MAX_MOVES, dtype=np.int64)
        syms = np.empty(16, dtype=np.int64)
        rsyms = np.empty((n, 16), dtype=np.int64)
        rinfo = np.empty((n, 3), dtype=np.int64)
        for slot in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            m, o = unrank_position(a, b, base + slot, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            if mask_info[m] & 16 and not is_canonical_pair(m, o, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
                value[slot] = DUP
                count[slot] = 0
                ext[slot] = 0
                continue
            v, cnt, e = _init_position(
                a, b, m, o, buf, succ, syms, rsyms, rinfo, n, adj, mill_masks, point_mills, opts,
                nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2,
            )
            value[slot] = v
            count[slot] = cnt
            ext[slot] = e


@nb.njit(cache=True)
def _has_move(m, o, n, adj, mill_masks, point_mills, opts, flying):
    empty = ((1 << n) - 1) & ~(m | o)
    if flying:
        return empty != 0
    f = m
    while f:
        low = f & -f
        if adj[popcount(low - 1)] & empty:
            return True
        f ^= low
    return False


@nb.njit(cache=True, parallel=True)
def gather_predecessors(
    frontier, nfront, qa, qb, preds, npreds,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
):
    """For each frontier slot of subspace (qa, qb), the distinct slots of (qb, qa) whose mover
    reaches it by a move without removal (or by a pass). Writes preds[i, :npreds[i]]."""
    empty_all = (1 << n) - 1
    flying = opts[OPT_FLY] != 0 and qb == 3
    nchunks = (nfront + 255) // 256
    for c in nb.prange(nchunks):
        syms = np.empty(16, dtype=np.int64)
        for i in range(c * 256, min(nfront, (c + 1) * 256)):
            qm, qo = unrank_position(qa, qb, frontier[i], n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            k = 0
            if opts[OPT_MILL_WINS] and men_in_mills(qm, mill_masks) != 0:
                npreds[i] = 0  # every predecessor had already lost
                continue
            empty = empty_all & ~(qm | qo)
            # The predecessor's mover had to remove when forming a mill, unless nothing was removable.
            may_keep = opts[OPT_OPTIONAL] != 0 or removable_men(qm, mill_masks, opts[OPT_FORFEIT]) == 0
            t = qo
            while t:
                lowt = t & -t
                to = popcount(lowt - 1)
                t ^= lowt
                if not may_keep and mills_formed(qo, to, point_mills) > 0:
                    continue
                f = empty if flying else adj[to] & empty
                while f:
                    lowf = f & -f
                    f ^= lowf
                    pm = (qo & ~lowt) | lowf
                    preds[i, k] = _slot(pm, qm, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
                    k += 1
            if opts[OPT_PASS] and not _has_move(qo, qm, n, adj, mill_masks, point_mills, opts, flying):
                preds[i, k] = _slot(qo, qm, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
                k += 1
            if mask_info[qm] & 16 and k > 1:
                k = _sort_unique(preds[i], k)  # only a symmetry fixing qm makes two share a slot
            npreds[i] = k


@nb.njit(cache=True)
def apply_predecessors(frontier, nfront, qvalue, preds, npreds, value, count, ext, out, nout):
    """Serial half of a propagation step: decide predecessors, append the decided ones to out."""
    for i in range(nfront):
        lvl = qvalue[frontier[i]] - 1
        new = lvl + 2  # value of a predecessor decided now: level lvl + 1
        for j in range(npreds[i]):
            p = preds[i, j]
            if value[p] != 0:
                continue
            if lvl % 2 == 0:
                value[p] = new  # a move to a lost position: win
                out[nout] = p
                nout += 1
            else:
                count[p] -= 1
                e = ext[p]
                if count[p] == 0 and e % 2 == 0 and e <= lvl + 1:
                    value[p] = new  # every successor wins for the opponent: loss
                    out[nout] = p
                    nout += 1
    return nout


@nb.njit(cache=True)
def schedule(ext, max_level):
    """Slots with a removal outcome, sorted by its level: (order, start of each level)."""
    hist = np.zeros(max_level + 2, dtype=np.int64)
    for s in range(ext.shape[0]):
        e = ext[s]
        if e != 0 and e != NOLOSS:
            hist[e] += 1
    start = np.zeros(max_level + 3, dtype=np.int64)
    for lvl in range(max_level + 2):
        start[lvl + 1] = start[lvl] + hist[lvl]
    order = np.empty(start[max_level + 2], dtype=np.uint32)
    fill = start.copy()
    for s in range(ext.shape[0]):
        e = ext[s]
        if e != 0 and e != NOLOSS:
            order[fill[e]] = s
            fill[e] += 1
    return order, start


@nb.njit(cache=True)
def take_scheduled(lvl, order, start, value, count, out, nout):
    """Decide the positions whose removal outcome falls at this level."""
    if lvl + 1 >= start.shape[0]:
        return nout
    for i in range(start[lvl], start[lvl + 1]):
        s = order[i]
        if value[s] != 0:
            continue
        if lvl % 2 == 1 or count[s] == 0:
            value[s] = lvl + 1
            out[nout] = s
            nout += 1
    return nout


@nb.njit(cache=True)
def level_zero(value, out):
    n = 0
    for s in range(value.shape[0]):
        if value[s] == 1:
            out[n] = s
            n += 1
    return n


@nb.njit(cache=True)
def max_ext_level(ext):
    m = 0
    for s in range(ext.shape[0]):
        e = ext[s]
        if e != NOLOSS and e > m:
            m = e
    return m


@nb.njit(cache=True)
def tally(value):
    """(positions, wins, draws, losses, longest win, longest loss) over canonical slots."""
    pos = win = draw = loss = 0
    max_win = max_loss = -1
    for s in range(value.shape[0]):
        v = value[s]
        if v == DUP:
            continue
        pos += 1
        if v == 0:
            draw += 1
        elif (v - 1) % 2 == 1:
            win += 1
            if v - 1 > max_win:
                max_win = v - 1
        else:
            loss += 1
            if v - 1 > max_loss:
                max_loss = v - 1
    return pos, win, draw, loss, max_win, max_loss
