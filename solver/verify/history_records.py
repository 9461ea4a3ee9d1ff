"""The history rule's records for ``morris verify``, written from the rules (docs/history-rule.md,
sections 2 and 3) and the stored format (docs/database-format.md, "The history rule"), apart
from the solver's own records and numbering: a check that called the solver's would share its
bugs. Built on the board's tables alone (``GameTables``: adjacency, the mills through each
point) and the index's symmetries.

A record is an int, 0 for none: same-man ``1 + q n + p`` (the man on q may not go straight back
to p; n points), running-mill ``1 + 16 p + bits`` (no move onto p may close the mills of
``bits``, bit j the j-th mill through p in board order, ``GameTables.point_mills[p, j]``). A
state's code is ``ban << 10 | pending``, a stored key ``slot << 20 | code``; a state is stored
under the smallest code among its images by the symmetries that fix its (canonical) position.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..errors import RulesError
from ..jit import helper
from ..rules.bits import ctz, popcount
from ..rules.movegen import OPT_FLY
from ..rules.notation import Ban
from ..rules.rulesets import RuleSet

SAME_MAN, RUNNING_MILL = 1, 2
READINGS = {"same-man": SAME_MAN, "running-mill": RUNNING_MILL}
CODE_BITS = 10  # code = ban << CODE_BITS | pending
KEY_BITS = 2 * CODE_BITS  # key = slot << KEY_BITS | code
LOW10 = (1 << CODE_BITS) - 1
AT, WHO = 0, 1  # RecordTables.rec[code]: its point, its man (same-man) or its mills' bits (running-mill)
IMG = 2  # rec[code, IMG + g]: the record under symmetry g


class RecordTables(NamedTuple):
    kind: int  # SAME_MAN or RUNNING_MILL
    rec: np.ndarray  # int16 rows per code: AT, WHO, then the images (one row read per lookup)


def check_readable(rules: RuleSet) -> None:
    """One line where a database of ``rules`` cannot hold history-rule states this check knows:
    the rule itself, and the options under which no history-rule database is solved."""
    if rules.reclose not in READINGS:
        raise RulesError(f"reclose={rules.reclose}: not a history rule")
    for on, what in ((rules.lasker == "on", "Lasker's rule"), (rules.blocked == "passes", "blocked=passes"),
                     (rules.mill_wins == "on", "mill-wins=on")):
        if on:
            raise RulesError(f"the history rule's check does not handle {what}")


def _bits(x: int):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def _mask_image(mask: int, perm) -> int:
    return sum(1 << int(perm[q]) for q in _bits(mask))


@lru_cache(maxsize=None)
def record_tables(rules: RuleSet) -> RecordTables:
    """Every record code's point, man or mills, and images (``RecordTables``)."""
    check_readable(rules)
    board = rules.board_data
    n = board.n
    kind = READINGS[rules.reclose]
    through = [[int(m) for m in row if m] for row in board.point_mills]
    perms = [tuple(int(x) for x in perm) for perm in board.symmetries]
    size = 1 + (n * n if kind == SAME_MAN else 16 * n)
    rec = np.zeros((size, IMG + len(perms)), dtype=np.int16)
    for code in range(1, size):
        if kind == SAME_MAN:
            man, p = (code - 1) // n, (code - 1) % n
            rec[code, AT], rec[code, WHO] = p, man
            rec[code, IMG:] = [1 + perm[man] * n + perm[p] for perm in perms]
            continue
        p, bits = (code - 1) // 16, (code - 1) % 16
        rec[code, AT], rec[code, WHO] = p, bits
        if bits >> len(through[p]):
            rec[code, IMG:] = code  # (no such mill: never met, never stored)
            continue
        for g, perm in enumerate(perms):
            # the mills as point sets, mapped, then found again among the mills through p's image
            images = {_mask_image(through[p][j], perm) for j in _bits(bits)}
            target = through[perm[p]]
            out = sum(1 << j for j, m in enumerate(target) if m in images)
            if popcount(out) != len(images):
                raise RulesError(f"the {board.name} board's symmetry {g} does not map the mills through point {p} onto mills")
            rec[code, IMG + g] = 1 + 16 * perm[p] + out
    return RecordTables(kind, rec)


def to_ban(code: int, rules: RuleSet) -> Ban | None:
    """A record code as ``notation.Ban`` (None for 0): for the examples of a failed check."""
    if code == 0:
        return None
    board = rules.board_data
    n = board.n
    if READINGS[rules.reclose] == SAME_MAN:
        return Ban((code - 1) // n, (code - 1) % n)
    p, bits = (code - 1) // 16, (code - 1) % 16
    masks = [int(m) for m in board.mill_masks]
    through = [int(m) for m in board.point_mills[p] if m]
    return Ban(-1, p, tuple(sorted(masks.index(through[j]) for j in _bits(bits) if j < len(through))))


@helper
def _flies(owner, g):
    return g.opts[OPT_FLY] != 0 and popcount(owner) == 3


@helper
def record_point(code, rt):
    return np.int64(rt.rec[code, AT])


@helper
def record_image(code, sym, rt):
    return np.int64(rt.rec[code, IMG + sym])


@helper
def _closes_without(owner, p, man, g):
    """Whether some mill through p has the owner's men on its two other points and does not hold
    the point ``man`` (a man arriving on p from ``man`` completes it)."""
    for j in range(g.point_mills.shape[1]):
        mill = g.point_mills[p, j]
        if mill == 0:
            break
        if (mill >> man) & 1 == 0 and owner & mill == mill & ~(np.int64(1) << p):
            return True
    return False


@helper
def live_record(code, owner, other, rt, g):
    """The record ``code`` of ``owner`` as kept in the position (owner, other), judged as if the
    owner were to move (section 3.2): itself, the running mill's dead mills dropped, or 0 where it
    forbids no legal move."""
    if code == 0:
        return 0
    p = np.int64(rt.rec[code, AT])
    if ((owner | other) >> p) & 1:
        return 0  # p filled
    if rt.kind == SAME_MAN:
        man = np.int64(rt.rec[code, WHO])
        if (owner >> man) & 1 == 0:
            return 0  # the man is gone
        if not _flies(owner, g) and (g.adj[man] >> p) & 1 == 0:
            return 0
        return code if _closes_without(owner, p, man, g) else 0
    bits = np.int64(rt.rec[code, WHO])
    movers = owner if _flies(owner, g) else owner & g.adj[p]
    kept = 0
    for j in range(g.point_mills.shape[1]):
        mill = g.point_mills[p, j]
        if mill == 0:
            break
        # the mill still stands open on p, and a man off it can close it
        if (bits >> j) & 1 and owner & mill == mill & ~(np.int64(1) << p) and movers & ~mill:
            kept |= 1 << j
    return 0 if kept == 0 else 1 + 16 * p + kept


@helper
def made_record(before, frm, to, after, rt, g):
    """The record the move frm-to makes for its mover (``before``/``after``: the mover's men)."""
    opened = 0  # the mills through frm the man stood in
    for j in range(g.point_mills.shape[1]):
        mill = g.point_mills[frm, j]
        if mill == 0:
            break
        if before & mill == mill:
            opened |= 1 << j
    if opened == 0:
        return 0
    if rt.kind == SAME_MAN:
        return 1 + to * g.n + frm
    for j in range(g.point_mills.shape[1]):  # running-mill: only where the man closes a mill on to
        mill = g.point_mills[to, j]
        if mill == 0:
            break
        if after & mill == mill:
            return 1 + 16 * frm + opened
    return 0


@helper
def forbidden(ban, frm, to, after, rt, g):
    """Whether the active record ``ban`` forbids the move frm-to (``after``: the mover's men)."""
    if ban == 0 or to != np.int64(rt.rec[ban, AT]):
        return False
    if rt.kind == SAME_MAN:
        return frm == np.int64(rt.rec[ban, WHO])
    bits = np.int64(rt.rec[ban, WHO])
    for j in range(g.point_mills.shape[1]):
        mill = g.point_mills[to, j]
        if mill == 0:
            break
        if (bits >> j) & 1 and after & mill == mill:
            return True
    return False


@helper
def live_records(owner, other, rt, g, out):
    """Every live record of ``owner`` in the position (as if to move), ascending, into ``out``;
    how many (-1 past ``out``). Same-man: each man q and empty point p such that q-p is a legal
    move closing a mill of which q is no part, by man then point (the code's order); running-mill:
    each empty point p, each non-empty set of the mills through p that a man off them can close."""
    empty = ((np.int64(1) << g.n) - 1) & ~(owner | other)
    flies = _flies(owner, g)
    k = 0
    if rt.kind == SAME_MAN:
        men = owner
        while men:
            q = ctz(men)
            men &= men - 1
            targets = empty if flies else empty & g.adj[q]
            while targets:
                p = ctz(targets)
                targets &= targets - 1
                if _closes_without(owner, p, q, g):
                    if k >= out.shape[0]:
                        return -1
                    out[k] = 1 + q * g.n + p
                    k += 1
        return k
    points = empty
    while points:
        p = ctz(points)
        points &= points - 1
        movers = owner if flies else owner & g.adj[p]
        ok = 0
        for j in range(g.point_mills.shape[1]):
            mill = g.point_mills[p, j]
            if mill == 0:
                break
            if owner & mill == mill & ~(np.int64(1) << p) and movers & ~mill:
                ok |= 1 << j
        for bits in range(1, ok + 1):  # every non-empty subset, ascending
            if bits & ~ok == 0:
                if k >= out.shape[0]:
                    return -1
                out[k] = 1 + 16 * p + bits
                k += 1
    return k


@helper
def least_image(ban, pending, syms, nsyms, rt):
    """The smallest code ``ban << 10 | pending`` among the records' images under ``syms[:nsyms]``."""
    best = -1
    for i in range(nsyms):
        c = (np.int64(rt.rec[ban, IMG + syms[i]]) << CODE_BITS) | np.int64(rt.rec[pending, IMG + syms[i]])
        if best < 0 or c < best:
            best = c
    return best


@helper
def state_codes(m, o, stab, nstab, rt, g, bans, pends, out):
    """The codes of every state the canonical position (m, o) admits (section 3.3), ascending,
    into ``out``: 0 (the plain position), then each pair of a live record of the mover's (or none)
    and of the opponent's (or none) on different points, kept where it is the smallest of its
    images under the symmetries ``stab[:nstab]`` that fix the position (the identity among them).
    How many, or -1 past a buffer."""
    nb_ = live_records(m, o, rt, g, bans)
    np_ = live_records(o, m, rt, g, pends)
    if nb_ < 0 or np_ < 0:
        return -1
    k = 0
    for i in range(nb_ + 1):
        ban = 0 if i == 0 else bans[i - 1]
        at = -1 if ban == 0 else np.int64(rt.rec[ban, AT])
        for j in range(np_ + 1):
            pend = 0 if j == 0 else pends[j - 1]
            if pend != 0 and np.int64(rt.rec[pend, AT]) == at:
                continue  # both on one point: no game leads there
            code = (ban << CODE_BITS) | pend
            if nstab > 1 and least_image(ban, pend, stab, nstab, rt) != code:
                continue
            if k >= out.shape[0]:
                return -1
            out[k] = code
            k += 1
    return k
