"""The first pass over a subspace: duplicates, terminal positions and removal codes."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...index.kernels import (
    SYMMETRIC,
    is_canonical_pair,
    next_position,
    unrank_position,
)
from ...jit import helper
from ...rules.movegen import (
    OPT_FLY,
    OPT_FULL_DRAW,
    OPT_MILL_WINS,
    OPT_PASS,
    men_in_mills,
)
from ...values import DUP
from .codes import CHUNK, LAZY, NOLOSS, UNKNOWN
from .removals import settle_removals
from .successors import has_internal_move, has_move, scratch


@nb.njit(cache=True, parallel=True)
def init_subspace(a, b, value, count, removals, base, g, ix, most, fewer):
    """First pass over the slots ``base ...`` of subspace (a, b) (``value``, ``count``, ``removals`` are
    their slices): terminal losses and removal outcomes; counts only where removals alone may
    decide a loss. ``most``: the most men one move removes here (``RuleSet.most_removals(a)``);
    ``fewer[k - 1]`` holds the solved values of (b - k, a)."""
    slots = value.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    for c in nb.prange(nchunks):
        succ, syms, removed_syms, removed_canon = scratch(g.n)
        todo = np.empty(CHUNK, dtype=np.int64)
        lo, hi = c * CHUNK, min(slots, (c + 1) * CHUNK)
        k = init_chunk(a, b, value, count, removals, base, lo, hi, g, ix, most, todo)
        # The few positions whose removals are needed at once, settled apart: with the removals'
        # code inside it, the loop over every slot ran slower (5-7: 44 against 38 ns a slot)
        for i in range(k):
            m, o = unrank_position(a, b, base + todo[i], ix)
            removals[todo[i]], count[todo[i]] = settle_removals(
                a, b, m, o, succ, syms, removed_syms, removed_canon, g, ix, fewer,
            )


@helper
def init_chunk(a, b, value, count, removals, base, lo, hi, g, ix, most, todo):
    """``init_subspace`` on the slots lo ... hi - 1, in order: each position follows from the one
    before (``next_position``), only the first is unranked. The slots whose removal outcomes must
    be settled now go to ``todo``; returns how many."""
    n, mill_masks, opts = g.n, g.mill_masks, g.opts
    mask_info = ix.mask_info
    flying = opts[OPT_FLY] != 0 and a == 3
    per = ix.binom[n - a, b]
    m, o = unrank_position(a, b, base + lo, ix)
    rep, r = (base + lo) // per, (base + lo) % per
    k = 0
    for slot in range(lo, hi):
        if slot > lo:
            m, o, r, rep = next_position(a, b, m, o, r, rep, ix)
        count[slot] = UNKNOWN
        removals[slot] = 0
        value[slot] = 0
        if mask_info[m] & SYMMETRIC and not is_canonical_pair(m, o, ix):
            value[slot] = DUP
            continue
        if opts[OPT_MILL_WINS] and men_in_mills(o, mill_masks) != 0:
            value[slot] = 1  # lost already: loss in 0
            continue
        if opts[OPT_FULL_DRAW] and (m | o) == (1 << n) - 1:
            removals[slot] = NOLOSS  # a full board is a draw (Twelve Men's Morris)
            continue
        if not opts[OPT_PASS] and not has_move(m, o, g, flying):
            value[slot] = 1  # blocked: loss in 0
            continue
        if b - most >= 3 and has_internal_move(m, o, g, flying):
            # Removals can only matter once every other successor is a win, or if one wins:
            # mark_removal_candidates finds those. (Where removals can leave two men, they
            # win at once, and settling them finds that without a lookup.)
            removals[slot] = LAZY
            continue
        todo[k] = slot
        k += 1
    return k
