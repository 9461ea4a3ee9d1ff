"""The rules as Malom (Gévay and Danner, github ggevay/malom) plays its three games, against the
toolkit's ``standard``, ``twelve`` (Morabaraba) and ``lasker`` rule sets: both move generators
(the solver's ``solver.rules.movegen`` kernels and the reference's ``tests/reference.py``) must
list exactly the positions Malom's solver reaches in one move, and end the game where it does.
docs/malom-rules.md gives each rule with its place in Malom's code.

Malom's solver numbers the points ring by ring (outer, middle, inner), 8 a ring, going round from
the midpoint of the top side: even numbers are midpoints, odd numbers corners; the rings' midpoints
0-8-16, 2-10-18, ... are the cross lines and, on Morabaraba's board, the corners 1-9-17, ... the
diagonals (``Malom3/Rules.vb`` 33-57 and 122-133). ``MALOM_POINTS`` names them on our board; the
tables below are Malom's own numbers (``Malom_megoldas/movegen.cpp`` 39-45), checked against our
boards first.

``malom_children`` and ``malom_status`` restate, in Python over Malom's point numbers, what
Malom's solver does (commit 2fe51aa of ggevay/malom):

- the moves, ``get_chd`` (movegen.cpp 401-462): the side to move places when it has men in hand;
  it moves when its hand is empty, or under Lasker's rule whenever it has a man on the board
  (``C_MOZG_COND``/``C_FELRAK_COND``, 411-417); its men fly when those on the board and in hand
  make 3 or fewer (``W + WF > 3 ? slide_adjmasks : fly_adjmasks``, 420); a move whose man ends in
  a mill takes one opponent man, one outside the opponent's mills, or any when every one stands in
  a mill (406-409), however many mills it closes; a mill closed while the opponent has no man on
  the board yields no move at all (the loop over ``opp_takeable`` is empty);
- the end: a side with fewer than 3 men on the board and in hand has lost (such sectors are not
  built, ``sector_graph.cpp`` 52 and 88, and a move into them wins at once, ``sector.cpp`` 389-391,
  ``verify.cpp`` 74-81); with ``FULL_BOARD_IS_DRAW`` (``common.h`` 40, set to 1) every position of
  the 12-12 sector, the full board, is a draw (``retrograde.cpp`` 127, ``verify.cpp`` 83-87); any
  other position without a move is lost (``retrograde.cpp`` 128-138).

The last rule of the moves is the one place the toolkit differs: it lets such a mill stand with
nothing removed (as Malom's GUI does, ``Main.vb`` 1065). No position of a game from the start has
a side to move whose opponent has no man on the board (the opponent has just placed or moved one),
except the start itself, where no mill can close; ``test_mill_with_no_opponent_man_on_the_board``
pins the difference down and the random comparison leaves those positions out.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from reference import MoveGen
from solver.rules import make_rules
from solver.rules import movegen as mg
from solver.rules.tables import game_tables

from test_placing_rules import both, results
from test_rule_options import empty_points

# Malom's point i is our point MALOM_POINTS[i]: outer ring (a/g files and ranks 1/7), middle ring,
# inner ring, each from its top midpoint round through its right side.
MALOM_POINTS = (
    "d7 g7 g4 g1 d1 a1 a4 a7 "
    "d6 f6 f4 f2 d2 b2 b4 b6 "
    "d5 e5 e4 e3 d3 c3 c4 c5"
).split()

# Malom_megoldas/movegen.cpp 40-44: the mills of the standard and Lasker board (the first 16) and
# of Morabaraba's (all 20), and each point's neighbours, as masks over Malom's point numbers.
MALOM_MILLS = (
    14, 56, 224, 131, 3584, 14336, 57344, 33536, 917504, 3670016, 14680064, 8585216,
    65793, 263172, 1052688, 4210752, 131586, 526344, 2105376, 8421504,
)
MALOM_ADJ_STD = (
    386, 5, 1034, 20, 4136, 80, 16544, 65, 98817, 1280, 264708, 5120, 1058832, 20480, 4235328,
    16640, 8519936, 327680, 656384, 1310720, 2625536, 5242880, 10502144, 4259840,
)
MALOM_ADJ_MORA = (
    386, 517, 1034, 2068, 4136, 8272, 16544, 32833, 98817, 132354, 264708, 529416, 1058832,
    2117664, 4235328, 8405376, 8519936, 328192, 656384, 1312768, 2625536, 5251072, 10502144,
    4292608,
)
MASK24 = (1 << 24) - 1
# Malom's variant of each rule set: (its mills, its neighbours, Lasker's place-or-move)
VARIANTS = {
    "standard": (MALOM_MILLS[:16], MALOM_ADJ_STD, False),
    "lasker": (MALOM_MILLS[:16], MALOM_ADJ_STD, True),
    "twelve": (MALOM_MILLS, MALOM_ADJ_MORA, False),
}
# max_ksz, the men a side (common.h 110-135)
MALOM_MEN = {"standard": 9, "lasker": 10, "twelve": 12}


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def to_ours(mask: int, board) -> int:
    """A mask over Malom's point numbers as one over ours."""
    return sum(1 << board.index[MALOM_POINTS[i]] for i in range(24) if mask >> i & 1)


def to_malom(mask: int, board) -> int:
    return sum(1 << i for i in range(24) if mask >> board.index[MALOM_POINTS[i]] & 1)


def _men_in_mills(men: int, mills) -> int:
    out = 0
    for m in mills:
        if men & m == m:
            out |= m
    return out


def malom_children(name: str, me: int, opp: int, hand: int) -> set[tuple[int, int, int]]:
    """The positions after each move of Malom's solver (``get_chd``), still from the mover's side:
    ``(me', opp', hand')``, over Malom's point numbers."""
    mills, adj, lasker = VARIANTS[name]
    free = ~(me | opp) & MASK24
    outside = opp & ~_men_in_mills(opp, mills)
    takeable = outside if outside else opp  # empty when the opponent has no man on the board
    out: set[tuple[int, int, int]] = set()

    def arrive(after: int, to: int, hand_after: int) -> None:
        if _men_in_mills(after, mills) & to:
            for t in _bits(takeable):
                out.add((after, opp & ~t, hand_after))
        else:
            out.add((after, opp, hand_after))

    men = me.bit_count()
    if (men if lasker else hand == 0):
        flies = men + hand <= 3
        for man in _bits(me):
            i = man.bit_length() - 1
            for to in _bits((MASK24 if flies else adj[i]) & free):
                arrive(me ^ man ^ to, to, hand)
    if hand:
        for to in _bits(free):
            arrive(me | to, to, hand - 1)
    return out


def malom_status(name: str, me: int, opp: int, hand: int) -> str | None:
    """"loss", "draw" or None (the game goes on), as Malom's solver values the position."""
    if me.bit_count() + hand < 3:
        return "loss"
    if me.bit_count() == 12 and opp.bit_count() == 12:  # FULL_BOARD_IS_DRAW, the 12-12 sector
        return "draw"
    return None if malom_children(name, me, opp, hand) else "loss"


# ---- the boards ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard", "lasker", "twelve"])
def test_malom_board_tables(name):
    """Malom's mills and neighbours, renamed, are the board's mills and lines."""
    board = make_rules(name).board_data
    mills, adj, _ = VARIANTS[name]
    assert sorted(MALOM_POINTS) == sorted(board.points)
    assert sorted(to_ours(m, board) for m in mills) == sorted(int(m) for m in board.mill_masks)
    for i, nb in enumerate(adj):
        assert to_ours(nb, board) == int(board.adjacency_masks[board.index[MALOM_POINTS[i]]])
    assert len(mills) == (20 if name == "twelve" else 16)


@pytest.mark.parametrize("name", ["standard", "lasker", "twelve"])
def test_men_a_side(name):
    assert make_rules(name).men == MALOM_MEN[name]
    if name == "twelve":
        assert make_rules("morabaraba") == make_rules("twelve")


# ---- random positions: every move and every end, against Malom's ----------------------------------


def _sample(name: str, rng: random.Random):
    """A position (mover, opponent, mover's hand) over our points, skewed to the rules that
    differ between readings: flying (3 men on the board and in hand), full and nearly full boards,
    men in hand beside men on the board, crowded boards with mills."""
    board = make_rules(name).board_data
    men = MALOM_MEN[name]
    kind = rng.random()
    if kind < 0.2:  # flying, or just above it
        total = rng.choice((3, 3, 4))
        a = rng.randint(0, total) if name == "lasker" else total
        ha = total - a
    elif kind < 0.35 and name == "twelve":  # the board full or one point short
        a, ha = rng.choice(((12, 0), (12, 0), (11, 1), (11, 0)))
    else:
        a = rng.randint(0, men)
        ha = rng.randint(0, men - a) if rng.random() < 0.6 else 0
    b = rng.randint(1, min(men, 24 - a))  # the opponent has a man on the board (see the docstring)
    if name == "twelve" and a + ha == 12 and rng.random() < 0.5:
        b = min(12, 24 - a)
    points = list(range(board.n))
    rng.shuffle(points)
    me = sum(1 << p for p in points[:a])
    opp = sum(1 << p for p in points[a : a + b])
    return me, opp, ha


@pytest.mark.parametrize("name", ["standard", "lasker", "twelve"])
def test_random_positions_move_as_malom(name):
    rules = make_rules(name)
    board = rules.board_data
    g = game_tables(rules)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    ref = MoveGen(rules)
    rng = random.Random(2026 + len(name))
    seen = {"loss": 0, "draw": 0, None: 0}
    moves_seen = removals = flights = 0
    for _ in range(500):
        me, opp, hand = _sample(name, rng)
        hand_opp = 1 if hand else 0  # the kernels do not read it
        expected = malom_status(name, to_malom(me, board), to_malom(opp, board), hand)
        status = mg.game_status(me, opp, hand, hand_opp, g, buf)
        ours = {mg.ONGOING: None, mg.LOST: "loss", mg.DRAWN: "draw"}[status]
        assert ours == expected, (name, me, opp, hand)
        assert ref.status(me, opp, hand) == expected, (name, me, opp, hand)
        seen[expected] += 1
        if expected is not None:
            continue
        malom = {
            (to_ours(m, board), to_ours(o, board), h)
            for m, o, h in malom_children(name, to_malom(me, board), to_malom(opp, board), hand)
        }
        k = mg.generate_moves(me, opp, hand, hand_opp, g, buf)
        kernel = [mg.apply_move(me, opp, hand, *map(int, buf[i])) for i in range(k)]
        assert len(kernel) == len(set(kernel)), "the solver lists a move twice"
        assert set(kernel) == malom, (name, me, opp, hand)
        # the reference's positions after each move (the hand follows: a placement adds a man)
        reference = {(m, o, hand - (m.bit_count() - me.bit_count())) for m, o in ref.moves(me, opp, hand)}
        assert reference == malom, (name, me, opp, hand)
        moves_seen += len(malom)
        removals += sum(o != opp for _, o, _ in malom)
        flights += me.bit_count() + hand == 3 and (hand == 0 or rules.lasker == "on") and me != 0
    # the sample reached every kind of end and of move it should
    assert seen[None] > 300 and seen["loss"] > 10
    assert (seen["draw"] > 10) == (name == "twelve")
    assert moves_seen > 5_000 and removals > 500 and flights > 30


# ---- hand-made positions where readings of "Morabaraba" and "Lasker" differ -------------------------

# Standard board (docs/rules.md), and the diagonal board's four extra lines a1-b2-c3, a7-b6-c5,
# g7-f6-e5, g1-f2-e3:
#
#     7 a7----------d7----------g7
#     6 | \ b6------d6------f6 /|
#     5 |   | \ c5--d5--e5 / |   |
#     4 a4--b4--c4      e4--f4--g4
#     3 |   | / c3--d3--e3 \ |   |
#     2 | / b2------d2------f2 \|
#     1 a1----------d1----------g1


def _malom_moves_named(name: str, position: str) -> set[str]:
    """Malom's moves of a position, written in our notation (through ``malom_children``)."""
    from solver.rules import parse_position

    rules = make_rules(name)
    board = rules.board_data
    pos = parse_position(position, rules)
    me, opp, hand = (to_malom(pos.mover, board), to_malom(pos.opponent, board), pos.hand_mover)
    out = set()
    for m, o, _ in malom_children(name, me, opp, hand):
        (to,) = [MALOM_POINTS[i] for i in range(24) if (m & ~me) >> i & 1]
        left = [MALOM_POINTS[i] for i in range(24) if (me & ~m) >> i & 1]
        text = to if not left else f"{left[0]}-{to}"
        taken = [p for p in board.points if to_ours(opp & ~o, board) >> board.index[p] & 1]
        out.add(text + "".join("x" + p for p in taken))
    return out


def test_morabaraba_full_board_in_placing_is_a_draw():
    # Black places its 12th man on g7, the last empty point; g7's lines a7-d7-g7, g1-g4-g7 and
    # g7-f6-e5 each hold a White man (a7, g4, f6): no mill, the board is full. Malom: the 12-12
    # sector is a draw (FULL_BOARD_IS_DRAW); a reading where a side without a move loses would
    # make it a loss for White, to move.
    position = "WBWBWBWBWBWBWBWBWBWBWBW. b 0 1"
    assert both(position, "twelve") == {"g7"} == _malom_moves_named("twelve", position)
    full = "WBWBWBWBWBWBWBWBWBWBWBWB w"
    assert results(full, "twelve") == ("draw", "draw")
    rules = make_rules("twelve")
    me, opp = (to_malom(m, rules.board_data) for m in masks_of(full, rules))
    assert malom_status("twelve", me, opp, 0) == "draw"
    # the other reading, as an option: the full board is a side without moves, which loses
    assert results(full, "twelve", ["full-board=blocked"]) == ("loss", "loss")


def masks_of(position: str, rules) -> tuple[int, int]:
    from solver.rules import parse_position

    pos = parse_position(position, rules)
    return pos.mover, pos.opponent


def test_morabaraba_flies_with_three_men():
    # Morabaraba, moving phase: White a1, d1, g7 against 8 Black men. Malom flies at 3 men
    # (slide_adjmasks only when W + WF > 3); GamesmanOne's current Morabaraba variant ([gaaaa]:
    # flying "not allowed") would slide: a1: a4, b2; d1: d2, g1; g7: g4, f6 (d7 Black).
    position = "W:a1,d1,g7 B:a7,d7,b4,c4,e4,f4,d5,e5 w"
    empty = empty_points(position)
    got = both(position, "twelve")
    assert got == _malom_moves_named("twelve", position)
    # The one flight that closes a mill: g7 to g1 (a1-d1-g1); no Black man stands in a mill.
    closing = {f"g7-g1x{p}" for p in ("a7", "d7", "b4", "c4", "e4", "f4", "d5", "e5")}
    flights = {f"{m}-{p}" for m in ("a1", "d1", "g7") for p in empty} - {"g7-g1"}
    assert got == flights | closing
    got = both(position, "twelve", ["flying=never"])
    assert got == {"a1-a4", "a1-b2", "d1-d2", "d1-g1", "g7-g4", "g7-f6"}


def test_lasker_flying_counts_men_in_hand():
    # Lasker: White 3 men on the board and 2 in hand (5 in all): Malom slides (W + WF > 3), as
    # does the toolkit (men on the board plus in hand); a reading that counts the men on the board
    # only (GamesmanOne's "Lasker (on board)" variant) would fly here.
    # White a1, d1, c5; Black a7, g4, e3 (no Black mill), 4 in hand.
    # Placements: the 18 empty points, g1 closes a1-d1-g1 and takes a7, g4 or e3.
    # Slides: a1: a4 (d1 own); d1: d2, g1 (closes nothing: d1 leaves); c5: c4, d5.
    position = "W:a1,d1,c5 B:a7,g4,e3 w 2 4"
    empty = empty_points(position)
    places = (set(empty) - {"g1"}) | {"g1xa7", "g1xg4", "g1xe3"}
    got = both(position, "lasker")
    assert got == places | {"a1-a4", "d1-d2", "d1-g1", "c5-c4", "c5-d5"}
    assert got == _malom_moves_named("lasker", position)
    # 2 on the board and 1 in hand (3 in all): both readings fly, placement or flight
    position = "W:a1,d1 B:a7,g4,e3 w 1 4"
    empty = empty_points(position)
    got = both(position, "lasker")
    flights = {f"{m}-{p}" for m in ("a1", "d1") for p in empty}  # no flight closes a1-d1-g1
    assert got == (set(empty) - {"g1"}) | {"g1xa7", "g1xg4", "g1xe3"} | flights
    assert got == _malom_moves_named("lasker", position)


def test_lasker_no_man_on_the_board_places():
    # Lasker: White's men were all taken from the board, 3 left in hand: it can only place.
    position = "W: B:a7,d7,g4,e3 w 3 4"
    got = both(position, "lasker")
    assert got == set(empty_points(position)) == _malom_moves_named("lasker", position)
    # 2 in hand: fewer than 3 men, lost at once (the sector does not exist in Malom)
    assert results("W: B:a7,d7,g4,e3 w 2 4", "lasker") == ("loss", "loss")


def test_removal_from_mills_on_the_diagonal_board():
    # Morabaraba placing: White a1, b2 (8 in hand); c3 closes the diagonal a1-b2-c3.
    # Black: the diagonal mill g7-f6-e5 and d1 outside it: only d1 may go.
    position = "W:a1,b2 B:g7,f6,e5,d1 w 8 8"
    got = both(position, "twelve")
    assert got == (set(empty_points(position)) - {"c3"}) | {"c3xd1"}
    assert got == _malom_moves_named("twelve", position)
    # every Black man in a mill (g7-f6-e5 and a7-d7-g7): any of them may go
    position = "W:a1,b2 B:g7,f6,e5,a7,d7 w 7 7"
    got = both(position, "twelve")
    assert got == (set(empty_points(position)) - {"c3"}) | {f"c3x{p}" for p in ("a7", "d7", "e5", "f6", "g7")}
    assert got == _malom_moves_named("twelve", position)


def test_morabaraba_two_mills_one_removal():
    # A placement that closes two mills at once: White a4, a7 (column a1-a4-a7) and b2, c3 (diagonal a1-b2-c3): a1 closes both. One man is
    # removed (Malom: one child per takeable man), not one per mill.
    position = "W:a4,a7,b2,c3 B:d7,e4,f2 w 8 8"
    got = both(position, "twelve")
    # b2 and c3 also pair with d2 (b2-d2-f2: f2 Black) and d3/e3 (c3-d3-e3): not complete; a4 and
    # b4 (a4-b4-c4) need two. Only a1 closes a mill.
    assert got == (set(empty_points(position)) - {"a1"}) | {"a1xd7", "a1xe4", "a1xf2"}
    assert got == _malom_moves_named("twelve", position)
    got = both(position, "twelve", ["double-mill=per-mill"])
    assert {m for m in got if m.startswith("a1")} == {"a1xd7xe4", "a1xd7xf2", "a1xe4xf2"}


def test_mill_with_no_opponent_man_on_the_board():
    # The one difference (unreachable from the start): Black has no man on the board. White's c3
    # closes a1-b2-c3; the toolkit lets the mill stand with nothing removed, Malom's solver lists
    # no such move (nothing to take), Malom's GUI plays it without a removal.
    position = "W:a1,b2 B: w 10 10"
    got = both(position, "twelve")
    assert got == set(empty_points(position))
    assert _malom_moves_named("twelve", position) == got - {"c3"}
