"""Move generation and the game-over test, as numba kernels over bitboards.

A side is a bitmask of points (bit i = point i of the board string). A move is a row
``(from, to, remove1, remove2, remove3)`` with -1 for "none", the removals in increasing order: a
placement has ``from = -1``, a pass is all -1. Under ``double-mill=per-mill`` a move removes one man
per mill it closes: up to three on the diagonal board, where a placement can close three mills at
once. The removals are part of the move, so the players always alternate. The kernels take the board's
tables and the rule options as one ``GameTables`` named tuple (``tables.game_tables``);
``RuleSet.kernel_options`` fixes the order of the options below.
"""

from __future__ import annotations

import numpy as np

from .bits import ctz, popcount
from ..jit import helper, inlined

OPT_MEN, OPT_FLY, OPT_FORFEIT, OPT_PER_MILL, OPT_OPTIONAL, OPT_PASS, OPT_LASKER, OPT_FULL_DRAW, OPT_MILL_WINS = range(9)

ONGOING, LOST, DRAWN = 0, 1, 2
# MAX_MOVES bounds the rows of one position. With m own men, b opponent men (b <= 12) and e empty
# points (m + b + e = n <= 24), a move's removals give at most R_c(b) = C(b,0) + ... + C(b,c) rows,
# c = the mills it closes (every set of up to c men, counting optional removal's shorter sets).
# k mills through one point need 2k own men on their other points, so a placement (at most e of
# them) closes c <= min(3, m // 2); a slide (at most 4 * min(m, e): 4 neighbours at most on the
# 24-point boards) comes from a neighbour, which lies on one of the lines through its target, so
# it closes two at most; a flier has 3 men and closes one. The worst case, e * R_3(b) +
# 4 * min(m, e) * R_2(b) at b = 12, m = e = 6 (Lasker's rule: placing and moving), is 6 * 299 +
# 24 * 79 = 3,690 rows; the six and three boards stay below 500.
MAX_MOVES = 8192


@helper
def lowest_bit_index(x: int) -> int:
    return ctz(x)


@helper
def men_in_mills(side: int, mill_masks: np.ndarray) -> int:
    """The men of ``side`` that stand in one of its mills."""
    out = 0
    for m in mill_masks:
        if side & m == m:
            out |= m
    return out


@helper
def removable_men(opp: int, mill_masks: np.ndarray, forfeit: int) -> int:
    """Men of ``opp`` that may be removed: those outside mills, or every man when all stand in
    mills (unless the rule set forfeits the removal then)."""
    free = opp & ~men_in_mills(opp, mill_masks)
    if free:
        return free
    return 0 if forfeit else opp


@inlined
def mills_formed(after: int, to: int, point_mills: np.ndarray) -> int:
    """Mills through point ``to`` completed by a man arriving there (``after`` includes it)."""
    c = 0
    for m in point_mills[to]:
        if m != 0 and after & m == m:
            c += 1
    return c


@helper
def _emit(out, k, frm, to, r1, r2, r3):
    out[k, 0] = frm
    out[k, 1] = to
    out[k, 2] = r1
    out[k, 3] = r2
    out[k, 4] = r3
    return k + 1


@helper
def _in_turn(opp, x, y, z, mill_masks, forfeit):
    """Whether the opponent may lose x, then y, then z (z = -1: just two), each man removable
    when its turn comes."""
    if (removable_men(opp, mill_masks, forfeit) >> x) & 1 == 0:
        return False
    opp &= ~(1 << x)
    if (removable_men(opp, mill_masks, forfeit) >> y) & 1 == 0:
        return False
    if z < 0:
        return True
    opp &= ~(1 << y)
    return (removable_men(opp, mill_masks, forfeit) >> z) & 1 != 0


@helper
def _before(x0, x1, x2, y0, y1, y2):
    """(x0, x1, x2) < (y0, y1, y2), lexicographically."""
    if x0 != y0:
        return x0 < y0
    if x1 != y1:
        return x1 < y1
    return x2 < y2


@helper
def _first_order(opp, r1, r2, r3, mill_masks, forfeit):
    """Whether r1, r2 (and r3, unless -1) is the first order, by point index, in which these men
    may be removed: a set of removed men is listed once, from its first legal order."""
    if r3 < 0:
        return not (r2 < r1 and _in_turn(opp, r2, r1, -1, mill_masks, forfeit))
    # The other five orders of the three, each checked where it comes first.
    if _before(r1, r3, r2, r1, r2, r3) and _in_turn(opp, r1, r3, r2, mill_masks, forfeit):
        return False
    if _before(r2, r1, r3, r1, r2, r3) and _in_turn(opp, r2, r1, r3, mill_masks, forfeit):
        return False
    if _before(r2, r3, r1, r1, r2, r3) and _in_turn(opp, r2, r3, r1, mill_masks, forfeit):
        return False
    if _before(r3, r1, r2, r1, r2, r3) and _in_turn(opp, r3, r1, r2, mill_masks, forfeit):
        return False
    if _before(r3, r2, r1, r1, r2, r3) and _in_turn(opp, r3, r2, r1, mill_masks, forfeit):
        return False
    return True


@helper
def _emit_with_removals(out, k, frm, to, formed, opp, g):
    """Append the move frm->to once per choice of removals (none when no mill is formed)."""
    if formed == 0:
        return _emit(out, k, frm, to, -1, -1, -1)
    mill_masks, opts = g.mill_masks, g.opts
    if opts[OPT_MILL_WINS]:
        # Three Men's Morris: the mill wins at once (game_status), there is no removal; listing
        # one move per opponent man would multiply the winning move and remove men for nothing.
        return _emit(out, k, frm, to, -1, -1, -1)
    rem = removable_men(opp, mill_masks, opts[OPT_FORFEIT])
    if rem == 0:  # nothing may be removed: the mill stands, the removal is lost
        return _emit(out, k, frm, to, -1, -1, -1)
    if opts[OPT_OPTIONAL]:
        k = _emit(out, k, frm, to, -1, -1, -1)
    if opts[OPT_PER_MILL] == 0 or formed == 1:
        r = rem
        while r:
            r1 = lowest_bit_index(r)
            r &= r - 1
            k = _emit(out, k, frm, to, r1, -1, -1)
        return k
    return _emit_removal_sets(out, k, frm, to, min(formed, 3), opp, rem, g)


@helper
def _emit_removal_sets(out, k, frm, to, count, opp, rem, g):
    """One removal per mill, ``count`` (2 or 3) mills closed: one row per set of men that some
    legal order of removals takes. Each removal chooses among the men removable after the ones
    before (a removal can break one of the opponent's mills); the removals stop early only where
    nothing is removable (forfeit) or, under optional removal, anywhere. A set reached in several
    orders is listed once (``_first_order``); ``rem`` is removable_men(opp)."""
    mill_masks, opts = g.mill_masks, g.opts
    forfeit = opts[OPT_FORFEIT]
    optional = opts[OPT_OPTIONAL] != 0
    r = rem
    while r:
        r1 = lowest_bit_index(r)
        r &= r - 1
        o1 = opp & ~(1 << r1)
        rem2 = removable_men(o1, mill_masks, forfeit)
        if rem2 == 0 or optional:
            k = _emit(out, k, frm, to, r1, -1, -1)
        s = rem2
        while s:
            r2 = lowest_bit_index(s)
            s &= s - 1
            rem3 = 0
            if count == 3:
                rem3 = removable_men(o1 & ~(1 << r2), mill_masks, forfeit)
            if (count == 2 or rem3 == 0 or optional) and _first_order(opp, r1, r2, -1, mill_masks, forfeit):
                k = _emit(out, k, frm, to, min(r1, r2), max(r1, r2), -1)
            t = rem3
            while t:
                r3 = lowest_bit_index(t)
                t &= t - 1
                if _first_order(opp, r1, r2, r3, mill_masks, forfeit):
                    lo = min(r1, r2, r3)
                    hi = max(r1, r2, r3)
                    k = _emit(out, k, frm, to, lo, r1 + r2 + r3 - lo - hi, hi)
    return k


@helper
def generate_moves(me, opp, hand_me, hand_opp, g, out):
    """Write the legal moves of the side to move (``me``) into ``out``; return how many.

    Does not test whether the game is already over: call ``game_status`` first.
    """
    point_mills, opts = g.point_mills, g.opts
    empty = ((1 << g.n) - 1) & ~(me | opp)
    k = 0
    if hand_me > 0:
        t = empty
        while t:
            to = lowest_bit_index(t)
            t &= t - 1
            after = me | (1 << to)
            k = _emit_with_removals(out, k, -1, to, mills_formed(after, to, point_mills), opp, g)
    if hand_me == 0 or opts[OPT_LASKER]:
        flying = opts[OPT_FLY] != 0 and popcount(me) + hand_me == 3
        f = me
        while f:
            frm = lowest_bit_index(f)
            f &= f - 1
            t = empty if flying else g.adj[frm] & empty
            while t:
                to = lowest_bit_index(t)
                t &= t - 1
                after = (me & ~(1 << frm)) | (1 << to)
                k = _emit_with_removals(out, k, frm, to, mills_formed(after, to, point_mills), opp, g)
    if k == 0 and opts[OPT_PASS]:
        k = _emit(out, k, -1, -1, -1, -1, -1)
    return k


@helper
def game_status(me, opp, hand_me, hand_opp, g, buf):
    """ONGOING, LOST (the side to move has lost) or DRAWN, from the position alone."""
    if g.opts[OPT_MILL_WINS] and men_in_mills(opp, g.mill_masks) != 0:
        return LOST
    if popcount(me) + hand_me < 3:
        return LOST
    if g.opts[OPT_FULL_DRAW] and (me | opp) == (1 << g.n) - 1:
        return DRAWN
    if generate_moves(me, opp, hand_me, hand_opp, g, buf) == 0:
        return LOST  # blocked (with the passing option a pass is always available)
    return ONGOING


@helper
def apply_move(me, opp, hand_me, frm, to, r1, r2, r3):
    """The position after the move, still from the mover's side: (me, opp, hand_me)."""
    if to >= 0:
        if frm >= 0:
            me &= ~(1 << frm)
        else:
            hand_me -= 1
        me |= 1 << to
    if r1 >= 0:
        opp &= ~(1 << r1)
    if r2 >= 0:
        opp &= ~(1 << r2)
    if r3 >= 0:
        opp &= ~(1 << r3)
    return me, opp, hand_me
