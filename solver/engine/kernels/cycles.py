"""Retrograde analysis of a group whose moves cycle (Lasker's rule: a side with men in hand may
move instead of placing), without a stored successor graph: the pair engine's way, counts and
un-moves, a few bytes a slot.

The group is a tier and its twin (or a tier that is its own twin), one array over both: slot s of
tier i is ``offsets[i] + s``. Each position is first judged by its successors in solved tiers:
the placement pass (``kernels.placements``) for its placements, then ``moves_pass`` for its
moves that close a mill and remove (where a mill wins or the board can fill, ``placing.tier_pass``
and ``summarise`` instead). A position with moves that stay in the group keeps ``value`` PENDING,
``ext`` what the solved successors give (a value code: the quickest win, else the longest loss
they allow, 0 where one is a draw) and ``count`` its distinct successor slots inside the group
not yet known to be wins (NOT_COUNTED where ``ext`` draws or wins: such a position never loses).
``level_step`` then settles one level L (plies) over the whole group: the positions decided at L
are found by a scan of the blocks that hold any (each block of BLOCK slots knows the lowest
level it holds),
and each one's predecessors in the twin tier (un-moves: the opponent's man moved back, by a move
that removed nothing) are decided from it: after a loss at L, a win at
L + 1; after a win at L, one successor fewer, and a loss at the later of L + 1 and ``ext`` when
it was the last and nothing solved wins or draws. A position that ``ext`` says wins at L is
decided at L's scan unless a move inside the group won sooner. One level is all wins or all
losses (its parity), so the only writes that meet are the count-downs: atomic, and the thread that
takes the last decides, with a value that does not depend on which one it is.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import SYMMETRIC, is_canonical_pair, next_position, unrank_position
from ...index.slots import slot_from
from ...jit import helper, prefetch
from ...rules.bits import ctz, popcount
from ...rules.movegen import MAX_MOVES, OPT_FLY, OPT_MILL_WINS, _emit_with_removals, men_in_mills, mills_formed
from ...values import DUP
from .atomic import atomic_fetch_sub, atomic_min
from .codes import CHUNK, MAX_LEVEL, SYMS, wins_in
from .placements import DRAW_KEY, WIN_KEY, key_of, value_of
from .placing import MOVE, judge
from .successors import closed_by, count_internal, mill_keeps_men, open_mills, sort_unique, sort_unique_range

PENDING = 0xFFFD  # value of a position not decided yet (a draw if it stays so); codes end at 0xFFFC
NONE = 0xFFFF  # level_step: no later level holds anything
# count of a position that a solved successor keeps from losing (it draws or wins there): its
# successors inside are not counted, since no count-down can make it a loss (``moves_pass``); far
# above the most successors a position has inside (63: three flying men on 24 points)
NOT_COUNTED = 255

assert PENDING > MAX_LEVEL + 1


@nb.njit(cache=True, parallel=True)
def summarise(a, b, ha, hb, first, value, ext, count, nint, win_at, loss_at, g, ix):
    """After ``tier_pass`` over the slots ``first``... of tier (a, b, ha, hb): where a position
    has successors in the group (``nint`` > 0), mark it PENDING, keep what the solved ones give
    (``ext``) and count its distinct successor slots in the group (``count``: the un-moves of
    ``level_step`` reach each of them once)."""
    slots = value.shape[0]
    flying = g.opts[OPT_FLY] != 0 and a + ha == 3
    nchunks = (slots + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        succ = np.empty(g.n * g.n, dtype=np.int64)
        syms = np.empty(SYMS, dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            if nint[s] == 0:
                continue
            m, o = unrank_position(a, b, first + s, ix)
            value[s] = PENDING
            ext[s] = judge(win_at[s], loss_at[s])
            count[s] = count_internal(a, b, m, o, flying, succ, syms, g, ix)


@helper
def own_key(code):
    """The key (``placements.key_of``'s order, seen from the position itself) of a position's own
    value code: ``placements.value_of``'s inverse."""
    if code == 0:
        return DRAW_KEY
    if wins_in(code - 1):
        return WIN_KEY - code + 1
    return code - 1


# moves_pass: positions judged together, and the room for their removing moves' successors, so
# that the scattered reads of those successors (a solved tier's value, after the opponent's
# ``mask_info`` entry) are asked for a batch ahead instead of waited for one at a time
MOVES_BATCH = 32
ROWS_ROOM = 2048


@nb.njit(cache=True, parallel=True)
def moves_pass(a, b, ha, hb, value, ext, count, succ, g, ix):
    """The moves of every position of tier (a, b, ha, hb) under Lasker's rule, after
    ``placements.placement_pass`` has left in ``value`` what its placements give where the mover
    has men in hand (else ``value`` is written here, DUP at each slot that is not canonical). Only
    the moves that close a mill are listed (``mover_targets``, once for each run of slots that
    share the mover's men): those that remove leave
    the group, their successors ranked and read here (``succ[MOVE + k]``), each row as
    ``generate_moves`` lists it. The others stay inside and are counted: with a popcount where the
    opponent's men have no symmetry (no two moves then reach one slot), else by ranking them
    (``count_internal``). Where the rest gives a draw or a win, the position is PENDING with
    ``ext`` that and ``count`` NOT_COUNTED (it never loses, so no count-down reads its count);
    else a position with no move inside gets its value, the others PENDING with
    ``ext`` and their count. Rules where a mill wins, a full board draws or a blocked side passes
    take ``placing.tier_pass`` and ``summarise`` instead. Returns the successors that found no
    stored position.

    The positions are taken MOVES_BATCH at a time: their removing moves' successors listed first
    (asking for each one's ``mask_info`` entry), then ranked (asking for its value), then read
    (``removal_keys``), and each position concluded after (``conclude_moves``)."""
    n, point_mills, mill_masks = g.n, g.point_mills, g.mill_masks
    flying = g.opts[OPT_FLY] != 0 and a + ha == 3
    places = ha > 0
    slots = value.shape[0]
    per = ix.binom[n - a, b]
    nchunks = (slots + CHUNK - 1) // CHUNK
    bad = np.zeros(nchunks, dtype=np.int64)
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        succ_slots = np.empty(g.n * g.n, dtype=np.int64)
        syms = np.empty(SYMS, dtype=np.int64)
        third = np.empty(mill_masks.shape[0], dtype=np.int64)
        pair = np.empty(mill_masks.shape[0], dtype=np.int64)
        # per man of the mover: where it may go and where it would close a mill, the opponent's
        # men aside (``mover_targets``); the same for a run of slots, which share the mover's men
        points = np.empty(a, dtype=np.int64)
        goes = np.empty(a, dtype=np.int64)
        closes = np.empty(a, dtype=np.int64)
        # the batch: per position its slot, men, best key so far and moves (all, and closing);
        # per removing move's successor its opponent-to-be, mover-to-be, kind and position
        pos = np.empty((MOVES_BATCH, 6), dtype=np.int64)
        rows = np.empty((ROWS_ROOM, 4), dtype=np.int64)
        npos, nrows = 0, 0
        lo = c * CHUNK
        m, o = unrank_position(a, b, lo, ix)
        rep, r = lo // per, lo % per
        last_m = np.int64(-1)
        for s in range(lo, min(slots, lo + CHUNK)):
            if s > lo:  # each slot's position follows from the one before
                m, o, r, rep = next_position(a, b, m, o, r, rep, ix)
            if places:
                v = value[s]
                if v == DUP:
                    continue
                key = own_key(v)
            else:
                if ix.mask_info[m] & SYMMETRIC and not is_canonical_pair(m, o, ix):
                    value[s] = DUP
                    continue
                key = 0
            if m != last_m:
                mover_targets(m, flying, points, goes, closes, third, pair, g)
                last_m = m
            pos[npos, 3] = key  # (raised by the rows read, where the room fills, before it is done)
            moves = 0
            closing = 0  # moves that close a mill
            for i in range(a):
                frm = points[i]
                lowf = np.int64(1) << frm
                moves += popcount(goes[i] & ~o)
                # only the moves that close a mill are listed; the others are counted above
                t = closes[i] & ~o
                closing += popcount(t)
                while t:
                    lowt = t & -t
                    t ^= lowt
                    to = ctz(lowt)
                    m2 = (m ^ lowf) | lowt
                    formed = mills_formed(m2, to, point_mills)
                    k = _emit_with_removals(buf, 0, frm, to, formed, o, g)
                    # the rows that remove leave the group; one that removes nothing stays in it
                    for q in range(k):
                        o2 = o
                        removed = 0
                        for col in range(2, 5):
                            if buf[q, col] >= 0:
                                o2 &= ~(np.int64(1) << buf[q, col])
                                removed += 1
                        if removed == 0:
                            continue
                        if popcount(o2) + hb < 3:
                            pos[npos, 3] = max(pos[npos, 3], WIN_KEY - 1)  # the opponent is left with two men: a win in 1
                            continue
                        if nrows == ROWS_ROOM:
                            bad[c] += removal_keys(rows, nrows, pos, succ, ix)
                            nrows = 0
                        prefetch(ix.mask_info, o2)
                        rows[nrows, 0], rows[nrows, 1] = o2, m2
                        rows[nrows, 2], rows[nrows, 3] = MOVE + removed, npos
                        nrows += 1
            pos[npos, 0], pos[npos, 1], pos[npos, 2] = s, m, o
            pos[npos, 4], pos[npos, 5] = moves, closing
            npos += 1
            if npos == MOVES_BATCH:
                bad[c] += removal_keys(rows, nrows, pos, succ, ix)
                conclude_moves(a, b, pos, npos, flying, value, ext, count, succ_slots, syms, g, ix)
                npos, nrows = 0, 0
        if npos:  # the chunk's last batch
            bad[c] += removal_keys(rows, nrows, pos, succ, ix)
            conclude_moves(a, b, pos, npos, flying, value, ext, count, succ_slots, syms, g, ix)
    return bad.sum()


@helper
def removal_keys(rows, nrows, pos, succ, ix):
    """``moves_pass``' removing moves' successors ``rows[:nrows]`` (opponent-to-be, mover-to-be,
    kind, position in the batch) ranked into their tiers (``succ`` by kind), each one's value
    asked for, then read: each position's key ``pos[p, 3]`` raised to the best. Returns the
    successors that found no stored position (the slot past its tier, or DUP there)."""
    n = ix.n
    for i in range(nrows):
        o2, after = rows[i, 0], rows[i, 1]
        slot = slot_from(o2, after, ix.mask_info[o2], ix.binom[n - popcount(o2), popcount(after)], ix)
        arr = succ[rows[i, 2]]
        if slot < arr.shape[0]:
            prefetch(arr, slot)
        rows[i, 0] = slot
    bad = 0
    for i in range(nrows):
        arr = succ[rows[i, 2]]
        slot = rows[i, 0]
        if slot >= arr.shape[0]:
            bad += 1
            continue
        v = arr[slot]
        bad += v == DUP
        p = rows[i, 3]
        pos[p, 3] = max(pos[p, 3], key_of(v))
    return bad


@helper
def conclude_moves(a, b, pos, npos, flying, value, ext, count, succ_slots, syms, g, ix):
    """``moves_pass``' last step for the batch's ``npos`` positions, their keys complete."""
    for p in range(npos):
        s, m, o, key, moves, closing = pos[p, 0], pos[p, 1], pos[p, 2], pos[p, 3], pos[p, 4], pos[p, 5]
        if key >= DRAW_KEY:  # never a loss: a win inside, sooner, comes from the un-moves alone
            value[s] = PENDING
            ext[s] = value_of(key)
            count[s] = NOT_COUNTED
            continue
        if ix.mask_info[o] & SYMMETRIC:
            k = count_internal(a, b, m, o, flying, succ_slots, syms, g, ix)
        else:  # no two moves reach one slot: counted in the loop above (``count_internal``'s way)
            k = moves if closing and mill_keeps_men(o, g) else moves - closing
        if k == 0:
            value[s] = value_of(key)
        else:
            value[s] = PENDING
            ext[s] = value_of(key)
            count[s] = k


@helper
def mover_targets(m, flying, points, goes, closes, third, pair, g):
    """For each man of ``m`` (``points[i]``, lowest first): the points it may go to with the
    opponent's men left out (``goes[i]``: every point not m's where it flies, else its neighbours
    not m's), and those of them where it closes a mill (``closes[i]``: the third point of a mill
    whose other two are m's and not its own, as ``open_mills`` and ``closed_by`` find them). A
    position (m, o) then moves to ``goes[i] & ~o`` and closes at ``closes[i] & ~o``."""
    full = (np.int64(1) << g.n) - 1
    nopen = open_mills(m, full & ~m, g.mill_masks, third, pair)
    f = m
    i = 0
    while f:
        lowf = f & -f
        f ^= lowf
        frm = ctz(lowf)
        points[i] = frm
        goes[i] = full & ~m if flying else g.adj[frm] & ~m
        closes[i] = goes[i] & closed_by(lowf, nopen, third, pair)
        i += 1


@helper
def unmoves(x, y, hy, m, o, out, g, ix):
    """Distinct slots of tier (y, x, hy, hx) from which the position (m, o) of tier (x, y, hx, hy)
    is reached by a move inside the group: o's man moved back (flying if o's side has three men
    with those in hand), the move having closed no mill unless it need not remove. The inverse of
    ``count_internal``'s moves; returns how many (written to ``out``)."""
    k = unmove_movers(x, y, hy, m, o, out, 0, g, ix)
    per = ix.binom[ix.n - y, x]
    for r in range(k):
        out[r] = slot_from(out[r], m, ix.mask_info[out[r]], per, ix)
    return sort_unique(out, k) if k > 1 else k


@helper
def unmove_movers(x, y, hy, m, o, out, k, g, ix):
    """``unmoves``' predecessors as their movers' men (the opponent's being m), written from
    out[k]; asks for each one's ``mask_info`` entry (a large table) for the ranking that follows.
    Returns where they end."""
    n, adj, point_mills, opts = g.n, g.adj, g.point_mills, g.opts
    if opts[OPT_MILL_WINS] and men_in_mills(m, g.mill_masks) != 0:
        return k  # the side to move had closed a mill before: the game had ended
    empty = ((1 << n) - 1) & ~(m | o)
    flying = opts[OPT_FLY] != 0 and y + hy == 3
    may_keep = mill_keeps_men(m, g)
    t = o
    while t:
        lowt = t & -t
        to = ctz(lowt)
        t ^= lowt
        if not may_keep and mills_formed(o, to, point_mills) > 0:
            continue
        f = empty if flying else adj[to] & empty
        while f:
            lowf = f & -f
            f ^= lowf
            mover = (o & ~lowt) | lowf
            prefetch(ix.mask_info, mover)
            out[k] = mover
            k += 1
    return k


# level_step: decided positions whose un-moves are ranked and applied together, and the room for
# them (a position has at most n * n / 4 un-moves)
BATCH = 128
ROOM = 8192
# slots of a block, the unit that knows the lowest level it holds: a level's decisions are sparse
# and scattered, so that most parts of CHUNK slots receive one or two, while most blocks receive
# none and are not read
BLOCK = 128
BLOCKS = CHUNK // BLOCK  # blocks a part
assert CHUNK % BLOCK == 0


@nb.njit(cache=True, parallel=True)
def level_step(level, value, ext, count, parts, order, part_of, lowest, part_low, touched, tiers, offsets, twin_of, g, ix):
    """Settle level ``level`` (see the module's note) over the group; ``parts`` (start, stop,
    tier) split its slots into work items, part ``part_of[i] + (s - offsets[i]) // CHUNK`` holding
    slot s of tier i, taken in the ``order`` that ``interleave`` gives. Each part is BLOCKS blocks
    of BLOCK slots, block b of part c numbered c * BLOCKS + b. ``lowest[k]``: the lowest code above
    the last level that block k holds or schedules (0 at first: every block is scanned);
    ``part_low[c]`` the lowest of part c's blocks. A block (a part) with nothing at this level is
    skipped. The decisions a block receives from other threads' parts during the step are
    gathered in ``touched`` (an atomic minimum, all NONE between steps) and merged after it
    (``merge_blocks``). Returns the lowest code over all parts (NONE: the analysis is over), or
    -1 where a loss would lie beyond MAX_LEVEL.

    A part's decided positions are taken BATCH at a time (``settle_batch``): their un-moves'
    movers listed first, asking for their entries of ``mask_info``, then ranked, asking for
    their values (and counts), then applied: the scattered reads of one position overlap those of the next
    instead of waiting one after another."""
    code = level + 1
    n = g.n
    nparts = parts.shape[0]
    overflow = np.zeros(nparts, dtype=np.bool_)
    for r in nb.prange(nparts):
        c = order[r]
        if part_low[c] > code:
            continue  # nothing here at this level
        lo, hi, i = parts[c, 0], parts[c, 1], parts[c, 2]
        x, y, hy = tiers[i, 0], tiers[i, 1], tiers[i, 3]
        off, j = offsets[i], twin_of[i]
        twin = (offsets[j], part_of[j], ix.binom[n - y, x])  # where, and how, the predecessors rank
        preds = np.empty(ROOM, dtype=np.int64)
        others = np.empty(BATCH, dtype=np.int64)
        ends = np.empty(BATCH, dtype=np.int64)
        npos, k = 0, 0
        for b in range(BLOCKS):
            blk = c * BLOCKS + b
            if lowest[blk] > code:
                continue
            if lo + b * BLOCK >= hi:  # past the tier's end: never holds anything
                lowest[blk] = NONE
                continue
            low = NONE
            for s in range(lo + b * BLOCK, min(hi, lo + (b + 1) * BLOCK)):
                v = value[s]
                if v == PENDING:
                    e = ext[s]
                    if e == 0 or not wins_in(e - 1):
                        continue
                    if e != code:
                        low = min(low, e)
                        continue
                    v = code  # a solved successor wins at this level and nothing inside won sooner
                    value[s] = v
                if v != code:
                    if v > code and v != DUP:
                        low = min(low, v)
                    continue
                m, o = unrank_position(x, y, s - off, ix)
                k = unmove_movers(x, y, hy, m, o, preds, k, g, ix)
                others[npos] = m
                ends[npos] = k
                npos += 1
                if npos == BATCH or k + n * n // 4 > ROOM:
                    overflow[c] |= settle_batch(code, preds, others, ends, npos, twin, value, ext, count, touched, ix)
                    npos, k = 0, 0
            lowest[blk] = low
        if npos:
            overflow[c] |= settle_batch(code, preds, others, ends, npos, twin, value, ext, count, touched, ix)
    if overflow.any():
        return -1
    return merge_blocks(lowest, part_low, touched)


def interleave(parts, offsets, sizes):
    """An order of the parts that alternates between the group's tiers, each in its own order:
    the threads split the parts in equal runs, and one level's positions often lie mostly in one
    tier (the side with more men wins more), which a run per tier would leave to one thread."""
    i = parts[:, 2]
    where = (parts[:, 0] - offsets[i]) / np.maximum(sizes[i], 1)  # how far into its tier
    return np.lexsort((i, where)).astype(np.int64)


@helper
def settle_batch(code, preds, others, ends, npos, twin, value, ext, count, touched, ix):
    """Rank the un-moves ``unmove_movers`` listed for ``npos`` positions decided at ``code``
    (position p's opponent others[p], its movers up to ends[p]) into slots of the twin tier
    (``twin``: its offset in the group, its first part, its slots per mover set), then decide
    them from it: after a loss, a win at code + 1; after a win, one successor fewer, and a loss
    when it was the last (at the later of code + 1 and what the solved successors give). Returns
    whether a loss would lie beyond MAX_LEVEL."""
    twin_off, twin_part, per = twin
    mask_info = ix.mask_info
    wins = wins_in(code - 1)
    w, k = 0, 0
    for p in range(npos):
        m = others[p]
        first = w
        while k < ends[p]:
            mover = preds[k]
            q = slot_from(mover, m, mask_info[mover], per, ix)
            prefetch(value, twin_off + q)
            if wins:
                prefetch(count, twin_off + q)
            preds[w] = q
            k += 1
            w += 1
        if mask_info[m] & SYMMETRIC and w - first > 1:  # only a symmetry fixing m makes two share a slot
            w = sort_unique_range(preds, first, w)
    overflow = False
    for r in range(w):
        q = twin_off + preds[r]
        if value[q] != PENDING:
            continue
        if not wins:
            value[q] = code + 1  # the position is lost: q wins by moving there
            atomic_min(touched, twin_part * BLOCKS + preds[r] // BLOCK, code + 1)
        elif count[q] == NOT_COUNTED:
            continue  # q draws or wins by a solved successor whatever the position is
        elif atomic_fetch_sub(count, q, 1) == 1:  # the position wins, and it was q's last hope inside
            e = ext[q]
            if e == 0 or wins_in(e - 1):
                continue  # a solved successor draws, or wins later (decided then)
            lv = max(code + 1, e)  # a loss: at the later of this and the solved ones' longest
            if lv > MAX_LEVEL + 1:
                overflow = True
                continue
            value[q] = lv
            atomic_min(touched, twin_part * BLOCKS + preds[r] // BLOCK, lv)
    return overflow


@nb.njit(cache=True, parallel=True)
def merge_blocks(lowest, part_low, touched):
    """After a level step: each block's lowest code with what other threads' parts scheduled in
    it (``touched``, reset to NONE), and each part's; returns the lowest over all parts (NONE:
    nothing left)."""
    for c in nb.prange(part_low.shape[0]):
        low = NONE
        for k in range(c * BLOCKS, (c + 1) * BLOCKS):
            lowest[k] = min(lowest[k], touched[k])
            touched[k] = NONE
            low = min(low, lowest[k])
        part_low[c] = low
    return part_low.min() if part_low.shape[0] else NONE


@helper
def merge_touched(lowest, touched):
    """``merge_blocks`` where each part is one block (the history rule's engine): each part's
    lowest code with what other threads' parts scheduled in it (``touched``, reset to NONE);
    returns the lowest over all parts (NONE: nothing left)."""
    first = NONE
    for c in range(lowest.shape[0]):
        lowest[c] = min(lowest[c], touched[c])
        touched[c] = NONE
        first = min(first, lowest[c])
    return first


@nb.njit(cache=True, parallel=True)
def finish(value):
    """What stays PENDING is a draw."""
    for s in nb.prange(value.shape[0]):
        if value[s] == PENDING:
            value[s] = 0
