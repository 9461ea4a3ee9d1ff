"""The history rule's records as numba helpers (docs/history-rule.md, section 3.2).

A record is an int, 0 for none, as ``tests/reference_history.py`` writes it: same-man ``1 + q n
+ p`` (the man on q may not go back to p), running-mill ``1 + 16 p + local`` (no move onto p may
close the mills of ``local``, one bit per mill through p in board order). A record is kept only
where it is live for its owner, judged as if the owner were to move: so a state without one is
the plain position, and two states differ only where the moves their bans forbid can differ.
"""

from __future__ import annotations

import numpy as np

from ..jit import helper, inlined
from ..rules.bits import ctz, popcount
from .tables import IMAGE, MAN, POINT, SAME_MAN


@helper
def flies(owner, ht):
    return ht.fly != 0 and popcount(owner) == 3


@helper
def reach(owner, p, ht):
    """The owner's men that may move to the empty point p."""
    return owner if flies(owner, ht) else owner & ht.adj[p]


@helper
def point_of(code, ht):
    """The point a record keeps its owner from re-entering."""
    return np.int64(ht.rec[code, POINT])


@helper
def live(code, owner, other, ht):
    """The record ``code`` of ``owner`` in this position: itself (the running mill's dead mills
    dropped), or 0 where it forbids nothing."""
    if code == 0:
        return 0
    if ht.kind == SAME_MAN:
        q = np.int64(ht.rec[code, MAN])
        p = np.int64(ht.rec[code, POINT])
        if (owner >> q) & 1 == 0 or ((owner | other) >> p) & 1:
            return 0
        if not flies(owner, ht) and (ht.adj[p] >> q) & 1 == 0:
            return 0
        for j in range(ht.thr_count[p]):
            rest = ht.thr_rest[p, j]
            if owner & rest == rest and (ht.thr_mask[p, j] >> q) & 1 == 0:
                return code
        return 0
    p = (code - 1) // 16
    local = (code - 1) % 16
    if ((owner | other) >> p) & 1:
        return 0
    r = reach(owner, p, ht)
    keep = 0
    for j in range(ht.thr_count[p]):
        rest = ht.thr_rest[p, j]
        if (local >> j) & 1 and owner & rest == rest and r & ~ht.thr_mask[p, j]:
            keep |= 1 << j
    return 1 + 16 * p + keep if keep else 0


@inlined
def list_records(owner, other, ht, out):
    """Every live record of ``owner`` (as if to move), ascending, into ``out``; how many."""
    k = 0
    empty = ht.full & ~(owner | other)
    # the empty points that would complete a mill of the owner's: the only places a record can name
    t = 0
    for i in range(ht.mills.shape[0]):
        mm = ht.mills[i]
        rest = mm & ~owner
        if rest & empty and rest & (rest - 1) == 0:
            t |= rest
    while t:
        p = ctz(t)
        t &= t - 1
        r = reach(owner, p, ht)
        if ht.kind == SAME_MAN:
            while r:
                q = ctz(r)
                r &= r - 1
                for j in range(ht.thr_count[p]):
                    rest = ht.thr_rest[p, j]
                    if owner & rest == rest and (ht.thr_mask[p, j] >> q) & 1 == 0:
                        out[k] = 1 + q * ht.n + p
                        k += 1
                        break
        else:
            ok = 0
            for j in range(ht.thr_count[p]):
                rest = ht.thr_rest[p, j]
                if owner & rest == rest and r & ~ht.thr_mask[p, j]:
                    ok |= 1 << j
            sub = ok
            while sub:  # every non-empty subset of the mills some move closes
                out[k] = 1 + 16 * p + sub
                k += 1
                sub = (sub - 1) & ok
    # ascending (the same-man codes come point by point, the running ones subset by subset)
    for i in range(1, k):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return k


@helper
def closes(after, to, ht):
    """Whether a man arriving on ``to`` completes a mill (``after`` includes it)."""
    for j in range(ht.thr_count[to]):
        m = ht.thr_mask[to, j]
        if after & m == m:
            return True
    return False


@helper
def made(mover, frm, to, after, ht):
    """The record the move frm-to makes for its mover (``mover`` before it, ``after`` after)."""
    left = 0  # the mills through frm the move opens
    for j in range(ht.thr_count[frm]):
        m = ht.thr_mask[frm, j]
        if mover & m == m:
            left |= 1 << j
    if left == 0:
        return 0
    if ht.kind == SAME_MAN:
        return 1 + to * ht.n + frm
    if not closes(after, to, ht):
        return 0  # running-mill: only a move that also closes a mill
    return 1 + 16 * frm + left


@helper
def forbids(ban, frm, to, after, ht):
    """Whether the active record ``ban`` forbids the move frm-to (``after``: the mover's men)."""
    if ban == 0:
        return False
    if ht.kind == SAME_MAN:
        return frm == np.int64(ht.rec[ban, MAN]) and to == np.int64(ht.rec[ban, POINT])
    p = (ban - 1) // 16
    if to != p:
        return False
    local = (ban - 1) % 16
    for j in range(ht.thr_count[p]):
        m = ht.thr_mask[p, j]
        if (local >> j) & 1 and after & m == m:
            return True
    return False


@helper
def image_of(code, g, ht):
    """The record ``code`` under symmetry g."""
    return np.int64(ht.rec[code, IMAGE + g])
