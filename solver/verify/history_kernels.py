"""Numba kernels of the history rule's check (``history``): the stored states of a moving subspace
decoded and held (``split_keys``), then each slot's states against the rules (``check_slots``).

The arrays hold several subspaces, each found by ``info[a, b]`` (its first slot, its slots, its
first block; -1 where not held): per slot its plain value (``plain``: the state without records,
DUP at a duplicate slot) and how many side-table keys it has (``counts``), per 32 slots the row
of their first key (``bfirst``), and per key its code ``ban << 10 | pending`` (``codes``) and
value (``xvals``). A state with records is found by its slot's rows and a binary search among
their codes.

Per slot of the subspace checked: its position unranked, canonical or not; a duplicate slot must
hold DUP and no key. A canonical one's admissible states are listed from the rules
(``history_records.state_codes``) and must be exactly the stored ones (the plain state and the
slot's keys): a stored state not among them (a record that is dead, on the pending's point, or
not the smallest image) or one missing is a fault. Each stored state's value must then be the
best over its legal moves (the moves its ban leaves) of its successors' stored values: the
successor (the opponent's men, the mover's after the move, the pending record if still live, the
record the move made), made canonical, looked up in its subspace; a move leaving the opponent
two men wins at once, no legal move loses in 0. The moves and their successors' slots are found
once a slot, the successors' values once for each pending record among its states (a successor
depends on the pending record, and the state's own ban only forbids moves).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import SYM_BITS, colex_rank, image, unrank_position
from ..index.slots import canon_setup
from ..jit import helper
from ..rules.bits import ctz, popcount
from ..rules.movegen import MAX_MOVES, OPT_FULL_DRAW, apply_move, generate_moves
from ..values import DUP
from .history_records import CODE_BITS, KEY_BITS, LOW10, forbidden, live_record, made_record, record_image, state_codes
from .kernels import _best, _conclude

P0, SLOTS, B0 = range(3)  # info[a, b]
BLOCK_BITS = 5
CHUNK = 1024  # slots a thread takes at a time
MOST_KEYS = 255  # keys of one slot (``counts`` is a byte)
LIST = 1024  # records of one side, states of one position
# faults, counted per chunk: a stored value that its moves do not give; a stored state the rules
# do not admit (or a value or key at a duplicate slot); an admissible state not stored; a state
# with a legal move whose successor is not stored; a position with more states than a buffer
WRONG, EXTRA, MISSING, UNREACHED, OVERFLOW = range(5)
KINDS = 5
# a move's facts, found once a slot: its points, the men after it, the record it makes, its kind,
# the successor's slot, the symmetries that take it there (one bit each), the slot's plain value,
# first key row and keys
F_FRM, F_TO, F_AFTER, F_O2, F_MADE, F_KIND, F_SLOT, F_SYMS, F_PLAIN, F_ROW, F_NK = range(11)
LOST, ABSENT, FOUND = 0, 1, 2  # the opponent left two men; its subspace not held; else


@nb.njit(cache=True)
def split_keys(keys, slots, p0, counts, codes, row, last):
    """A piece of subspace's side-table keys (``slot << 20 | code``), read in order: each slot's
    keys counted into ``counts[p0 + slot]``, the codes into ``codes[row:]``; ``last[0]``, the key
    before the piece, carried to the next. Returns the faults: a key not above the one before it,
    a slot outside the subspace or with more than MOST_KEYS keys."""
    faults = 0
    prev = last[0]
    for i in range(keys.shape[0]):
        k = keys[i]
        s = k >> KEY_BITS
        codes[row + i] = k & ((1 << KEY_BITS) - 1)
        if k <= prev:
            faults += 1
        if s < 0 or s >= slots or counts[p0 + s] == MOST_KEYS:
            faults += 1
        else:
            counts[p0 + s] += 1
        prev = k
    last[0] = prev
    return faults


@helper
def first_row(a, b, s, info, counts, bfirst):
    """The row of slot s's first key (of subspace (a, b))."""
    p0 = info[a, b, P0]
    blk = s >> BLOCK_BITS
    r = bfirst[info[a, b, B0] + blk]
    for i in range(p0 + (blk << BLOCK_BITS), p0 + s):
        r += counts[i]
    return r


@helper
def find_row(codes, lo, n, code):
    """The row of ``code`` among the ascending codes[lo:lo + n], or -1."""
    hi = lo + n
    end = hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < end and codes[lo] == code else -1


@helper
def _successor_code(ban, made, syms, rt):
    """The stored code of a successor's records under the symmetries ``syms`` (one bit each)
    that take its position to the canonical one: the smallest image."""
    best = -1
    while syms:
        g = ctz(syms)
        syms &= syms - 1
        c = (record_image(ban, g, rt) << CODE_BITS) | record_image(made, g, rt)
        if best < 0 or c < best:
            best = c
    return best


@helper
def _judge(ban, nmv, facts, succ, rt, g):
    """The value the moves that ``ban`` leaves give, from their successors' values ``succ``
    (-1 where one is not stored: then -1)."""
    legal = 0
    win, loss, draw = 0, 0, False
    for r in range(nmv):
        if ban != 0 and forbidden(ban, facts[r, F_FRM], facts[r, F_TO], facts[r, F_AFTER], rt, g):
            continue
        legal += 1
        if succ[r] < 0:
            return -1
        win, loss, draw = _best(succ[r], win, loss, draw)
    return 1 if legal == 0 else _conclude(win, loss, draw)


@helper
def _note(faults, examples, c, kind, count, s, code, stored, want):
    faults[c, kind] += count
    if examples[c, 0] < 0:
        examples[c, 0], examples[c, 1], examples[c, 2], examples[c, 3], examples[c, 4] = s, code, kind, stored, want


@nb.njit(cache=True, parallel=True)
def check_slots(a, b, lo, hi, info, plain, counts, bfirst, codes, xvals, rt, g, ix, faults, examples):
    """Slots lo ... hi - 1 of subspace (a, b), CHUNK at a time: ``faults[c, kind]`` counts chunk
    c's faults of each kind (states), ``examples[c]`` its first (slot, code, kind, stored, want).
    Every subspace a move reaches must be held (else UNREACHED)."""
    n = g.n
    full = (np.int64(1) << n) - 1
    p0 = info[a, b, P0]
    sym_img, binom = ix.sym_img, ix.binom
    for c in nb.prange((hi - lo + CHUNK - 1) // CHUNK):
        rows = np.empty((MAX_MOVES, 5), dtype=np.int64)
        facts = np.empty((MAX_MOVES, 11), dtype=np.int64)
        succ = np.empty(MAX_MOVES, dtype=np.int64)
        stab = np.empty(16, dtype=np.int64)
        msyms = np.empty(16, dtype=np.int64)
        rsyms = np.empty(16, dtype=np.int64)
        bans = np.empty(LIST, dtype=np.int64)
        pends = np.empty(LIST, dtype=np.int64)
        want = np.empty(LIST, dtype=np.int64)
        own = np.empty(MOST_KEYS + 1, dtype=np.int64)  # the stored states the rules admit: codes
        vals = np.empty(MOST_KEYS + 1, dtype=np.int64)  # and values
        judged = np.empty(MOST_KEYS + 1, dtype=np.bool_)
        s0 = lo + c * CHUNK
        row = first_row(a, b, s0, info, counts, bfirst)
        for s in range(s0, min(hi, s0 + CHUNK)):
            nk = np.int64(counts[p0 + s])
            pv = np.int64(plain[p0 + s])
            r0 = row
            row += nk
            m, o = unrank_position(a, b, s, ix)  # m is the least of its orbit
            nst = canon_setup(m, ix, stab)  # so these are the symmetries that fix it
            canonical = True
            k = 0
            for i in range(nst):
                x = image(sym_img, stab[i], o)
                if x < o:
                    canonical = False
                    break
                if x == o:
                    stab[k] = stab[i]
                    k += 1
            if not canonical:
                if pv != DUP:
                    _note(faults, examples, c, EXTRA, 1, s, 0, pv, DUP)
                if nk:
                    _note(faults, examples, c, EXTRA, nk, s, codes[r0], -1, -1)
                continue
            ne = state_codes(m, o, stab, k, rt, g, bans, pends, want)
            if ne < 0:
                _note(faults, examples, c, OVERFLOW, 1, s, 0, pv, -1)
                continue
            # the stored states against the admissible ones (both ascending; want[0] = 0, plain)
            nown = 0
            if pv == DUP:
                _note(faults, examples, c, MISSING, 1, s, 0, pv, -1)
            else:
                own[0], vals[0] = 0, pv
                nown = 1
            i = 1
            for r in range(r0, r0 + nk):
                code = np.int64(codes[r])
                while i < ne and want[i] < code:
                    _note(faults, examples, c, MISSING, 1, s, want[i], -1, -1)
                    i += 1
                if i < ne and want[i] == code:
                    own[nown], vals[nown] = code, xvals[r]
                    nown += 1
                    i += 1
                else:
                    _note(faults, examples, c, EXTRA, 1, s, code, xvals[r], -1)
            while i < ne:
                _note(faults, examples, c, MISSING, 1, s, want[i], -1, -1)
                i += 1
            if nown == 0:
                continue
            if g.opts[OPT_FULL_DRAW] and (m | o) == full:
                for j in range(nown):
                    if vals[j] != 0:
                        _note(faults, examples, c, WRONG, 1, s, own[j], vals[j], 0)
                continue
            nmv = generate_moves(m, o, 0, 0, g, rows)
            # a move that removes nothing leaves the next mover o: its symmetries set up once
            nm = canon_setup(o, ix, msyms)
            oc = image(sym_img, msyms[0], o)
            base_o = (ix.mask_info[o] >> SYM_BITS) * binom[n - b, a]
            for r in range(nmv):
                frm, to = rows[r, 0], rows[r, 1]
                after, o2, _ = apply_move(m, o, 0, frm, to, rows[r, 2], rows[r, 3], rows[r, 4])
                facts[r, F_FRM], facts[r, F_TO], facts[r, F_AFTER], facts[r, F_O2] = frm, to, after, o2
                a2 = popcount(o2)
                if a2 < 3:
                    facts[r, F_KIND] = LOST
                    continue
                if info[a2, a, P0] < 0:
                    facts[r, F_KIND] = ABSENT
                    continue
                facts[r, F_MADE] = live_record(made_record(m, frm, to, after, rt, g), after, o2, rt, g)
                if o2 == o:
                    syms, ns, mc, base = msyms, nm, oc, base_o
                else:
                    ns = canon_setup(o2, ix, rsyms)
                    syms, mc = rsyms, image(sym_img, rsyms[0], o2)
                    base = (ix.mask_info[o2] >> SYM_BITS) * binom[n - a2, a]
                # the successor's canonical form: o2 to its least image, then after's least
                best = image(sym_img, syms[0], after)
                which = np.int64(1) << syms[0]
                for j in range(1, ns):
                    x = image(sym_img, syms[j], after)
                    if x < best:
                        best, which = x, np.int64(1) << syms[j]
                    elif x == best:
                        which |= np.int64(1) << syms[j]
                slot = base + colex_rank(best, mc, binom)
                q0 = info[a2, a, P0] + slot
                facts[r, F_KIND], facts[r, F_SLOT], facts[r, F_SYMS] = FOUND, slot, which
                facts[r, F_PLAIN], facts[r, F_NK] = plain[q0], counts[q0]
                facts[r, F_ROW] = first_row(a2, a, slot, info, counts, bfirst)
            # a successor depends on the state's pending record (the next mover's ban), not on
            # its ban: the successors' values once for each pending record among the states
            for j in range(nown):
                judged[j] = False
            for j0 in range(nown):
                if judged[j0]:
                    continue
                pend = own[j0] & LOW10
                for r in range(nmv):
                    kind = facts[r, F_KIND]
                    if kind == LOST:
                        succ[r] = 1  # the opponent lost at once: a loss in 0 to it
                    elif kind == ABSENT:
                        succ[r] = -1
                    else:
                        nban = live_record(pend, facts[r, F_O2], facts[r, F_AFTER], rt, g)
                        made = facts[r, F_MADE]
                        if nban == 0 and made == 0:
                            succ[r] = -1 if facts[r, F_PLAIN] == DUP else facts[r, F_PLAIN]
                        else:
                            at = find_row(codes, facts[r, F_ROW], facts[r, F_NK], _successor_code(nban, made, facts[r, F_SYMS], rt))
                            succ[r] = -1 if at < 0 else np.int64(xvals[at])
                for j in range(j0, nown):
                    if judged[j] or (own[j] & LOW10) != pend:
                        continue
                    judged[j] = True
                    expect = _judge(own[j] >> CODE_BITS, nmv, facts, succ, rt, g)
                    if expect < 0:
                        _note(faults, examples, c, UNREACHED, 1, s, own[j], vals[j], -1)
                    elif vals[j] != expect:
                        _note(faults, examples, c, WRONG, 1, s, own[j], vals[j], expect)
