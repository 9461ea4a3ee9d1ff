"""Numba kernels of ``morris verify`` for the tiers with men in hand (the placing phase).

A tier (a, b, ha, hb) is checked as the moving phase is (``kernels``), by its own forward check
and nothing of the solver's: every position's successors are listed by the rules' forward move
generation (``generate_moves``, ``apply_move``: placements, moves, Lasker's move instead of a
placement, the pass where the rules give one, each with its removals), each is ranked into its
tier's slot by the index, and the stored value must be the best over the stored values of its
successors (``expected_in_tier``): a win in p has a successor that is a loss in p - 1 and none
shorter; a loss in p has only successors that are wins, the longest in p - 1; a draw has no
successor that is a loss and one that is a draw. Before any move: the opponent's mill under
``mill-wins`` is a loss in 0, a full board under ``full-board=draw`` a draw, and a side without a
move a loss in 0 (with ``blocked=passes`` ``generate_moves`` lists the pass instead). A successor
whose new side to move has fewer than 3 men on the board and in hand is a loss in 0 for it,
stored nowhere. Every other slot must hold DUP. The same local check serves Lasker's cycling
groups (a tier and its twin, moves going back and forth): the twin's stored values are read like
any other successor tier's, and by induction on the depth the local checks of all positions fix
every value, as in the moving phase.

``succ``, the successors' values, is a tuple of eight arrays by the kind of move that reaches
them (``kind``): a placement removing k men into (b - k, a + 1, hb, ha - 1) is kind k, a move (or
the pass) removing k men into (b - k, a, hb, ha) kind 4 + k. A tier that the caller did not load
is an empty array: a successor there counts as ``missed`` (the caller says which tiers a move
reaches that it did not expect, rather than passing the position).

The walk (``verify_tier_walk``) goes through the positions of (a, b, ha, hb) as the moving
phase's twin walk does: by the twin board (b, a), whose canonical slots hold (o, m) with o an
orbit minimum, one-to-one with the positions (m, o) up to symmetry. Every successor without a
removal (a placement, a move, the pass) has the mover o, held fixed over a run of the walk: its
slot is r * C(n - b, men) + the colex rank of the other side's men (``slot_with`` where o has
symmetries of its own), in one run of the successor tier, in cache. Runs are cut in pieces of
``PIECE`` slots so that the threads share tiers with few runs (b = 0 or 1) evenly. The positions'
own values are read a batch at a time. ``kernels.check_duplicates`` checks DUP in the other
slots. Except where a mill wins (``walks_fast``), a position's successors come from the rules'
tests for a placement, a move and a removal instead of ``generate_moves``' list
(``_expected_fast``): a placement's colex rank from the position's own, the removals' targets
(o - q) set up once per run, and the best removal kept per m + p for the positions of the run
that reach the same m + p (the several m lacking one man of its mill; 2026-11-25). A
move (where the mover has no man in hand, or under Lasker's rule) ranks the same way: from the
position's own colex form, and through the run's o - q where it removes (2026-11-28). Under
optional removal a placement or move that closes a mill also leads to (o, m2); under one
removal per mill, a position with a placement or move that closes two mills at once is listed
by ``generate_moves`` instead (``TWO_MILLS``), and so is a blocked position where the side
passes.

The sweep (``kernels.not_draws``, ``mark_tier_predecessors``, ``sweep_tier``) skips the draws
whose successors are all draws, as the moving phase's sweep does. It first marks every position
of the tier that may move to a successor that is not a draw: from each canonical slot (X, Y)
holding no draw in a successor tier, the candidates a placement or a move could have come from
(see ``mark_tier_predecessors``). If P moves to S' whose stored value is not 0, the symmetry that
takes S' to its stored form S takes P to one of S's candidates, which ranks to P's slot: P is
marked. Then it walks the tier in slot order: DUP in the non-canonical slots, and every canonical
slot checked in full (``expected_in_tier``) except a draw that is not marked, that has a move (an
empty point to place on, or to fly to, or a man next to one, or the pass) and whose game no rule
of its own ends. Such a draw has a successor, and all its successors are stored draws: it
passes the local check with nothing to compute. It serves only where no move leaves the
opponent fewer than 3 men (a win that no tier stores); the verifier picks the sweep or the walk
tier by tier (``check._TierCheck._plan``). ``verify_tier_direct`` checks slot by slot with every
successor ranked in full: the tests compare the three.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.compact import compact_rank
from ..index.kernels import (
    colex_rank,
    colex_unrank,
    is_canonical_pair,
    rank_position,
    unrank_position,
)
from ..index.slots import canon_setup, slot_with
from ..jit import helper, inlined, prefetch
from ..rules.bits import ctz, popcount
from ..rules.boards import MAX_SYMMETRIES
from ..rules.movegen import (
    MAX_MOVES,
    OPT_FLY,
    OPT_FULL_DRAW,
    OPT_LASKER,
    OPT_MILL_WINS,
    OPT_OPTIONAL,
    OPT_PASS,
    OPT_PER_MILL,
    apply_move,
    generate_moves,
    mills_formed,
)
from ..values import DUP
from .kernels import (
    _best,
    _conclude,
    _fill_into,
    _free_points,
    _game_over,
    _next_colex,
    _record,
    _smallest_image,
    _spread,
)
from .moves import MISSED, NO_WIN, TABLED_FROM, TWO_MILLS, fold, fold_moves, setup_removals  # noqa: F401 (TABLED_FROM: for pk's callers)

KINDS = 8  # placements removing 0..3 men, then moves (or the pass) removing 0..3
MOVE = 4
PIECE = 1 << 14  # slots of the twin walked by one work item (a run, or a piece of a long one)
# ``_fold_placements``' memo entry: the quickest win (bits 0-20, NO_WIN included), the longest
# loss (21-37), a draw (38), and from bit MEMO_STAMP the mark of the run that wrote it: one int64
# an entry, so that a block's memo stays in the core's cache.
MEMO_STAMP = 39
PIPE = 32  # positions of the walk judged together; their own slots are asked for a batch ahead


@helper
def _kind(ha, hand2, b, o2):
    """A successor's kind: a placement (the hand went down) or a move, and the men it removed."""
    return (0 if hand2 < ha else MOVE) + b - popcount(o2)


@helper
def expected_in_tier(m, o, ha, hb, buf, succ, g, ix):
    """The value (engine encoding) that position (m, o) with ``ha`` and ``hb`` men in hand must
    have, given its successors' stored values in ``succ`` (by kind); every successor ranked in
    full. ``MISSED`` where a successor lies in a tier ``succ`` does not hold."""
    over = _game_over(m, o, g)
    if over >= 0:
        return over
    k = generate_moves(m, o, ha, hb, g, buf)
    if k == 0:
        return 1  # blocked: a loss in 0
    b = popcount(o)
    best_win = 0
    worst_loss = 0
    draw = False
    for i in range(k):
        m2, o2, hand2 = apply_move(m, o, ha, buf[i, 0], buf[i, 1], buf[i, 2], buf[i, 3], buf[i, 4])
        if popcount(o2) + hb < 3:
            sv = 1  # the opponent is left with two men: a loss in 0 for them
        else:
            values = succ[_kind(ha, hand2, b, o2)]
            s = rank_position(o2, m2, ix)
            if s >= values.shape[0]:
                return MISSED
            sv = np.int64(values[s])
        best_win, worst_loss, draw = _best(sv, best_win, worst_loss, draw)
    return _conclude(best_win, worst_loss, draw)


@helper
def _expected_with_setup(m, o, ha, hb, rep_o, syms, nsyms, buf, succ, g, ix):
    """``expected_in_tier`` for an orbit minimum ``o`` of rank ``rep_o`` whose symmetries
    (``canon_setup``: its stabiliser) are ``syms[:nsyms]``: a successor without a removal, (o, m2),
    is ranked by the colex rank of m2's smallest image under them (m2 itself when there is only
    the identity). Successors with a removal are ranked in full."""
    over = _game_over(m, o, g)
    if over >= 0:
        return over
    k = generate_moves(m, o, ha, hb, g, buf)
    if k == 0:
        return 1
    n, binom = ix.n, ix.binom
    b = popcount(o)
    best_win = 0
    worst_loss = 0
    draw = False
    for i in range(k):
        m2, o2, hand2 = apply_move(m, o, ha, buf[i, 0], buf[i, 1], buf[i, 2], buf[i, 3], buf[i, 4])
        if o2 == o:
            values = succ[MOVE if hand2 == ha else 0]
            per = binom[n - b, popcount(m2)]
            if nsyms == 1:
                s = rep_o * per + colex_rank(m2, o, binom)
            else:
                s = slot_with(o, rep_o, m2, syms, nsyms, ix.sym_img, per, binom)
        elif popcount(o2) + hb < 3:
            best_win, worst_loss, draw = _best(1, best_win, worst_loss, draw)  # a loss in 0 for them
            continue
        else:
            values = succ[_kind(ha, hand2, b, o2)]
            s = rank_position(o2, m2, ix)
        if s >= values.shape[0]:
            return MISSED
        best_win, worst_loss, draw = _best(np.int64(values[s]), best_win, worst_loss, draw)
    return _conclude(best_win, worst_loss, draw)


@helper
def walks_fast(a, b, ha, opts, n):
    """Whether ``_expected_fast`` serves the positions of tier (a, b, ha, .): its placements (a man
    in hand and an empty point), its moves (no man in hand, or Lasker's rule), no mill that wins.
    (A placement or move closing two mills under one removal per mill, and a blocked side that
    passes, are left to ``_expected_with_setup``, position by position: ``TWO_MILLS``.)"""
    return a + b < n and not opts[OPT_MILL_WINS]


@inlined
def _expected_fast(m, cm, o, ha, hb, rep_o, syms, nsyms, run, succ, g, ix):
    """``_expected_with_setup`` for a tier that ``walks_fast`` admits, from the rules' own tests
    (``_fold_placements`` where the mover has men in hand, ``moves.fold_moves`` where it has none or
    Lasker's rule lets it move instead) rather than the list of ``generate_moves``; the tests hold
    the two to the same verdicts. TWO_MILLS where the position needs that list, MISSED where a
    successor's tier is not held."""
    over = _game_over(m, o, g)
    if over >= 0:
        return over
    fp, nfree, nq, qsyms, qn, qmc, qrep, memo, stamp, low, high, qpts, tabled, ranks = run
    win, loss, draw = np.int64(NO_WIN), np.int64(0), False
    if ha > 0:
        win, loss, draw = _fold_placements(m, cm, o, hb, rep_o, syms, nsyms, run, succ, g, ix)
        if win < 0:
            return win
    if ha == 0 or g.opts[OPT_LASKER]:
        rem = (nq, qsyms, qn, qmc, qrep, qpts, tabled, ranks)
        win, loss, draw, moves = fold_moves(m, cm, o, ha, hb, rep_o, syms, nsyms, rem, succ[MOVE], succ[MOVE + 1], g, ix, win, loss, draw)
        if win < 0:
            return win
        if ha == 0 and moves == 0:
            return TWO_MILLS if g.opts[OPT_PASS] else 1  # blocked: a loss in 0 (or the pass, listed)
    if win < NO_WIN:
        return win
    return 0 if draw else loss


@inlined
def _fold_placements(m, cm, o, hb, rep_o, syms, nsyms, run, succ, g, ix):
    """(quickest win, longest loss, a draw) over the placements of (m, o), ``fold``'s way, from
    the rules' own tests (an empty point to place on, the points where a man closes one mill or
    two, found once per position from the mills' masks, ``removable_men`` of the run's o); the
    win is TWO_MILLS or MISSED where ``_expected_fast`` cannot serve. ``cm``: m as
    a set of o's ``nfree`` free points ``fp`` (bit i for fp[i]); ``run``: the run's tables. A placement on fp[j] leads to
    (o, m + fp[j]), whose colex rank among the free points follows from cm's without a loop: the
    men below j keep their terms C(e_t, t + 1), j adds C(j, t_j + 1), the men above move up one
    place (C(e_t, t + 2)). Where it closes a mill and o has removable men, it leads instead to
    (o - q, m + fp[j]) for each of them (``moves.setup_removals``: nq of them, set up once per run):
    the best of those depends on m + fp[j] alone, and is kept in ``memo`` under its colex rank
    for the other m of the run that lack one man of its mill (``stamp[0]``: the run's mark).
    Where o - q's orbit minimum has no symmetry of its own and the run is long (``tabled``),
    its slot comes from the run's ``point_table`` and ``compact_rank`` (six lookups)."""
    fp, nfree, nq, qsyms, qn, qmc, qrep, memo, stamp, low, high, qpts, tabled, ranks = run
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    optional, per_mill = g.opts[OPT_OPTIONAL] != 0, g.opts[OPT_PER_MILL] != 0
    a = popcount(m)
    b = popcount(o)
    per0 = binom[n - b, a + 1]  # slots per mover set of the successor tiers
    per1 = binom[n - b + 1, a + 1]
    place, take = succ[0], succ[1]
    # the low and high sums of cm's men: low[t] = sum of C(e_u, u + 1) over u < t,
    # high[t] = sum of C(e_u, u + 2) over u >= t
    low[0] = 0
    x = cm
    t = 0
    while x:
        e = ctz(x)
        x &= x - 1
        low[t + 1] = low[t] + binom[e, t + 1]
        high[t] = binom[e, t + 2]
        t += 1
    high[a] = 0
    for u in range(a - 1, -1, -1):
        high[u] += high[u + 1]
    win, loss, draw = NO_WIN, 0, False
    # the empty points where a man of m closes a mill (the mill's other two points m's), and
    # where it closes two at once
    closing = 0
    if nq > 0:
        twice = 0
        for mill in g.mill_masks:
            y = mill & ~m
            y *= (y & (y - 1)) == 0  # one point of the mill missing (y == 0 adds nothing)
            twice |= closing & y
            closing |= y
        empty = ~(m | o) & ((1 << n) - 1)
        closing &= empty
        if per_mill and twice & empty:
            return np.int64(TWO_MILLS), np.int64(0), False
    x = ~cm & ((1 << nfree) - 1)  # the empty points, as free-point indices
    while x:
        j = ctz(x)
        x &= x - 1
        t = popcount(cm & ((1 << j) - 1))  # men of cm below j
        p = fp[j]
        m2 = m | (1 << p)
        key = low[t] + binom[j, t + 1] + high[t]  # the colex rank of cm + j
        if (closing >> p) & 1:
            e = memo[key]
            if e >> MEMO_STAMP != stamp[0]:
                bw, wl, dr = NO_WIN, 0, False
                for i in range(nq):
                    if b - 1 + hb < 3:
                        sv = np.int64(1)  # the opponent is left with two men: a loss in 0 for them
                    else:
                        if tabled and qn[i] == 1:  # o - q's image without a symmetry of its own: tabled
                            tb = qpts[i]
                            s = qrep[i] * per1 + compact_rank(tb[0, m2 & 255] | tb[1, (m2 >> 8) & 255] | tb[2, (m2 >> 16) & 255], ranks)
                        else:
                            s = slot_with(qmc[i], qrep[i], m2, qsyms[i], qn[i], sym_img, per1, binom)
                        if s >= take.shape[0]:
                            return np.int64(MISSED), np.int64(0), False
                        sv = np.int64(take[s])
                    bw, wl, dr = fold(sv, bw, wl, dr)
                e = (stamp[0] << MEMO_STAMP) | (np.int64(dr) << 38) | (wl << 21) | bw
                memo[key] = e
            win = min(win, e & ((1 << 21) - 1))
            loss = max(loss, (e >> 21) & ((1 << 17) - 1))
            draw |= (e >> 38) & 1 != 0
            if not optional:
                continue
            # an optional removal: the placement may also leave R's men as they are, (o, m + p)
        if nsyms == 1:
            s = rep_o * per0 + key
        else:
            s = slot_with(o, rep_o, m2, syms, nsyms, sym_img, per0, binom)
        if s >= place.shape[0]:
            return np.int64(MISSED), np.int64(0), False
        win, loss, draw = fold(np.int64(place[s]), win, loss, draw)
    return win, loss, draw


@helper
def _check_batch(k, ms, cms, wants, held, nheld, o, ha, hb, rep_o, syms, nsyms, buf, values, succ, g, ix, err, c, fast, run):
    """Check the k positions (ms[i], o) of one batch (cms[i]: ms[i] as a set of o's free points)
    a batch late. Their own slots are scattered: the walk asked for their ``mask_info`` entries
    as it listed them, their expected values are computed here first (``run``: the tables of
    ``_expected_fast``, used where ``fast``), then the previous batch's stored values (asked
    for a batch ago, ``held[:nheld]``: slot, expected) are compared, then this batch's slots are
    ranked and asked for. Returns the new ``nheld``."""
    for i in range(k):
        want = TWO_MILLS
        if fast:
            want = _expected_fast(ms[i], cms[i], o, ha, hb, rep_o, syms, nsyms, run, succ, g, ix)
        if want == TWO_MILLS:
            want = _expected_with_setup(ms[i], o, ha, hb, rep_o, syms, nsyms, buf, succ, g, ix)
        wants[i] = want
    _compare_held(held, nheld, values, err, c)
    for i in range(k):
        s = rank_position(ms[i], o, ix)
        prefetch(values, s)
        held[i, 0] = s
        held[i, 1] = wants[i]
    return k


@helper
def _compare_held(held, nheld, values, err, c):
    """Compare the stored values of the held slots with their expected values."""
    for i in range(nheld):
        want = held[i, 1]
        if want == MISSED:
            err[c, 2] += 1
        elif values[held[i, 0]] != want:
            _record(err, c, held[i, 0])


@nb.njit(cache=True, parallel=True)
def verify_tier_walk(a, b, ha, hb, i0, i1, nblocks, values, succ, g, ix, ranks, tabled_from, fast_ok, bad, max_bad):
    """Check the canonical slots of tier (a, b, ha, hb) reached from the work items
    i0 <= i < i1 of the walk of the twin board (b, a) (see the module's docstring; item i is
    piece i % pieces of run i // pieces, ``pieces`` = ceil(C(n - b, a) / PIECE)), in ``nblocks``
    blocks. Where ``walks_fast`` admits the tier (and ``fast_ok``: False for the tests, to compare)
    positions are checked by ``_expected_fast``, else from ``generate_moves``' list; its removals
    are ranked through ``point_table`` and ``compact_rank`` (``ranks``) in the runs of
    ``tabled_from`` positions or more (``TABLED_FROM``). Returns (mismatches,
    successors in tiers not held), and adds up to ``max_bad`` mismatched slots to ``bad`` (the
    first of each block)."""
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    per_twin = binom[n - b, a]
    pieces = (per_twin + PIECE - 1) // PIECE
    offset = ix.rep_offset[b]
    fast = fast_ok and walks_fast(a, b, ha, g.opts, n)
    memo_size = binom[n - b, a + 1] if fast and ha > 0 else 0
    # the removals' successors ranked through tables set up per run, where a run is long enough
    tabled = per_twin >= tabled_from
    items = i1 - i0
    nblocks = max(1, min(items, nblocks))
    err = np.zeros((nblocks, 3), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        ms = np.empty(PIPE, dtype=np.int64)
        cms = np.empty(PIPE, dtype=np.int64)
        wants = np.empty(PIPE, dtype=np.int64)
        held = np.empty((PIPE, 2), dtype=np.int64)
        # (int64 from the start, and the block as int64 below: prange's index is uint64 in the
        # parallel pass, and each type would compile the helpers once more)
        nheld = np.int64(0)
        qsyms = np.empty((n, MAX_SYMMETRIES), dtype=np.int64)
        qn = np.empty(n, dtype=np.int64)
        qmc = np.empty(n, dtype=np.int64)
        qrep = np.empty(n, dtype=np.int64)
        qpts = np.empty((n, 3, 256), dtype=np.int32)  # per q where tabled: ``point_table``
        memo = np.zeros(memo_size, dtype=np.int64)  # ``_fold_placements``' best removals, packed
        stamp = np.zeros(1, dtype=np.int64)  # the current run's mark in ``memo``
        low = np.empty(n + 1, dtype=np.int64)
        high = np.empty(n + 1, dtype=np.int64)
        for item in range(i0 + c * items // nblocks, i0 + (c + 1) * items // nblocks):
            r = item // pieces
            j0 = (item % pieces) * PIECE
            j1 = min(per_twin, j0 + PIECE)
            o = ix.reps[offset + r]
            nsyms = canon_setup(o, ix, syms)
            nfree = _free_points(o, n, fp)
            free = ((1 << n) - 1) & ~o
            nq = 0
            if fast:
                nq = setup_removals(o, tabled, qsyms, qn, qmc, qrep, qpts, g, ix)
                stamp[0] += 1
                if stamp[0] >= 1 << (63 - MEMO_STAMP):  # (never at 24 points: a block has fewer runs)
                    memo[:] = 0
                    stamp[0] = 1
            run = (fp, nfree, nq, qsyms, qn, qmc, qrep, memo, stamp, low, high, qpts, tabled, ranks)
            cm = colex_unrank(j0, n - b, a, binom)  # the j0-th set of a among the free points
            k = 0
            for j in range(j0, j1):
                if j > j0:
                    cm = _next_colex(cm)
                m = _spread(cm, free, ix.deposit)
                # (o, m) is a canonical position of the twin board when m is the smallest of its
                # images under o's stabiliser; the others are reached at another slot.
                if nsyms == 1 or _smallest_image(m, syms, nsyms, sym_img):
                    prefetch(ix.mask_info, m)  # for its own slot, ranked a batch later
                    ms[k] = m
                    cms[k] = cm
                    k += 1
                if k == PIPE or (j == j1 - 1 and k > 0):
                    nheld = _check_batch(
                        k, ms, cms, wants, held, nheld, o, ha, hb, r, syms, nsyms, buf, values, succ, g, ix, err, np.int64(c), fast, run
                    )
                    k = 0
        _compare_held(held, nheld, values, err, np.int64(c))
    return _gather3(err, bad, max_bad)


@nb.njit(cache=True, parallel=True)
def verify_tier_direct(a, b, ha, hb, values, succ, g, ix, bad, max_bad):
    """The direct check of tier (a, b, ha, hb), slot by slot, each successor ranked in full
    (``expected_in_tier``), DUP in the non-canonical slots: slower than the walk, which the tests
    compare it with. Returns (mismatches, successors in tiers not held)."""
    slots = values.shape[0]
    block = 4096
    nblocks = (slots + block - 1) // block
    err = np.zeros((nblocks, 3), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        for slot in range(c * block, min(slots, (c + 1) * block)):
            m, o = unrank_position(a, b, slot, ix)
            if not is_canonical_pair(m, o, ix):
                if values[slot] != DUP:
                    _record(err, c, slot)
                continue
            want = expected_in_tier(m, o, ha, hb, buf, succ, g, ix)
            if want == MISSED:
                err[c, 2] += 1
            elif values[slot] != want:
                _record(err, c, slot)
    return _gather3(err, bad, max_bad)


@nb.njit(cache=True)
def _gather3(err, bad, max_bad):
    """(total mismatches of err[:, 0], total of err[:, 2]); the first slots err[:, 1] appended to
    ``bad``."""
    k = 0
    while k < max_bad and bad[k] >= 0:
        k += 1  # slots already listed by an earlier call
    total = 0
    missed = 0
    for c in range(err.shape[0]):
        total += err[c, 0]
        missed += err[c, 2]
        if err[c, 1] >= 0 and k < max_bad:
            bad[k] = err[c, 1]
            k += 1
    return total, missed


def work_items(n: int, a: int, b: int, rep_count_b: int, binom) -> int:
    """The number of work items of ``verify_tier_walk`` for tier (a, b, ...)."""
    per_twin = int(binom[n - b, a])
    return rep_count_b * ((per_twin + PIECE - 1) // PIECE)


@helper
def _mark_removals(marks, mv, x, free, k, count_only, ix):
    """Mark (mv, x + R) for every set R of k points of ``free``; returns how many."""
    if count_only:
        return ix.binom[popcount(free), k]
    if k == 0:
        marks[rank_position(mv, x, ix)] = 1
        return 1
    r1s = free
    while r1s:
        r1 = r1s & -r1s
        r1s ^= r1
        if k == 1:
            marks[rank_position(mv, x | r1, ix)] = 1
            continue
        r2s = r1s  # the second removed man above the first: each set once
        while r2s:
            r2 = r2s & -r2s
            r2s ^= r2
            if k == 2:
                marks[rank_position(mv, x | r1 | r2, ix)] = 1
                continue
            r3s = r2s
            while r3s:
                r3 = r3s & -r3s
                r3s ^= r3
                marks[rank_position(mv, x | r1 | r2 | r3, ix)] = 1
    return ix.binom[popcount(free), k]


@nb.njit(cache=True, parallel=True)
def mark_tier_predecessors(x, y, k, placement, flies, sources, nblocks, marks, g, ix, count_only=False):
    """Mark in ``marks`` (one byte per slot of the tier checked, (a, b) on the board) every
    position that may reach one of the canonical slots ``sources`` of the successor tier with
    (x, y) on the board (x = b - k, y = a + 1 after a placement, a after a move) by a placement
    (``placement``) or a move removing k men, or by the pass.

    From a source (X, Y), X to move, the candidates are (Y - to, X + R) for a placement and
    (Y - to + frm, X + R) for a move: ``to`` any man of Y (the one that arrived), ``frm`` any
    empty point with a line to ``to`` (any empty point where the mover ``flies``), R any k empty
    points other than frm, and for k > 0 only where ``to`` completes a mill of Y. After a move
    without removal, also (Y, X) where the rules let a side pass. These are the tests
    ``generate_moves`` makes (a placement goes to an empty point, a move to a neighbour unless the
    side flies, a removal only after a mill through the arrival point): a superset of the
    predecessors. Returns the number of candidates; with ``count_only``, only counts them."""
    n, point_mills = ix.n, g.point_mills
    full = (1 << n) - 1
    into = np.empty(n, dtype=np.int64)
    _fill_into(g.adj, n, into)
    passes = g.opts[OPT_PASS] != 0 and not placement and k == 0
    count = sources.shape[0]
    nblocks = max(1, min(count, nblocks))
    total = np.zeros(nblocks, dtype=np.int64)
    for c in nb.prange(nblocks):
        for i in range(c * count // nblocks, (c + 1) * count // nblocks):
            sx, sy = unrank_position(x, y, sources[i], ix)
            empty = full & ~(sx | sy)
            if passes:
                total[c] += 1
                if not count_only:
                    marks[rank_position(sy, sx, ix)] = 1
            ys = sy
            while ys:
                to = ctz(ys)
                ys &= ys - 1
                if k > 0 and mills_formed(sy, to, point_mills) == 0:
                    continue
                rest = sy & ~(1 << to)
                if placement:
                    total[c] += _mark_removals(marks, rest, sx, empty, k, count_only, ix)
                    continue
                fs = empty if flies else empty & into[to]
                while fs:
                    frm = ctz(fs)
                    fs &= fs - 1
                    total[c] += _mark_removals(marks, rest | (1 << frm), sx, empty & ~(1 << frm), k, count_only, ix)
    return total.sum()


@nb.njit(cache=True, parallel=True)
def sweep_tier(a, b, ha, hb, i0, i1, nblocks, values, marks, succ, g, ix, bad, max_bad):
    """Check the slots of tier (a, b, ha, hb) of the work items i0 <= i < i1 (item i: piece
    i % pieces of the run of orbit minimum i // pieces, ``pieces`` = ceil(C(n - a, b) / PIECE)),
    in slot order: a non-canonical slot must hold DUP; a canonical one is checked against its
    successors (``expected_in_tier``) unless it is a draw that ``marks`` leaves out, that has a
    move and whose game no rule of its own ends (see the module's docstring). Returns
    (mismatches, successors in tiers not held), the first mismatch of each block into ``bad``."""
    n, binom, sym_img, adj = ix.n, ix.binom, ix.sym_img, g.adj
    per = binom[n - a, b]
    pieces = (per + PIECE - 1) // PIECE
    offset = ix.rep_offset[a]
    over_rules = g.opts[OPT_MILL_WINS] != 0 or (g.opts[OPT_FULL_DRAW] != 0 and a + b == n)
    # every position has a move: a placement (an empty point is left), a flight, or the pass
    moves = a + b < n and (ha > 0 or (g.opts[OPT_FLY] != 0 and a + ha == 3)) or g.opts[OPT_PASS] != 0
    items = i1 - i0
    nblocks = max(1, min(items, nblocks))
    err = np.zeros((nblocks, 3), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        for item in range(i0 + c * items // nblocks, i0 + (c + 1) * items // nblocks):
            r = item // pieces
            j0 = (item % pieces) * PIECE
            j1 = min(per, j0 + PIECE)
            m = ix.reps[offset + r]
            nsyms = canon_setup(m, ix, syms)
            nfree = _free_points(m, n, fp)
            free = ((1 << n) - 1) & ~m
            # The free points next to one of m's men, as bits of the opponent's colex set.
            near = 0
            for f in range(nfree):
                if _touches(m, fp[f], adj):
                    near |= 1 << f
            co = colex_unrank(j0, n - a, b, binom)
            base = r * per
            for j in range(j0, j1):
                if j > j0:
                    co = _next_colex(co)
                v = values[base + j]
                if nsyms > 1 and not _smallest_image(_spread(co, free, ix.deposit), syms, nsyms, sym_img):
                    if v != DUP:
                        _record(err, c, base + j)
                    continue
                if v == 0 and marks[base + j] == 0 and not over_rules and (moves or near & ~co != 0):
                    continue  # a draw all of whose successors are draws, and it has one
                want = expected_in_tier(m, _spread(co, free, ix.deposit), ha, hb, buf, succ, g, ix)
                if want == MISSED:
                    err[c, 2] += 1
                elif v != want:
                    _record(err, c, base + j)
    return _gather3(err, bad, max_bad)


@helper
def _touches(m, p, adj):
    """Whether point p has a line to one of m's men."""
    x = m
    while x:
        if adj[ctz(x)] >> p & 1:
            return True
        x &= x - 1
    return False


def sweep_items(n: int, a: int, b: int, rep_count_a: int, binom) -> int:
    """The number of work items of ``sweep_tier`` for tier (a, b, ...)."""
    per = int(binom[n - a, b])
    return rep_count_a * ((per + PIECE - 1) // PIECE)
