"""Numba kernels of the retrograde engine: arrays and integers in, arrays out, no I/O.

Values, one uint16 per slot, for the side to move: 0 = draw (undetermined while solving), DUP =
a slot that holds no canonical position, otherwise ``level + 1`` where ``level`` is the number of
plies to the end of the game; an odd level is a win, an even level a loss.

While solving, each slot also has
- ``count``: its distinct successors inside the twin subspace (no removal) not yet known to be wins
  for the opponent. It is computed lazily (UNKNOWN until then): only a position that some
  successor's win reaches, or whose removals alone could make it a loss, ever needs it. Most
  positions of the larger subspaces are draws that nothing reaches, so this skips most of the
  successor ranking;
- ``ext``: what its removals into smaller, solved subspaces say: an odd level is the earliest win
  they give, an even level the latest loss they allow (the loss waits for it), NOLOSS when one of
  them is a draw, 0 when there are none. Only positions whose removals may win need it at once;
  they are found backwards from the losses of the smaller subspace (``mark_removal_candidates``).
  For the others it stays LAZY until every other successor has become a win, the only time it
  can matter.
A position is a win at level L+1 as soon as one successor is a loss at L; a loss at L+1 when its
last undecided successor becomes a win at L and every removal allows it. Levels are processed in
increasing order, so winners get the fewest plies and losers the most.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .index import canonical_pair, colex_rank, image, is_canonical_pair, popcount, unrank_position
from .bits import ctz
from .movegen import MAX_MOVES, OPT_FLY, OPT_FORFEIT, OPT_FULL_DRAW, OPT_MILL_WINS, OPT_OPTIONAL, OPT_PASS, OPT_PER_MILL
from .movegen import men_in_mills, mills_formed, removable_men

DUP = 0xFFFF
NOLOSS = 0xFFFE
LAZY = 0xFFFD  # ext: removal outcome not computed yet (it holds no win; see init_subspace)
MAX_LEVEL = 0xFFFC - 1  # value = level + 1 and ext levels must stay below LAZY, NOLOSS and DUP
UNKNOWN = 255  # count not computed yet (a count is at most 3 * 21 + 1)
CANDIDATE = 254  # count of a LAZY position whose removals may win: compute its ext exactly
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
def _removal_level(m2, o, r1, r2, b, a, rsyms, rinfo, n, nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2):
    """Level this position gets from the successor where ``m2`` is the mover's men after the
    move and r1 (and r2) are removed: odd = a win, even = a loss, 0 = a draw."""
    o2 = o & ~(1 << r1)
    if r2 >= 0:
        o2 = o2 & ~(1 << r2)
    left = popcount(o2)
    if left < 3:
        return 1  # the opponent is left with two men: won at once
    if r2 < 0:
        # The successor's mover is o2, the same for every move removing r1: set up once.
        if rinfo[r1, 0] < 0:
            rinfo[r1, 0] = _canon_setup(o2, n, nsym, sym_img, mask_info, rsyms[r1])
            rinfo[r1, 1] = image(sym_img, rsyms[r1, 0], o2)
            rinfo[r1, 2] = mask_info[o2] >> 5
        s = _slot_with(rinfo[r1, 1], rinfo[r1, 2], m2, rsyms[r1], rinfo[r1, 0], sym_img, binom[n - left, a], binom)
    else:
        s = _slot(o2, m2, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    if left == b - 1:
        return np.int64(ext1[s])  # the successor is at level v - 1: this position at v
    return np.int64(ext2[s])


@nb.njit(cache=True)
def _removal_outcome(
    a, b, m, o, rsyms, rinfo,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
    ext1, ext2,
):
    """What the moves with a removal give the canonical position (m, o): its ``ext`` code.

    Mill-forming moves are found from the mills (two of the mover's men and an empty third
    point), not by trying every move; ``verify`` checks the results with the general generator.
    """
    if opts[OPT_MILL_WINS]:
        return 0  # a mill wins at once, without a removal: the twin holds every successor
    rem = removable_men(o, mill_masks, opts[OPT_FORFEIT])
    if rem == 0:
        return 0  # nothing may be removed: every move stays in the twin subspace
    empty = ((1 << n) - 1) & ~(m | o)
    flying = opts[OPT_FLY] != 0 and a == 3
    per_mill = opts[OPT_PER_MILL] != 0
    x = rem
    while x:
        low = x & -x
        rinfo[ctz(low), 0] = -1
        x ^= low
    win_at = 0
    floor = 0
    draw_ext = False
    for mill in mill_masks:
        mine = m & mill
        if popcount(mine) != popcount(mill) - 1:
            continue
        target = mill & ~m
        if target & empty == 0:
            continue
        to = ctz(target)
        # A man of this mill moving in would leave the mill open.
        f = (m & ~mill) if flying else (adj[to] & m & ~mill)
        while f:
            lowf = f & -f
            f ^= lowf
            m2 = (m ^ lowf) | target
            double = per_mill and mills_formed(m2, to, point_mills) >= 2
            x = rem
            while x:
                lowr = x & -x
                x ^= lowr
                r1 = ctz(lowr)
                if double:
                    lvl = _double_removal_level(m2, o, r1, b, a, mill_masks, opts, rsyms, rinfo, n, nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2)
                else:
                    lvl = _removal_level(m2, o, r1, -1, b, a, rsyms, rinfo, n, nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2)
                if lvl == 0:
                    draw_ext = True
                elif lvl % 2 == 1:
                    if win_at == 0 or lvl < win_at:
                        win_at = lvl
                        if lvl == 1:
                            return 1  # a win in 1 settles it: nothing is quicker
                elif lvl > floor:
                    floor = lvl
    if win_at:
        return win_at
    if draw_ext:
        return NOLOSS
    return floor


@nb.njit(cache=True)
def _count_successors(
    a, b, m, o, succ, syms,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, binom,
):
    """Distinct slots of the twin subspace that (m, o) reaches by a move without removal (or by
    a pass), exactly the moves whose inverse ``gather_predecessors`` generates.

    Two such moves reach the same slot only through a symmetry that fixes ``o``; when ``o`` has
    none, the moves are counted without ranking their successors."""
    empty = ((1 << n) - 1) & ~(m | o)
    flying = opts[OPT_FLY] != 0 and a == 3
    keep = _mill_keeps_men(o, mill_masks, opts)
    symmetric = mask_info[o] & 16 != 0
    if symmetric:
        nsyms = _canon_setup(o, n, nsym, sym_img, mask_info, syms)
        oc = image(sym_img, syms[0], o)
        rep_o = mask_info[o] >> 5
        per_twin = binom[n - b, a]
    nsucc = 0
    f = m
    while f:
        lowf = f & -f
        f ^= lowf
        rest = m ^ lowf
        t = empty if flying else adj[ctz(lowf)] & empty
        if keep and not symmetric:
            nsucc += popcount(t)
            continue
        while t:
            lowt = t & -t
            t ^= lowt
            m2 = rest | lowt
            if keep or mills_formed(m2, ctz(lowt), point_mills) == 0:
                if symmetric:
                    succ[nsucc] = _slot_with(oc, rep_o, m2, syms, nsyms, sym_img, per_twin, binom)
                nsucc += 1
    if nsucc == 0 and opts[OPT_PASS] and not _has_move(m, o, n, adj, flying):
        return 1  # the pass
    if symmetric and nsucc > 1:
        nsucc = _sort_unique(succ, nsucc)  # symmetric successors share a slot: count it once
    return nsucc


@nb.njit(cache=True)
def _double_removal_level(m2, o, r1, b, a, mill_masks, opts, rsyms, rinfo, n, nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2):
    """The outcome of removing r1 and then a second man (one removal per mill formed), over
    every choice of the second as the move generator lists them, summed up as one level: the
    quickest win if any, else 0 (a draw) if any, else the longest loss. That is all the caller
    keeps of a set of choices anyway."""
    o1 = o & ~(1 << r1)
    rem2 = removable_men(o1, mill_masks, opts[OPT_FORFEIT])
    win = 0
    worst = 0
    draw = False
    if rem2 == 0 or opts[OPT_OPTIONAL]:
        lvl = _removal_level(m2, o, r1, -1, b, a, rsyms, rinfo, n, nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2)
        if lvl == 0:
            draw = True
        elif lvl % 2 == 1:
            win = lvl
        else:
            worst = lvl
    x = rem2
    while x:
        low = x & -x
        x ^= low
        r2 = ctz(low)
        lvl = _removal_level(m2, o, r1, r2, b, a, rsyms, rinfo, n, nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2)
        if lvl == 0:
            draw = True
        elif lvl % 2 == 1:
            if win == 0 or lvl < win:
                win = lvl
        elif lvl > worst:
            worst = lvl
    if win:
        return win
    if draw:
        return 0
    return worst


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
    their slices): terminal losses and removal outcomes; counts only where removals alone may
    decide a loss. ``ext1``/``ext2`` hold the solved values of (b-1, a) and (b-2, a)."""
    slots = value.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    flying = opts[OPT_FLY] != 0 and a == 3
    for c in nb.prange(nchunks):
        succ = np.empty(MAX_MOVES, dtype=np.int64)
        syms = np.empty(16, dtype=np.int64)
        rsyms = np.empty((n, 16), dtype=np.int64)
        rinfo = np.empty((n, 3), dtype=np.int64)
        for slot in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            m, o = unrank_position(a, b, base + slot, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            count[slot] = UNKNOWN
            ext[slot] = 0
            value[slot] = 0
            if mask_info[m] & 16 and not is_canonical_pair(m, o, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
                value[slot] = DUP
                continue
            if opts[OPT_MILL_WINS] and men_in_mills(o, mill_masks) != 0:
                value[slot] = 1  # lost already: loss in 0
                continue
            if opts[OPT_FULL_DRAW] and (m | o) == (1 << n) - 1:
                ext[slot] = NOLOSS  # a full board is a draw (Twelve Men's Morris)
                continue
            if not opts[OPT_PASS] and not _has_move(m, o, n, adj, flying):
                value[slot] = 1  # blocked: loss in 0
                continue
            if b - 1 - (opts[OPT_PER_MILL] != 0) >= 3 and _has_internal_move(m, o, n, adj, mill_masks, point_mills, opts, flying):
                # Removals can only matter once every other successor is a win, or if one wins:
                # mark_removal_candidates finds those. (Where a removal can leave two men, it
                # wins at once, and the scan below finds that without a lookup.)
                ext[slot] = LAZY
                continue
            ext[slot], count[slot] = _settle_removals(
                a, b, m, o, succ, syms, rsyms, rinfo, n, adj, mill_masks, point_mills, opts,
                nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2,
            )


@nb.njit(cache=True)
def _settle_removals(
    a, b, m, o, succ, syms, rsyms, rinfo,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
    ext1, ext2,
):
    """(ext, count) of a position whose removal outcome is computed now. Where removals allow a
    loss at level e, the schedule will ask at e whether every other successor has become a win,
    so the count is needed too."""
    e = _removal_outcome(
        a, b, m, o, rsyms, rinfo, n, adj, mill_masks, point_mills, opts,
        nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2,
    )
    if e % 2 == 0 and e != NOLOSS:
        return e, _count_successors(
            a, b, m, o, succ, syms, n, adj, mill_masks, point_mills, opts, nsym, sym_img, mask_info, binom
        )
    return e, UNKNOWN


@nb.njit(cache=True)
def _mill_keeps_men(opp, mill_masks, opts):
    """Whether a move that closes a mill may leave ``opp``'s men as they are, so that it stays in
    the twin subspace: the removal is optional, a mill wins outright, or nothing is removable."""
    return opts[OPT_OPTIONAL] != 0 or opts[OPT_MILL_WINS] != 0 or removable_men(opp, mill_masks, opts[OPT_FORFEIT]) == 0


@nb.njit(cache=True)
def _has_internal_move(m, o, n, adj, mill_masks, point_mills, opts, flying):
    """Whether some move (or the pass) stays in the twin subspace: forms no mill, or removes
    nothing."""
    empty = ((1 << n) - 1) & ~(m | o)
    keep = _mill_keeps_men(o, mill_masks, opts)
    moves = False
    f = m
    while f:
        lowf = f & -f
        f ^= lowf
        t = empty if flying else adj[ctz(lowf)] & empty
        if t:
            moves = True
            if keep:
                return True
        rest = m ^ lowf
        while t:
            lowt = t & -t
            t ^= lowt
            if mills_formed(rest | lowt, ctz(lowt), point_mills) == 0:
                return True
    return not moves and opts[OPT_PASS] != 0


@nb.njit(cache=True, parallel=True)
def mark_removal_candidates(
    a, b, value, count, ext, qa, qvalues,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
):
    """Mark (count = CANDIDATE) every LAZY position of (a, b) that some move with a removal takes
    to a loss of ``qvalues``, the solved subspace (qa, a) with qa = b - 1 (or b - 2, two removals):
    un-move the mover's man that closed a mill, put the removed men back on empty points. A
    superset: ``resolve_candidates`` then computes each one's outcome exactly."""
    flying = opts[OPT_FLY] != 0 and a == 3
    nq = qvalues.shape[0]
    removed = b - qa
    nchunks = (nq + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        for q in range(c * CHUNK, min(nq, (c + 1) * CHUNK)):
            v = qvalues[q]
            if v == DUP or v == 0 or v % 2 == 0:
                continue  # not a loss for its side to move
            qm, qo = unrank_position(qa, a, q, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            empty = ((1 << n) - 1) & ~(qm | qo)
            t = qo
            while t:
                lowt = t & -t
                t ^= lowt
                if mills_formed(qo, ctz(lowt), point_mills) == 0:
                    continue
                fs = empty if flying else adj[ctz(lowt)] & empty
                while fs:
                    lowf = fs & -fs
                    fs ^= lowf
                    pm = (qo ^ lowt) | lowf
                    r1s = empty & ~lowf
                    while r1s:
                        low1 = r1s & -r1s
                        r1s ^= low1
                        if removed == 1:
                            _mark(pm, qm | low1, value, count, ext, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
                            continue
                        r2s = r1s  # the second removed man: a higher point, each pair once
                        while r2s:
                            low2 = r2s & -r2s
                            r2s ^= low2
                            _mark(pm, qm | low1 | low2, value, count, ext, n, nsym, sym_img, mask_info, reps, rep_offset, binom)


@nb.njit(cache=True)
def _mark(pm, po, value, count, ext, n, nsym, sym_img, mask_info, reps, rep_offset, binom):
    p = _slot(pm, po, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
    if ext[p] == LAZY and value[p] == 0:
        count[p] = CANDIDATE  # threads racing here all write the same byte


@nb.njit(cache=True, parallel=True)
def resolve_candidates(
    a, b, value, count, ext,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
    ext1, ext2,
):
    """Exact removal outcome (and, where it allows a loss, the count) of each marked position."""
    slots = value.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        succ = np.empty(MAX_MOVES, dtype=np.int64)
        syms = np.empty(16, dtype=np.int64)
        rsyms = np.empty((n, 16), dtype=np.int64)
        rinfo = np.empty((n, 3), dtype=np.int64)
        for slot in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if count[slot] != CANDIDATE:
                continue
            m, o = unrank_position(a, b, slot, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            ext[slot], count[slot] = _settle_removals(
                a, b, m, o, succ, syms, rsyms, rinfo, n, adj, mill_masks, point_mills, opts,
                nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2,
            )


@nb.njit(cache=True)
def _has_move(m, o, n, adj, flying):
    empty = ((1 << n) - 1) & ~(m | o)
    if flying:
        return empty != 0
    f = m
    while f:
        low = f & -f
        if adj[ctz(low)] & empty:
            return True
        f ^= low
    return False


@nb.njit(cache=True, parallel=True)
def gather_predecessors(
    frontier, nfront, qa, qb, qvalue, preds, npreds, value, count, ext,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
):
    """For each frontier slot of subspace (qa, qb), the distinct slots of (qb, qa) whose mover
    reaches it by a move without removal (or by a pass). Writes preds[i, :npreds[i]].

    Where the frontier position is a win, an undecided predecessor that could still lose gets
    its successor count now, before ``apply_predecessors`` decrements it (two threads may compute
    the same count; they write the same number)."""
    empty_all = (1 << n) - 1
    flying = opts[OPT_FLY] != 0 and qb == 3
    nchunks = (nfront + 255) // 256
    for c in nb.prange(nchunks):
        syms = np.empty(16, dtype=np.int64)
        succ = np.empty(MAX_MOVES, dtype=np.int64)
        for i in range(c * 256, min(nfront, (c + 1) * 256)):
            q = frontier[i]
            q_wins = (qvalue[q] - 1) % 2 == 1
            qm, qo = unrank_position(qa, qb, q, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
            k = 0
            if opts[OPT_MILL_WINS] and men_in_mills(qm, mill_masks) != 0:
                npreds[i] = 0  # every predecessor had already lost
                continue
            empty = empty_all & ~(qm | qo)
            # The predecessor's mover had to remove when forming a mill, unless nothing was removable.
            may_keep = _mill_keeps_men(qm, mill_masks, opts)
            t = qo
            while t:
                lowt = t & -t
                to = ctz(lowt)
                t ^= lowt
                if not may_keep and mills_formed(qo, to, point_mills) > 0:
                    continue
                f = empty if flying else adj[to] & empty
                while f:
                    lowf = f & -f
                    f ^= lowf
                    pm = (qo & ~lowt) | lowf
                    p = _slot(pm, qm, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
                    preds[i, k] = p
                    k += 1
                    if q_wins and count[p] == UNKNOWN and value[p] == 0 and _may_lose(ext[p]):
                        count[p] = _count_successors(
                            qb, qa, pm, qm, succ, syms, n, adj, mill_masks, point_mills, opts,
                            nsym, sym_img, mask_info, binom,
                        )
            # The pass repeats the lines above on purpose: moving them into a helper made the
            # chain about 20% slower (morris bench); this loop is the engine's hot path.
            if opts[OPT_PASS] and not _has_move(qo, qm, n, adj, flying):
                p = _slot(qo, qm, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
                preds[i, k] = p
                k += 1
                if q_wins and count[p] == UNKNOWN and value[p] == 0 and _may_lose(ext[p]):
                    count[p] = _count_successors(
                        qb, qa, qo, qm, succ, syms, n, adj, mill_masks, point_mills, opts,
                        nsym, sym_img, mask_info, binom,
                    )
            if mask_info[qm] & 16 and k > 1:
                k = _sort_unique(preds[i], k)  # only a symmetry fixing qm makes two share a slot
            npreds[i] = k


@nb.njit(cache=True)
def _may_lose(e):
    """False when a removal already gives a win or a draw."""
    return e == LAZY or (e % 2 == 0 and e != NOLOSS)


@nb.njit(cache=True)
def _is_level(e):
    """An ext code that schedules a decision at that level."""
    return e != 0 and e < LAZY


@nb.njit(cache=True)
def apply_predecessors(
    frontier, nfront, qvalue, preds, npreds, value, count, ext, out, nout, pa, pb, deferred, ndef,
    n, adj, mill_masks, point_mills, opts,
    nsym, sym_img, mask_info, reps, rep_offset, binom,
    ext1, ext2,
):
    """Serial half of a propagation step: decide predecessors (of subspace (pa, pb)) and append
    the decided ones to ``out``. A predecessor left with only removals to try gets its LAZY
    removal outcome now; a loss that must wait for a removal's later level goes to ``deferred``
    (slot, level). Returns (nout, ndef)."""
    rsyms = np.empty((n, 16), dtype=np.int64)
    rinfo = np.empty((n, 3), dtype=np.int64)
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
                continue
            if not _may_lose(ext[p]):
                continue
            count[p] -= 1
            if count[p] != 0:
                continue
            if ext[p] == LAZY:
                m, o = unrank_position(pa, pb, p, n, nsym, sym_img, mask_info, reps, rep_offset, binom)
                ext[p] = _removal_outcome(
                    pa, pb, m, o, rsyms, rinfo, n, adj, mill_masks, point_mills, opts,
                    nsym, sym_img, mask_info, reps, rep_offset, binom, ext1, ext2,
                )
                if ext[p] != 0 and ext[p] != NOLOSS and ext[p] > lvl + 1:
                    deferred[ndef, 0] = p  # every move left wins for the opponent, but later
                    deferred[ndef, 1] = ext[p]
                    ndef += 1
                    continue
            if _may_lose(ext[p]) and ext[p] <= lvl + 1:
                value[p] = new  # every successor wins for the opponent: loss
                out[nout] = p
                nout += 1
    return nout, ndef


@nb.njit(cache=True)
def take_deferred(lvl, deferred, ndef, value, count, out, nout):
    """Decide the deferred losses due at this level; drop them from the list."""
    keep = 0
    for i in range(ndef):
        s = deferred[i, 0]
        due = deferred[i, 1]
        if due == lvl:
            if value[s] == 0 and count[s] == 0:
                value[s] = lvl + 1
                out[nout] = s
                nout += 1
        elif due > lvl:
            deferred[keep, 0] = s
            deferred[keep, 1] = due
            keep += 1
    return nout, keep


@nb.njit(cache=True)
def schedule(ext, max_level):
    """Slots with a removal outcome, sorted by its level: (order, start of each level)."""
    hist = np.zeros(max_level + 2, dtype=np.int64)
    for s in range(ext.shape[0]):
        e = ext[s]
        if _is_level(e):
            hist[e] += 1
    start = np.zeros(max_level + 3, dtype=np.int64)
    for lvl in range(max_level + 2):
        start[lvl + 1] = start[lvl] + hist[lvl]
    order = np.empty(start[max_level + 2], dtype=np.uint32)
    fill = start.copy()
    for s in range(ext.shape[0]):
        e = ext[s]
        if _is_level(e):
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
        if _is_level(e) and e > m:
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
