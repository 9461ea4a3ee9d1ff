"""The pass over a tier whose mover can only place (every rule set but Lasker's), visited in the
order of the successors it reads.

A placement on point p takes (m, o), mover m, to (o, m + p): the opponent's men o become the
mover's of the successor, unchanged unless the placement closes a mill. So the position (m, R),
with R the orbit minimum of its opponent's men, finds the successors of its placements without
a removal in one block of the successor tier: the slots of mover R, ``C(n - b, a + 1)`` of them,
a few kilobytes. ``tier_pass`` visits the tier in its own slot order (by the mover m), where
consecutive positions have unrelated opponents and every successor is a read from far away in
memory; here the positions are visited in the slot order of the twin subspace (b, a): opponent
R major, then m, the a-set of R's free points in colex order. Each position of the tier is there
exactly once (a canonical slot of (b, a) is one orbit of positions), the successors' block stays
in cache while its C(n - b, a) positions are judged, and each position costs one scattered write
(its own slot) where it cost a scattered read per successor. In the free points of R, numbered
0 ... F - 1, m is a set S of a of them and a successor m + p is S + j: its colex rank follows
from S's as j runs up the free points (the ``low`` and ``high`` sums), with no canonical form to
take (R is one; where R has symmetries of its own, the least image of m + p under them).

A placement that closes a mill removes one of R's removable men q: its successor (R - q, m + p)
lies in another block per q, a handful per R, in cache too. Each R - q's symmetry to its
canonical form is tabled per R (``point_table``: the board's bytes to the successor's
free-point indices, then ``compact_rank``), and the best removal is kept per m + p, which the
several m lacking one man of its mill share (``MEMO``). Under optional removal the placement may
also lead to (R, m + p), read as a placement without a mill. Only a placement closing two mills
at once under one removal per mill, and every mill under mill-wins, go the general way
(``_emit_with_removals`` and ``slot_from`` per row).

Measured: the placing phase of the standard board with 6 men
3.06 M positions/s with ``tier_pass``, 17 M with this pass.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.compact import compact_rank, point_table
from ...index.kernels import (
    G0_MASK,
    SYM_BITS,
    SYMMETRIC,
    colex_rank,
    colex_unrank,
    image,
)
from ...index.slots import slot_from
from ...jit import helper
from ...rules.bits import ctz, popcount
from ...rules.movegen import (
    MAX_MOVES,
    OPT_FORFEIT,
    OPT_FULL_DRAW,
    OPT_MILL_WINS,
    OPT_OPTIONAL,
    OPT_PER_MILL,
    _emit_with_removals,
    men_in_mills,
    mills_formed,
    removable_men,
)
from ...values import DUP
from .placing import successor_kind
from .prefetch import prefetch

# A successor's value code v ordered by what it is worth to the side that moves into it, as one
# integer, so that the best successor is a maximum (no branch per successor): a win for us (v
# odd: the opponent loses) above a draw above a loss, the quicker win and the slower loss first.
DRAW_KEY = 0x10000
WIN_KEY = 0x30000  # minus v: a win for us

BATCH = 32  # positions whose own slots are asked for together
WORK = 16384  # positions per parallel work item
MEMO = 16384  # best removals kept per work item (a block of R has C(n - b, a + 1) m + p)


@helper
def key_of(v):
    w = np.int64(v)
    return (w & 1) * (WIN_KEY - 2 * w) + w + (w == 0) * DRAW_KEY


@helper
def value_of(key):
    """The value code of a position from the best key of its successors (0: it has none, a loss
    in 0)."""
    if key > DRAW_KEY:
        return WIN_KEY - key + 1  # a win one ply after the opponent's loss
    if key == DRAW_KEY:
        return 0
    return key + 1  # a loss, as late as the opponent's latest win allows


@helper
def _spread(chosen, free, deposit):
    """The points of the free-point indices in ``chosen`` (``free``: the free points), a byte of
    the board at a time, as ``unrank_position`` does."""
    out = 0
    for byte in range(3):
        f = (free >> (8 * byte)) & 255
        out |= np.int64(deposit[f, chosen & ((1 << popcount(f)) - 1)]) << (8 * byte)
        chosen >>= popcount(f)
    return out


@helper
def closing_points(m, empty, mill_masks):
    """The empty points where a man of ``m`` would close a mill."""
    out = 0
    for mill in mill_masks:
        x = mill & ~m
        out |= x * ((x & (x - 1)) == 0)  # one point of the mill missing (x == 0 adds nothing)
    return out & empty


@helper
def closing_twice(m, empty, mill_masks):
    """The empty points where a man of ``m`` would close two mills or more at once."""
    once = 0
    twice = 0
    for mill in mill_masks:
        x = mill & ~m
        x *= (x & (x - 1)) == 0
        twice |= once & x
        once |= x
    return twice & empty


@helper
def _canonical_under(m, stab, sym_img):
    """Whether no symmetry in ``stab`` (bits; the identity's, bit 0, ignored) takes m lower."""
    rest = stab & ~1
    while rest:
        g = ctz(rest)
        rest &= rest - 1
        if image(sym_img, g, m) < m:
            return False
    return True


@helper
def _general(key, m, R, p, hb, succ, buf, g, ix):
    """The best key over placement p's rows (its removals under any rule options), each ranked
    the general way; and how many found no stored position."""
    after = m | (np.int64(1) << p)
    rows = _emit_with_removals(buf, 0, -1, p, mills_formed(after, p, g.point_mills), R, g)
    return rows_key(key, buf, rows, -1, p, after, R, hb, succ, -1, ix)


@helper
def rows_key(key, buf, rows, frm, to, after, opp, hb, succ, skip, ix):
    """``key`` raised to the best of the ``rows`` that ``_emit_with_removals`` listed for the move
    frm -> to (frm -1: a placement), ``after`` the mover's men after it, ``opp`` the opponent's
    before its removals; rows of successor kind ``skip`` are left out (-1: none). Each successor
    is ranked in full. Returns (key, successors that found no stored position)."""
    n = ix.n
    bad = 0
    for q in range(rows):
        kind = successor_kind(frm, to, buf[q, 2], buf[q, 3], buf[q, 4])
        if kind == skip:
            continue
        opp2 = opp
        for col in range(2, 5):
            if buf[q, col] >= 0:
                opp2 &= ~(np.int64(1) << buf[q, col])
        if popcount(opp2) + hb < 3:
            key = max(key, WIN_KEY - 1)  # the opponent is left with two men: a win in 1
            continue
        arr = succ[kind]
        slot = slot_from(opp2, after, ix.mask_info[opp2], ix.binom[n - popcount(opp2), popcount(after)], ix)
        if slot >= arr.shape[0]:
            bad += 1
            continue
        v = arr[slot]
        bad += v == DUP
        key = max(key, key_of(v))
    return key, bad


@nb.njit(cache=True, parallel=True)
def placement_pass(a, b, ha, hb, value, succ, g, ix, ranks):
    """Values of every slot of tier (a, b, ha, hb), ha >= 1, a + b < n, whose mover only
    places; ``succ[t]`` the successor tiers by kind (``placing.successor_kind``). Returns the
    number of successors that found no stored position (a damaged input: the caller refuses the
    result)."""
    n = g.n
    full = (np.int64(1) << n) - 1
    binom, mask_info, sym_img, mill_masks = ix.binom, ix.mask_info, ix.sym_img, g.mill_masks
    value[:] = DUP  # every canonical slot is written below, once
    F = n - b  # R's free points
    per_twin = binom[F, a]  # positions (m, R) per R
    per_parent = binom[n - a, b]  # slots per mover set of this tier
    per_child = binom[F, a + 1]  # slots per mover set of the successor tier without a removal
    per_removed = binom[F + 1, a + 1]  # and of the one with a man removed
    nreps = ix.rep_offset[b + 1] - ix.rep_offset[b]
    total = nreps * per_twin
    nchunks = (total + WORK - 1) // WORK
    succ0, succ1 = succ[0], succ[1]
    opts = g.opts
    # A placement closing one mill removes one of removable_men, ranked below without the rows;
    # where the removal is optional, it may also stay (R, m + p). Two mills closed at once under
    # one removal per mill, and every mill under mill-wins, go the general way.
    plain = opts[OPT_MILL_WINS] == 0
    per_mill = opts[OPT_PER_MILL] != 0
    optional = opts[OPT_OPTIONAL] != 0
    mill_wins = opts[OPT_MILL_WINS] != 0
    full_draw = opts[OPT_FULL_DRAW] != 0
    # the removals' successors ranked through tables built per R, where R has positions enough
    tabled = per_twin >= 2048
    short_key = WIN_KEY - 1  # a successor where the opponent is left with two men: a win in 1
    bad = np.zeros(nchunks, dtype=np.int64)
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        low = np.empty(a + 2, dtype=np.int64)  # colex rank of S + j: low[i] + high[i] + C(j, i + 1)
        high = np.empty(a + 2, dtype=np.int64)
        q_pt = np.empty(n, dtype=np.int64)  # per removable man q of R: R - q's symmetry, canonical
        q_g = np.empty(n, dtype=np.int64)  # image and slot base, and whether it is symmetric
        q_mc = np.empty(n, dtype=np.int64)
        q_points = np.empty((n, 3, 256), dtype=np.int32)  # point_table per q, where tabled
        q_base = np.empty(n, dtype=np.int64)
        q_sym = np.empty(n, dtype=np.bool_)
        nq = 0
        memo_tag = np.full(MEMO, -1, dtype=np.int64)  # the best removal's key by m + p's slot
        memo_key = np.empty(MEMO, dtype=np.int32)
        # Each position's own slot is a write far away in memory: the slots of a batch are
        # computed (their mask_info entries asked for when each position was begun) and asked
        # for, and written a batch later, while the next batch is judged.
        batch_m = np.empty(BATCH, dtype=np.int64)
        batch_v = np.empty(BATCH, dtype=np.int64)
        batch_r = np.empty(BATCH, dtype=np.int64)
        held_slot = np.empty(BATCH, dtype=np.int64)
        held_v = np.empty(BATCH, dtype=np.int64)
        nbatch = nheld = 0
        start = c * WORK
        stop = min(total, start + WORK)
        rep = start // per_twin - 1
        left = 0  # positions of this R still to come (no division per position)
        R = free = chosen = base = stab = 0
        symmetric = lost = False
        rem = 0
        for t in range(start, stop):
            if left == 0:
                rep += 1
                r0 = t - rep * per_twin
                left = per_twin - r0
                R = ix.reps[ix.rep_offset[b] + rep]
                free = full & ~R
                info_r = mask_info[R]
                symmetric = info_r & SYMMETRIC != 0
                stab = np.int64(ix.stabiliser[ix.rep_offset[b] + rep])
                lost = mill_wins and men_in_mills(R, mill_masks) != 0
                base = (info_r >> SYM_BITS) * per_child
                chosen = colex_unrank(r0, F, a, binom)
                rem = removable_men(R, mill_masks, opts[OPT_FORFEIT]) if plain else 0
                nq = 0
                x = rem
                while x:
                    q = ctz(x)
                    x &= x - 1
                    opp2 = R & ~(np.int64(1) << q)
                    info = mask_info[opp2]
                    q_pt[nq] = q
                    q_g[nq] = info & G0_MASK
                    q_mc[nq] = image(sym_img, info & G0_MASK, opp2)
                    q_base[nq] = (info >> SYM_BITS) * per_removed
                    q_sym[nq] = info & SYMMETRIC != 0
                    if tabled and not q_sym[nq]:
                        point_table(q_points[nq], info & G0_MASK, free, full & ~q_mc[nq], sym_img)
                    nq += 1
            elif chosen != 0:
                # the next a-set in colex order: the next larger integer with a bits (Gosper)
                lb = chosen & -chosen
                ripple = chosen + lb
                chosen = ((ripple ^ chosen) >> (ctz(lb) + 2)) | ripple
            left -= 1
            m = _spread(chosen, free, ix.deposit)
            if symmetric and not _canonical_under(m, stab, sym_img):
                continue  # (R, m) is not canonical: its orbit is visited from its canonical form
            prefetch(mask_info, m)  # read at the end, for this position's own slot
            empty = free & ~m
            if lost:
                v = 1  # the opponent's mill has won (Three Men's Morris): a loss in 0
            elif full_draw and empty == 0:
                v = 0
            else:
                key = 0
                closing = closing_points(m, empty, mill_masks)
                general = closing if not plain else 0  # placements ranked the general way
                if per_mill and plain:
                    general = closing_twice(m, empty, mill_masks)
                removing = closing & ~general if rem != 0 else 0  # placements that remove a man of R
                direct = empty & ~general & ~removing  # their successor is (R, m + p)
                if optional:
                    direct |= removing  # the man may stay: (R, m + p) too
                if direct or removing:
                    # S's elements s_1 < ... < s_a (free-point indices): below j they keep their
                    # place in S + j, above it they move one place up
                    x = chosen
                    i = 0
                    low[0] = 0
                    tot = 0
                    while x:
                        s = ctz(x)
                        x &= x - 1
                        i += 1
                        low[i] = low[i - 1] + binom[s, i]
                        high[i] = binom[s, i + 1]
                        tot += binom[s, i + 1]
                    high[0] = tot
                    for i in range(1, a + 1):
                        high[i] = high[i - 1] - high[i]
                x = direct if b + hb >= 3 else 0
                if direct and b + hb < 3:
                    key = short_key  # the opponent already lacks men: a win at once
                while x:
                    pb = x & -x
                    x ^= pb
                    if symmetric:  # m + p's least image under the symmetries fixing R
                        oc = m | pb
                        rest = stab & ~1
                        while rest:
                            oc = min(oc, image(sym_img, ctz(rest), m | pb))
                            rest &= rest - 1
                        slot = base + colex_rank(oc, R, binom)
                    else:
                        i = popcount(m & (pb - 1))
                        slot = base + low[i] + high[i] + binom[popcount(free & (pb - 1)), i + 1]
                    if slot >= succ0.shape[0]:
                        bad[c] += 1  # (a tier given as the empty stand-in)
                        continue
                    v = succ0[slot]
                    bad[c] += v == DUP
                    key = max(key, key_of(v))
                # A placement closing a mill: the best of its removals depends on R and m + p
                # alone (one removal, any removable man of R), and m + p is reached from the
                # several m that lack one of its mill's men: kept by m + p's slot in R's block.
                x = removing
                while x:
                    pb = x & -x
                    x ^= pb
                    i = popcount(m & (pb - 1))
                    tag = base + low[i] + high[i] + binom[popcount(free & (pb - 1)), i + 1]
                    at = tag & (MEMO - 1)
                    if memo_tag[at] != tag:
                        best = 0
                        if b - 1 + hb < 3:
                            best = short_key  # the opponent is left with two men: a win in 1
                        else:
                            after = m | pb
                            for k in range(nq):
                                if q_sym[k]:
                                    opp2 = R & ~(np.int64(1) << q_pt[k])
                                    slot = slot_from(opp2, after, mask_info[opp2], per_removed, ix)
                                elif tabled:
                                    tb = q_points[k]
                                    y = tb[0, after & 255] | tb[1, (after >> 8) & 255] | tb[2, (after >> 16) & 255]
                                    slot = q_base[k] + compact_rank(y, ranks)
                                else:
                                    slot = q_base[k] + colex_rank(image(sym_img, q_g[k], after), q_mc[k], binom)
                                if slot >= succ1.shape[0]:
                                    bad[c] += 1
                                    continue
                                v = succ1[slot]
                                bad[c] += v == DUP
                                best = max(best, key_of(v))
                        memo_tag[at] = tag
                        memo_key[at] = best
                    key = max(key, memo_key[at])
                x = general
                while x:
                    p = ctz(x)
                    x &= x - 1
                    key, nbad = _general(key, m, R, p, hb, succ, buf, g, ix)
                    bad[c] += nbad
                v = value_of(key)
            batch_m[nbatch] = m
            batch_v[nbatch] = v
            batch_r[nbatch] = R
            nbatch += 1
            if nbatch == BATCH:
                for i in range(nheld):
                    value[held_slot[i]] = held_v[i]
                for i in range(nbatch):
                    mi = batch_m[i]
                    slot = slot_from(mi, batch_r[i], mask_info[mi], per_parent, ix)
                    prefetch(value, slot)
                    held_slot[i] = slot
                    held_v[i] = batch_v[i]
                nheld, nbatch = nbatch, 0
        for i in range(nbatch):
            mi = batch_m[i]
            value[slot_from(mi, batch_r[i], mask_info[mi], per_parent, ix)] = batch_v[i]
        for i in range(nheld):
            value[held_slot[i]] = held_v[i]
    return bad.sum()
