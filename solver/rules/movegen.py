"""Move generation and the game-over test, as numba kernels over bitboards.

A side is a bitmask of points (bit i = point i of the board string). A move is a row
``(from, to, remove1, remove2)`` with -1 for "none": a placement has ``from = -1``, a pass is all
-1. The removal is part of the move, so the players always alternate. The kernels take the board's
tables and the rule options as one ``GameTables`` named tuple (``tables.game_tables``);
``RuleSet.kernel_options`` fixes the order of the options below.
"""

from __future__ import annotations

import numpy as np

from .bits import ctz, popcount
from ..jit import helper

OPT_MEN, OPT_FLY, OPT_FORFEIT, OPT_PER_MILL, OPT_OPTIONAL, OPT_PASS, OPT_LASKER, OPT_FULL_DRAW, OPT_MILL_WINS = range(9)

ONGOING, LOST, DRAWN = 0, 1, 2
MAX_MOVES = 8192  # enough for 12 men flying into 21 points with two removals each


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


@helper
def mills_formed(after: int, to: int, point_mills: np.ndarray) -> int:
    """Mills through point ``to`` completed by a man arriving there (``after`` includes it)."""
    c = 0
    for m in point_mills[to]:
        if m != 0 and after & m == m:
            c += 1
    return c


@helper
def _emit(out, k, frm, to, r1, r2):
    out[k, 0] = frm
    out[k, 1] = to
    out[k, 2] = r1
    out[k, 3] = r2
    return k + 1


@helper
def _emit_with_removals(out, k, frm, to, formed, opp, g):
    """Append the move frm->to once per choice of removal (none when no mill is formed)."""
    if formed == 0:
        return _emit(out, k, frm, to, -1, -1)
    mill_masks, opts = g.mill_masks, g.opts
    if opts[OPT_MILL_WINS]:
        # Three Men's Morris: the mill wins at once (game_status), there is no removal; listing
        # one move per opponent man would multiply the winning move and remove men for nothing.
        return _emit(out, k, frm, to, -1, -1)
    forfeit = opts[OPT_FORFEIT]
    rem = removable_men(opp, mill_masks, forfeit)
    if rem == 0:  # nothing may be removed: the mill stands, the removal is lost
        return _emit(out, k, frm, to, -1, -1)
    two = opts[OPT_PER_MILL] != 0 and formed >= 2
    if opts[OPT_OPTIONAL]:
        k = _emit(out, k, frm, to, -1, -1)
    r = rem
    while r:
        r1 = lowest_bit_index(r)
        r &= r - 1
        if not two:
            k = _emit(out, k, frm, to, r1, -1)
            continue
        opp2 = opp & ~(1 << r1)
        rem2 = removable_men(opp2, mill_masks, forfeit)
        if rem2 == 0 or opts[OPT_OPTIONAL]:
            k = _emit(out, k, frm, to, r1, -1)
        s = rem2
        while s:
            r2 = lowest_bit_index(s)
            s &= s - 1
            if r2 < r1 and (rem >> r2) & 1:
                # The same pair with r2 taken first: emitted already if that order is legal.
                if (removable_men(opp & ~(1 << r2), mill_masks, forfeit) >> r1) & 1:
                    continue
            k = _emit(out, k, frm, to, min(r1, r2), max(r1, r2))
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
        k = _emit(out, k, -1, -1, -1, -1)
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
def apply_move(me, opp, hand_me, frm, to, r1, r2):
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
    return me, opp, hand_me
