"""Numba kernels of ``morris verify``: every stored value against the best over its successors.

It recomputes positions' values from scratch with forward move generation (``generate_moves``,
the kernel that is tested against OpenSpiel) and the stored values of their successors. It shares
no code with the engine's un-move generation, counting or scheduling, so it checks them
independently; it uses only the index helpers of ``index.slots``
(a successor's slot). The tiers with men in hand are checked the same way by ``placing_kernels``,
which builds on the helpers here. Together over all positions, these local checks determine every value and
depth uniquely: by induction on the depth, each stored win or loss is then right, and so is each
draw. The local check of a position (``expected_value``): a win in p has a successor that is a
loss in p - 1 and none shorter; a loss in p has only successors that are wins, the longest in
p - 1 (a position without moves is a loss in 0); a draw has no successor that is a loss and one
that is a draw. Every canonical slot of a subspace (a, b) must pass it, and every other slot
must hold DUP. Three ways to establish that, with the same verdict on every slot:

The twin walk (``verify_from_twin``, ``check_duplicates``) checks each canonical slot in full. It
walks the slots of the twin (b, a) rather than those of (a, b): a canonical slot of (b, a) holds
(O, M), O an orbit minimum; swapping the colours gives the position (M, O) of (a, b), a one-to-one
map between the positions up to symmetry of the two subspaces (a symmetry maps (O, M) to (O', M')
exactly when it maps (M, O) to (M', O')). So the walk reaches each canonical slot of (a, b) once,
through ``rank_position``. What it gains: every move without a removal leads from (M, O) to (O, M')
with the same mover O, which the walk holds fixed over a run of C(n - b, a) slots: its symmetries
are set up once per run (``canon_setup``), a successor's slot is a colex rank, and the successors'
values lie in that one run of twin slots, in cache. A position is judged from the rules' own tests
(``moves.fold_moves``: the colex rank by three lookups from the position's set of free points, a
removal's successor through the run's set-up of o - q), or from ``generate_moves``' list where a
move closes two mills under one removal per mill or a blocked side passes (``expected_with_setup``).
The positions' own values, at scattered slots, are read a batch at a time (their ``mask_info``
entries and values asked for ahead). ``check_duplicates`` checks DUP in the other slots.

The sweep (``not_draws``, ``mark_predecessors``, ``sweep``) does not compute the draws whose
successors are all draws. First it marks every position of (a, b) that may move to a successor
that is not a draw (any value but 0 at a canonical slot of (b - k, a), k = 0 up to the most men a
move removes). From each such successor (X, Y), X to move, the candidates are (Y - to + frm, X + R):
``to`` any man of Y; ``frm`` any empty point, or for a side that does not fly one with a line to
``to``; R any set of k empty points other than frm, and for k > 0 only where ``to`` completes a
mill of Y. Every move that ``generate_moves`` lists takes one man from frm to to, to a neighbour
unless the side flies, and removes men only when the arrival completes a mill (the tests hold it
to these); so if P moves to a successor S' whose stored value is not 0, the symmetry that takes
S' to its stored form S takes P to one of S's candidates, which ranks to P's slot: P is marked.
Then it walks (a, b) in slot order, checks DUP in the non-canonical slots, and checks in full
every canonical slot except a draw that is not marked, that has a move (one of its men has an
empty neighbour, and ``generate_moves`` then lists a move) and whose game no rule of its own ends
(``_game_over``: a mill-wins rule, or a full board). Such a draw has a successor, and all its
successors are stored draws: it passes the check of a draw, with nothing to compute.

The marked walk (``verify_from_twin`` with ``skip``) is the twin walk with the sweep's shortcut:
the candidates of moves with a removal are marked as in the sweep, those of moves without one
run by run of the twin (``_local_marks``: they all lie in the run, the twin slots (O, M') that
hold no draw give the candidates M' - to + frm, with every image of M' under O's stabiliser),
and the draws that neither marks are passed over as in the sweep. It serves where most positions
are draws but many have a successor that is not, as where the side to move flies.

The sweep and the marked walk need every successor to be stored: they serve only where no removal
leaves the opponent two men (a loss that no subspace stores). The verifier picks, subspace by
subspace, the way that should be fastest (``verify._Run._plan``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import (
    SYM_BITS,
    SYMMETRIC,
    colex_rank,
    image,
    is_canonical_pair,
    rank_position,
    unrank_position,
)
from ..index.slots import canon_setup, slot_with
from ..jit import helper, prefetch
from ..rules.bits import ctz, popcount
from ..rules.boards import MAX_SYMMETRIES
from ..rules.movegen import (
    MAX_MOVES,
    OPT_FLY,
    OPT_FULL_DRAW,
    OPT_MILL_WINS,
    OPT_PASS,
    generate_moves,
    men_in_mills,
    mills_formed,
)
from .. import values
from ..values import DUP
from .moves import NO_WIN, TABLED_FROM, TWO_MILLS, fold_moves, setup_removals

wins_in = helper(values.wins_in)  # the parity of solver.values, compiled here too (no engine kernel)


@helper
def _best(sv, best_win, worst_loss, draw):
    """Fold one successor's stored value (for the opponent) into the running best."""
    if sv == 0:
        draw = True
    elif not wins_in(sv - 1):  # the opponent loses: we win one ply later
        if best_win == 0 or sv + 1 < best_win:
            best_win = sv + 1
    elif sv + 1 > worst_loss:
        worst_loss = sv + 1
    return best_win, worst_loss, draw


@helper
def _game_over(m, o, g):
    """The value of a position whose game is over before any move: -1 when it goes on."""
    if g.opts[OPT_MILL_WINS] and men_in_mills(o, g.mill_masks) != 0:
        return 1
    if g.opts[OPT_FULL_DRAW] and (m | o) == (1 << g.n) - 1:
        return 0  # a full board is a draw (game_status says so too)
    return -1


@helper
def _after(m, o, buf, i):
    """(mover's men, opponent's men) after move row i of ``buf``, still from the mover's side."""
    frm, to = buf[i, 0], buf[i, 1]
    if to >= 0:
        if frm >= 0:
            m = m & ~(1 << frm)
        m = m | (1 << to)
    for j in range(2, 5):
        if buf[i, j] >= 0:
            o = o & ~(1 << buf[i, j])
    return m, o


@helper
def _fewer(s, left, b, fewer1, fewer2, fewer3):
    if left == b - 1:
        return np.int64(fewer1[s])
    if left == b - 2:
        return np.int64(fewer2[s])
    return np.int64(fewer3[s])


@helper
def _conclude(best_win, worst_loss, draw):
    if best_win:
        return best_win
    if draw:
        return 0
    return worst_loss


@helper
def expected_value(m, o, buf, twin, fewer1, fewer2, fewer3, b, g, ix):
    """The value (engine encoding) that (m, o) must have, given its successors' stored values:
    ``twin`` is (b, a), ``fewerK`` is (b - K, a), after a move that removes K men. Every
    successor is ranked with the full ``rank_position``."""
    over = _game_over(m, o, g)
    if over >= 0:
        return over
    k = generate_moves(m, o, 0, 0, g, buf)
    if k == 0:
        return 1
    best_win = 0
    worst_loss = 0
    draw = False
    for i in range(k):
        m2, o2 = _after(m, o, buf, i)
        left = popcount(o2)
        if left < 3:
            sv = 1  # the opponent has lost: a loss in 0 for them
        else:
            s = rank_position(o2, m2, ix)
            if left == b:
                sv = np.int64(twin[s])
            else:
                sv = _fewer(s, left, b, fewer1, fewer2, fewer3)
        best_win, worst_loss, draw = _best(sv, best_win, worst_loss, draw)
    return _conclude(best_win, worst_loss, draw)


@helper
def expected_with_setup(m, o, oc, rep_o, syms, nsyms, per_twin, buf, twin, fewer1, fewer2, fewer3, b, g, ix):
    """``expected_value`` with the new mover's symmetries set up once: ``syms[:nsyms]`` take
    ``o`` to its orbit minimum ``oc`` of rank ``rep_o`` (``canon_setup``). A successor without
    removal, (o, m2), is ranked as slot_with does, by the colex rank of m2's smallest image under
    those symmetries (m2 itself when o is its own minimum with a trivial stabiliser). Successors
    with a removal are ranked in full."""
    over = _game_over(m, o, g)
    if over >= 0:
        return over
    k = generate_moves(m, o, 0, 0, g, buf)
    if k == 0:
        return 1
    binom = ix.binom
    base = rep_o * per_twin
    plain = nsyms == 1 and oc == o
    best_win = 0
    worst_loss = 0
    draw = False
    for i in range(k):
        m2, o2 = _after(m, o, buf, i)
        if o2 == o:
            if plain:
                s = base + colex_rank(m2, o, binom)
            else:
                s = slot_with(oc, rep_o, m2, syms, nsyms, ix.sym_img, per_twin, binom)
            sv = np.int64(twin[s])
        else:
            left = popcount(o2)
            if left < 3:
                sv = 1  # the opponent has lost: a loss in 0 for them
            else:
                sv = _fewer(rank_position(o2, m2, ix), left, b, fewer1, fewer2, fewer3)
        best_win, worst_loss, draw = _best(sv, best_win, worst_loss, draw)
    return _conclude(best_win, worst_loss, draw)


@helper
def _free_points(mask, n, fp):
    """The points outside ``mask``, in increasing order, into fp; returns how many."""
    k = 0
    for p in range(n):
        if (mask >> p) & 1 == 0:
            fp[k] = p
            k += 1
    return k


@helper
def _spread(c, free, deposit):
    """The points of ``free`` picked by the bits of c (bit i: the i-th point of ``free``), by a
    lookup per byte of the board (``deposit``, the index's table)."""
    out = 0
    for byte in range(3):
        f = (free >> (8 * byte)) & 255
        k = popcount(f)
        out |= np.int64(deposit[f, c & ((1 << k) - 1)]) << (8 * byte)
        c >>= k
    return out


@helper
def _next_colex(c):
    """The next larger integer with as many bits as c (Gosper): the next set in colex order."""
    low = c & -c
    r = c + low
    return (((r ^ c) >> 2) >> ctz(low)) | r


@helper
def _smallest_image(x, syms, nsyms, sym_img):
    """Whether x is the smallest of its images under syms[1:nsyms] (syms[0] is the identity)."""
    for i in range(1, nsyms):
        if image(sym_img, syms[i], x) < x:
            return False
    return True


BATCH = 256  # positions whose own values are gathered at once (their slots are scattered)


@helper
def _mobile(m, o, adj, n):
    """Whether one of m's men has an empty neighbour: then ``generate_moves`` gives m a move."""
    empty = ((1 << n) - 1) & ~(m | o)
    x = m
    while x:
        if adj[ctz(x)] & empty:
            return True
        x &= x - 1
    return False


@helper
def _fill_into(adj, n, into):
    """into[q]: the points with a line to q (from where a man that does not fly reaches q)."""
    for q in range(n):
        into[q] = 0
    for p in range(n):
        for q in range(n):
            if adj[p] >> q & 1:
                into[q] |= 1 << p


@helper
def _local_marks(a, o, base, per_twin, twin, syms, nsyms, fp, into, flies, local, ix):
    """The sweep's candidates of the moves without removal, within one run of the twin walk
    (mover ``o``, an orbit minimum, the twin slots base + j): local[j] = 1 for every m whose
    position (m, o) may move to a slot of the run that holds no draw. From each canonical such
    slot (o, m') and each image h(m') under o's stabiliser (a successor ranks to the smallest
    image), the candidates h(m') - to + frm, as in ``mark_predecessors``."""
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    free = ((1 << n) - 1) & ~o
    for j in range(per_twin):
        local[j] = 0
    cm = (1 << a) - 1
    for j in range(per_twin):
        if j:
            cm = _next_colex(cm)
        if twin[base + j] == 0:
            continue
        mp = _spread(cm, free, ix.deposit)
        if nsyms > 1 and not _smallest_image(mp, syms, nsyms, sym_img):
            continue  # no position: the walk reaches its orbit at another slot
        for h in range(nsyms):
            mh = mp if h == 0 else image(sym_img, syms[h], mp)  # syms[0]: the identity
            empty = free & ~mh
            ys = mh
            while ys:
                to = ctz(ys)
                ys &= ys - 1
                rest = mh & ~(1 << to)
                fs = empty if flies else empty & into[to]
                while fs:
                    frm = ctz(fs)
                    fs &= fs - 1
                    local[colex_rank(rest | (1 << frm), o, binom)] = 1


@helper
def _expected_fast(m, cm, o, rep_o, syms, nsyms, rem, twin, fewer1, g, ix):
    """``expected_with_setup`` from the rules' own tests (``moves.fold_moves``; ``cm``: m as a set
    of o's free points, ``rem``: the run's removals); TWO_MILLS where the position needs
    ``generate_moves``' list (a move closing two mills under one removal per mill, a pass)."""
    over = _game_over(m, o, g)
    if over >= 0:
        return over
    win, loss, draw, moves = fold_moves(m, cm, o, 0, 0, rep_o, syms, nsyms, rem, twin, fewer1, g, ix, np.int64(NO_WIN), np.int64(0), False)
    if win < 0:
        return win
    if moves == 0:
        return TWO_MILLS if g.opts[OPT_PASS] else 1  # blocked: a loss in 0 (or the pass, listed)
    if win < NO_WIN:
        return win
    return 0 if draw else loss


@helper
def _check_batch(k, ms, cms, js, slots, stored, flags, o, rep_o, syms, nsyms, per_twin, buf, values, skip, marks, local,
                 over_rules, twin, fewer1, fewer2, fewer3, b, g, ix, err, c, fast, rem):
    """Check the k positions (ms[i], o) of one batch (ms[i] at js[i] in the run; cms[i]: ms[i]
    as a set of o's free points). Their slots are ranked first and their stored values read in a
    loop of their own, so that the scattered reads overlap in memory. With ``skip``, a draw that
    neither ``marks`` (at its slot) nor ``local`` (at js[i]) marks, that has a move and whose game
    no rule of its own ends, passes without its successors (see the module's docstring). Where
    ``fast``, a position's value comes from ``_expected_fast``, else (and where that cannot
    serve) from ``generate_moves``' list."""
    for i in range(k):
        slots[i] = rank_position(ms[i], o, ix)
        prefetch(values, slots[i])
    for i in range(k):
        stored[i] = values[slots[i]]
    if skip:
        for i in range(k):
            flags[i] = marks[slots[i]] | local[js[i]]
    for i in range(k):
        if skip and stored[i] == 0 and flags[i] == 0 and not over_rules and _mobile(ms[i], o, g.adj, ix.n):
            continue
        want = TWO_MILLS
        if fast:
            want = _expected_fast(ms[i], cms[i], o, rep_o, syms, nsyms, rem, twin, fewer1, g, ix)
        if want == TWO_MILLS:
            want = expected_with_setup(ms[i], o, o, rep_o, syms, nsyms, per_twin, buf, twin, fewer1, fewer2, fewer3, b, g, ix)
        if stored[i] != want:
            _record(err, c, slots[i])


@nb.njit(cache=True, parallel=True)
def verify_from_twin(a, b, r0, r1, nblocks, skip, marks, values, twin, fewer1, fewer2, fewer3, g, ix, ranks, fast_ok, bad, max_bad):
    """Check the canonical slots of (a, b) whose twin (b, a) slots lie in the runs of the twin's
    orbit minima r0 <= r < r1 (see the module's docstring), in ``nblocks`` blocks of runs;
    return the number of mismatches and add up to ``max_bad`` mismatched slots of (a, b) to
    ``bad`` (the first of each block). With ``skip``, the marked walk: ``marks`` (one byte per
    slot of (a, b)) holds the sweep's candidates of the moves with a removal, each run adds
    those without (``_local_marks``), and the draws that neither marks pass as in the sweep.
    Positions are judged by the rules' own tests (``moves.fold_moves``, its removals through
    tables set up per run, ``ranks`` being ``compact_rank``'s) except where a mill wins or the
    board is full, or without ``fast_ok`` (the tests compare): then by ``generate_moves``' list."""
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    per_twin = binom[n - b, a]
    offset = ix.rep_offset[b]
    flies = g.opts[OPT_FLY] != 0 and a == 3  # generate_moves: popcount(me) + hand_me == 3
    over_rules = g.opts[OPT_MILL_WINS] != 0 or (g.opts[OPT_FULL_DRAW] != 0 and a + b == n)
    fast = fast_ok and a + b < n and g.opts[OPT_MILL_WINS] == 0
    tabled = per_twin >= TABLED_FROM
    reps = r1 - r0
    nblocks = max(1, min(reps, nblocks))
    err = np.zeros((nblocks, 2), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        into = np.empty(n, dtype=np.int64)
        _fill_into(g.adj, n, into)
        local = np.zeros(per_twin if skip else 1, dtype=np.uint8)
        ms = np.empty(BATCH, dtype=np.int64)
        cms = np.empty(BATCH, dtype=np.int64)
        js = np.empty(BATCH, dtype=np.int64)
        slots = np.empty(BATCH, dtype=np.int64)
        stored = np.empty(BATCH, dtype=np.int64)
        flags = np.empty(BATCH, dtype=np.uint8)
        qsyms = np.empty((n, MAX_SYMMETRIES), dtype=np.int64)  # the run's removals (``moves.setup_removals``)
        qn = np.empty(n, dtype=np.int64)
        qmc = np.empty(n, dtype=np.int64)
        qrep = np.empty(n, dtype=np.int64)
        qpts = np.empty((n if fast and tabled else 1, 3, 256), dtype=np.int32)
        for r in range(r0 + c * reps // nblocks, r0 + (c + 1) * reps // nblocks):
            o = ix.reps[offset + r]
            nsyms = canon_setup(o, ix, syms)
            _free_points(o, n, fp)
            free = ((1 << n) - 1) & ~o
            if skip:
                _local_marks(a, o, r * per_twin, per_twin, twin, syms, nsyms, fp, into, flies, local, ix)
            nq = setup_removals(o, tabled, qsyms, qn, qmc, qrep, qpts, g, ix) if fast else 0
            rem = (nq, qsyms, qn, qmc, qrep, qpts, tabled, ranks)
            cm = (1 << a) - 1
            k = 0
            for j in range(per_twin):
                if j:
                    cm = _next_colex(cm)
                m = _spread(cm, free, ix.deposit)
                # (o, m) is a canonical position of the twin when m is the smallest of its
                # images under o's stabiliser; the others are seen at another slot.
                if nsyms == 1 or _smallest_image(m, syms, nsyms, sym_img):
                    prefetch(ix.mask_info, m)  # for its own slot, ranked when the batch is full
                    ms[k] = m
                    cms[k] = cm
                    js[k] = j
                    k += 1
                if k == BATCH or (j == per_twin - 1 and k > 0):
                    _check_batch(
                        k, ms, cms, js, slots, stored, flags, o, r, syms, nsyms, per_twin, buf, values, skip, marks, local,
                        over_rules, twin, fewer1, fewer2, fewer3, b, g, ix, err, np.int64(c), fast, rem,
                    )
                    k = 0
    return _gather(err, bad, max_bad)


@nb.njit(cache=True, parallel=True)
def check_duplicates(a, b, r0, r1, nblocks, values, ix, bad, max_bad):
    """Check that the non-canonical slots of (a, b) among the runs of its orbit minima
    r0 <= r < r1 hold DUP (only a mover with a non-trivial stabiliser has such slots). Returns
    the number of mismatches, the first of each block into ``bad``."""
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    per = binom[n - a, b]
    offset = ix.rep_offset[a]
    reps = r1 - r0
    nblocks = max(1, min(reps, nblocks))
    err = np.zeros((nblocks, 2), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        for r in range(r0 + c * reps // nblocks, r0 + (c + 1) * reps // nblocks):
            m = ix.reps[offset + r]
            if ix.mask_info[m] & SYMMETRIC == 0:
                continue
            nsyms = canon_setup(m, ix, syms)
            _free_points(m, n, fp)
            free = ((1 << n) - 1) & ~m
            co = (1 << b) - 1
            for j in range(per):
                if j:
                    co = _next_colex(co)
                if not _smallest_image(_spread(co, free, ix.deposit), syms, nsyms, sym_img) and values[r * per + j] != DUP:
                    _record(err, c, r * per + j)
    return _gather(err, bad, max_bad)


@helper
def _not_draws_in_runs(a, b, r0, r1, values, ix, syms, fp, out, k, fill):
    """Count (or, with ``fill``, write to out[k:]) the canonical slots of (a, b) in the runs
    r0 <= r < r1 whose value is not 0; returns k plus their number."""
    n, binom, sym_img = ix.n, ix.binom, ix.sym_img
    per = binom[n - a, b]
    offset = ix.rep_offset[a]
    for r in range(r0, r1):
        m = ix.reps[offset + r]
        nsyms = canon_setup(m, ix, syms)
        base = r * per
        if nsyms == 1:  # every slot of the run is canonical
            for j in range(per):
                if values[base + j] != 0:
                    if fill:
                        out[k] = base + j
                    k += 1
            continue
        _free_points(m, n, fp)
        free = ((1 << n) - 1) & ~m
        co = (1 << b) - 1
        for j in range(per):
            if j:
                co = _next_colex(co)
            if values[base + j] != 0 and _smallest_image(_spread(co, free, ix.deposit), syms, nsyms, sym_img):
                if fill:
                    out[k] = base + j
                k += 1
    return k


@nb.njit(cache=True, parallel=True)
def not_draws(a, b, values, nblocks, ix):
    """The canonical slots of (a, b) whose value is not 0 (a draw), in increasing order."""
    n = ix.n
    reps = ix.rep_offset[a + 1] - ix.rep_offset[a]
    nblocks = max(1, min(reps, nblocks))
    starts = np.zeros(nblocks + 1, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    for c in nb.prange(nblocks):
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        starts[c + 1] = _not_draws_in_runs(a, b, c * reps // nblocks, (c + 1) * reps // nblocks, values, ix, syms, fp, none, 0, False)
    for c in range(nblocks):
        starts[c + 1] += starts[c]
    out = np.empty(starts[nblocks], dtype=np.int64)
    for c in nb.prange(nblocks):
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        _not_draws_in_runs(a, b, c * reps // nblocks, (c + 1) * reps // nblocks, values, ix, syms, fp, out, starts[c], True)
    return out


@helper
def _mark(marks, mover, other, ix):
    marks[rank_position(mover, other, ix)] = 1


@nb.njit(cache=True, parallel=True)
def mark_predecessors(a, b, k, sources, nblocks, marks, g, ix, count_only=False):
    """Mark in ``marks`` (one byte per slot of (a, b)) every position of (a, b) that may reach
    one of the canonical slots ``sources`` of (b - k, a) by a move removing k men (see the
    module's docstring).

    For a source (X, Y), X to move, the candidates are (Y - to + frm, X + R): ``to`` any man of
    Y, ``frm`` an empty point from which a man moves to ``to``, R any k empty points other than
    frm; with k > 0 only where the arrival at ``to`` completes a mill of Y. These are the tests
    ``generate_moves`` makes: a man flies (the mover has three men and the rules let it fly) or
    moves to an adjacent point (``g.adj[frm]``), and it removes men only after a mill through
    ``to`` (``mills_formed``). No other test (whether the men are removable, how many mills
    close): a superset of the predecessors is what the check needs. Returns the number of
    candidates; with ``count_only``, only counts them."""
    n, point_mills, binom, adj = ix.n, g.point_mills, ix.binom, g.adj
    full = (1 << n) - 1
    flies = g.opts[OPT_FLY] != 0 and a == 3  # generate_moves: popcount(me) + hand_me == 3
    into = np.empty(n, dtype=np.int64)
    _fill_into(adj, n, into)
    count = sources.shape[0]
    nblocks = max(1, min(count, nblocks))
    total = np.zeros(nblocks, dtype=np.int64)
    for c in nb.prange(nblocks):
        for i in range(c * count // nblocks, (c + 1) * count // nblocks):
            x, y = unrank_position(b - k, a, sources[i], ix)
            if not is_canonical_pair(x, y, ix):
                continue
            empty = full & ~(x | y)
            e = popcount(empty)
            ys = y
            while ys:
                to = ctz(ys)
                ys &= ys - 1
                if k > 0 and mills_formed(y, to, point_mills) == 0:
                    continue
                fs = empty if flies else empty & into[to]
                total[c] += popcount(fs) * binom[e - 1, k]
                if count_only:
                    continue
                rest_m = y & ~(1 << to)
                while fs:
                    frm = ctz(fs)
                    fs &= fs - 1
                    mv = rest_m | (1 << frm)
                    if k == 0:
                        _mark(marks, mv, x, ix)
                        continue
                    r1s = empty & ~(1 << frm)
                    while r1s:
                        r1 = r1s & -r1s
                        r1s ^= r1
                        if k == 1:
                            _mark(marks, mv, x | r1, ix)
                            continue
                        r2s = r1s  # the second removed man above the first: each set once
                        while r2s:
                            r2 = r2s & -r2s
                            r2s ^= r2
                            if k == 2:
                                _mark(marks, mv, x | r1 | r2, ix)
                                continue
                            r3s = r2s
                            while r3s:
                                r3 = r3s & -r3s
                                r3s ^= r3
                                _mark(marks, mv, x | r1 | r2 | r3, ix)
    return total.sum()


@nb.njit(cache=True, parallel=True)
def sweep(a, b, r0, r1, nblocks, values, marks, twin, fewer1, fewer2, fewer3, g, ix, bad, max_bad):
    """Check the slots of (a, b) in the runs of its orbit minima r0 <= r < r1, in slot order: a
    non-canonical slot must hold DUP; a canonical one is checked against its successors unless
    it is a draw that ``marks`` leaves out, that has a move (one of its men has an empty
    neighbour) and whose game is not over by a rule of its own (see the module's docstring).
    Returns the number of mismatches, the first of each block into ``bad``."""
    n, binom, sym_img, adj, mask_info = ix.n, ix.binom, ix.sym_img, g.adj, ix.mask_info
    per = binom[n - a, b]
    per_twin = binom[n - b, a]
    offset = ix.rep_offset[a]
    # Positions whose game may be over by a rule of its own (_game_over) are all checked.
    over_rules = g.opts[OPT_MILL_WINS] != 0 or (g.opts[OPT_FULL_DRAW] != 0 and a + b == n)
    reps = r1 - r0
    nblocks = max(1, min(reps, nblocks))
    err = np.zeros((nblocks, 2), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        osyms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        for r in range(r0 + c * reps // nblocks, r0 + (c + 1) * reps // nblocks):
            m = ix.reps[offset + r]
            nsyms = canon_setup(m, ix, syms)
            nfree = _free_points(m, n, fp)
            free = ((1 << n) - 1) & ~m
            # The free points next to one of m's men, as bits of the opponent's colex set.
            near = 0
            for i in range(nfree):
                x = m
                while x:
                    if adj[ctz(x)] >> fp[i] & 1:
                        near |= 1 << i
                        break
                    x &= x - 1
            co = (1 << b) - 1
            base = r * per
            for j in range(per):
                if j:
                    co = _next_colex(co)
                v = values[base + j]
                if nsyms > 1 and not _smallest_image(_spread(co, free, ix.deposit), syms, nsyms, sym_img):
                    ok = v == DUP
                elif v == 0 and marks[base + j] == 0 and near & ~co != 0 and not over_rules:
                    continue  # a draw all of whose successors are draws, and it has one
                else:
                    o = _spread(co, free, ix.deposit)
                    ns = canon_setup(o, ix, osyms)
                    want = expected_with_setup(
                        m, o, image(sym_img, osyms[0], o), mask_info[o] >> SYM_BITS, osyms, ns, per_twin, buf,
                        twin, fewer1, fewer2, fewer3, b, g, ix,
                    )
                    ok = v == want
                if not ok:
                    _record(err, c, base + j)
    return _gather(err, bad, max_bad)


@helper
def _record(err, c, slot):
    """Count a mismatch of block c; remember the block's first mismatched slot."""
    err[c, 0] += 1
    if err[c, 1] < 0:
        err[c, 1] = slot


@nb.njit(cache=True)
def _gather(err, bad, max_bad):
    """Total mismatches of err[:, 0]; the first slots err[:, 1] appended to ``bad``."""
    k = 0
    while k < max_bad and bad[k] >= 0:
        k += 1  # slots already listed by an earlier call
    total = 0
    for c in range(err.shape[0]):
        total += err[c, 0]
        if err[c, 1] >= 0 and k < max_bad:
            bad[k] = err[c, 1]
            k += 1
    return total


@nb.njit(cache=True, parallel=True)
def verify_subspace(a, b, values, twin, fewer1, fewer2, fewer3, g, ix, bad, max_bad):
    """The direct check, slot by slot of (a, b), each successor ranked in full: several times
    slower than ``verify_from_twin`` + ``check_duplicates``, which the tests compare it with."""
    slots = values.shape[0]
    block = 4096
    nblocks = (slots + block - 1) // block
    err = np.zeros((nblocks, 2), dtype=np.int64)
    err[:, 1] = -1
    for c in nb.prange(nblocks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        for slot in range(c * block, min(slots, (c + 1) * block)):
            m, o = unrank_position(a, b, slot, ix)
            canonical = is_canonical_pair(m, o, ix)
            if not canonical:
                ok = values[slot] == DUP
            else:
                want = expected_value(m, o, buf, twin, fewer1, fewer2, fewer3, b, g, ix)
                ok = values[slot] == want
            if not ok:
                _record(err, c, slot)
    return _gather(err, bad, max_bad)
