"""Hand-made positions of the placing phase (men in hand) under each rule option, against both move
generators: the solver's (``solver.rules.game.legal_moves``) and the reference's
(``tests/reference.py``'s ``MoveGen.moves``, with the men in hand).

Every expected move list is written out by hand from docs/rules.md and the board drawings (the
neighbours and lines used are spelled out in the comments); neither program's output is copied.

Standard board (docs/rules.md):

    7 a7-----------d7-----------g7
    6 |   b6-------d6-------f6   |
    5 |   |   c5---d5---e5   |   |
    4 a4--b4--c4        e4--f4--g4
    3 |   |   c3---d3---e3   |   |
    2 |   b2-------d2-------f2   |
    1 a1-----------d1-----------g1
      a   b   c    d    e   f   g
"""

from __future__ import annotations

import pytest

from reference import MoveGen, bits
from solver.rules import format_move, make_rules, parse_position
from solver.rules.game import legal_moves, play, result

from test_rule_options import STD_POINTS, empty_points


def solver_moves(position: str, rules) -> list[str]:
    pos = parse_position(position, rules)
    return [format_move(m, rules.board_data) for m in legal_moves(pos, rules)]


def reference_moves(position: str, rules) -> list[str]:
    """The reference's moves in the notation: the point a man arrives on (and the one it left),
    and the opponent men that are gone afterwards; [] when the game is over."""
    pos = parse_position(position, rules)
    gen = MoveGen(rules)
    mover, opp, hand = pos.mover, pos.opponent, pos.hand_mover
    if gen.status(mover, opp, hand) is not None:
        return []
    points = rules.board_data.points
    out = []
    for m_after, o_after in gen.moves(mover, opp, hand):
        if (m_after, o_after) == (mover, opp):
            out.append("pass")
            continue
        (to,) = bits(m_after & ~mover)
        left = bits(mover & ~m_after)
        text = points[to] if not left else f"{points[left[0]]}-{points[to]}"
        for r in bits(opp & ~o_after):
            text += "x" + points[r]
        out.append(text)
    return out


def both(position: str, name: str = "standard", options=()) -> set[str]:
    """The legal moves, asserted equal (as lists without repeats) under both generators."""
    rules = make_rules(name, list(options))
    ours = solver_moves(position, rules)
    ref = reference_moves(position, rules)
    assert len(ours) == len(set(ours)), "the solver lists a move twice"
    assert len(ref) == len(set(ref)), "the reference lists a move twice"
    assert set(ours) == set(ref), (sorted(set(ours) - set(ref)), sorted(set(ref) - set(ours)))
    return set(ours)


def results(position: str, name: str = "standard", options=()) -> tuple[str | None, str | None]:
    """(the solver's game result, the reference's status) of a position."""
    rules = make_rules(name, list(options))
    pos = parse_position(position, rules)
    return result(pos, rules), MoveGen(rules).status(pos.mover, pos.opponent, pos.hand_mover)


# ---- a placement that closes two mills at once --------------------------------------------------

# White a1, a7, b4, c4 with 5 in hand; Black d7, e3, f6, g4 (no Black mill), 5 in hand.
# White's pairs on a line with the third point empty: a1-a7 (a1-a4-a7) and b4-c4 (a4-b4-c4), both
# missing a4; a1's row a1-d1-g1 and a7's row a7-d7-g7 (d7 Black) hold one White man each, b4's
# column b2-b4-b6 and c4's column c3-c4-c5 too. So a4 alone closes a mill, two of them.
DOUBLE = "W:a1,a7,b4,c4 B:d7,e3,f6,g4 w 5 5"
BLACK_MEN = ("d7", "e3", "f6", "g4")  # in point order: d7 < e3 < f6 < g4


def test_double_mill_placement_one_removal():
    got = both(DOUBLE)
    others = set(empty_points(DOUBLE)) - {"a4"}
    assert len(others) == 15
    assert got == others | {f"a4x{p}" for p in BLACK_MEN}


def test_double_mill_placement_per_mill():
    got = both(DOUBLE, options=["double-mill=per-mill"])
    others = set(empty_points(DOUBLE)) - {"a4"}
    pairs = {"a4xd7xe3", "a4xd7xf6", "a4xd7xg4", "a4xe3xf6", "a4xe3xg4", "a4xf6xg4"}
    assert got == others | pairs  # two men, one per mill: every pair of the four
    # optional removal on top: none, one or two of them
    got = both(DOUBLE, options=["double-mill=per-mill", "removal=optional"])
    assert got == others | pairs | {f"a4x{p}" for p in BLACK_MEN} | {"a4"}


# ---- removal and the opponent's mills, with men in hand -----------------------------------------

# White a1, d1: g1 closes a1-d1-g1 (g1's other lines g1-g4-g7 hold no White man).
# Black's mill a7-d7-g7 and b6 outside it.
MILL_AND_ONE = "W:a1,d1 B:a7,d7,g7,b6 w 5 5"
# Black's men are all in the mill a7-d7-g7; Black still has 6 men in hand (they do not count).
ALL_IN_MILL = "W:a1,d1 B:a7,d7,g7 w 6 6"


def test_removal_skips_the_mill_while_a_man_stands_outside():
    got = both(MILL_AND_ONE)
    assert got == (set(empty_points(MILL_AND_ONE)) - {"g1"}) | {"g1xb6"}
    got = both(MILL_AND_ONE, "viking")  # forfeit changes nothing while b6 stands outside
    assert got == (set(empty_points(MILL_AND_ONE)) - {"g1"}) | {"g1xb6"}


def test_removal_from_a_full_mill_with_men_in_hand():
    plain = set(empty_points(ALL_IN_MILL)) - {"g1"}
    got = both(ALL_IN_MILL)
    assert got == plain | {"g1xa7", "g1xd7", "g1xg7"}  # any man, the men in hand do not count
    got = both(ALL_IN_MILL, options=["removal-from-mills=forfeit"])
    assert got == plain | {"g1"}  # the mill closes, nothing is removed
    got = both(ALL_IN_MILL, "viking")
    assert got == plain | {"g1"}


def test_optional_removal_while_placing():
    got = both(MILL_AND_ONE, options=["removal=optional"])
    assert got == set(empty_points(MILL_AND_ONE)) | {"g1xb6"}  # g1 without a removal is listed too
    got = both(ALL_IN_MILL, options=["removal=optional"])
    assert got == set(empty_points(ALL_IN_MILL)) | {"g1xa7", "g1xd7", "g1xg7"}
    # forfeit and optional: nothing to remove, g1 once
    got = both(ALL_IN_MILL, options=["removal=optional", "removal-from-mills=forfeit"])
    assert got == set(empty_points(ALL_IN_MILL))


# ---- Lasker: place or move ----------------------------------------------------------------------

# White a1, d1, g4 with 6 in hand (3 + 6 <= 10); Black a7, b6 (no mill), 7 in hand.
# Placements: every empty point; g1 closes a1-d1-g1 and takes a7 or b6.
# Slides: a1: a4 (d1 own); d1: d2, g1 (a1 own; d1-g1 leaves d1, no mill);
#         g4: f4, g7, g1 (closes a1-d1-g1: takes a7 or b6).
LASKER = "W:a1,d1,g4 B:a7,b6 w 6 7"


def test_lasker_places_and_moves():
    got = both(LASKER, "lasker")
    places = (set(empty_points(LASKER)) - {"g1"}) | {"g1xa7", "g1xb6"}
    slides = {"a1-a4", "d1-d2", "d1-g1", "g4-f4", "g4-g7", "g4-g1xa7", "g4-g1xb6"}
    assert got == places | slides
    # the same hands without Lasker's rule: placements only (hands as the alternation wants)
    got = both("W:a1,d1,g4 B:a7,b6 w 6 6", "lasker", ["lasker=off", "men=9"])
    assert got == places


def test_lasker_flies_at_three_with_men_in_hand():
    # White: a1 on the board and 2 in hand make 3: the man flies. One man on the board closes no
    # mill, by placing or by flying.
    position = "W:a1 B:d5,e3,g7 w 2 5"
    empty = empty_points(position)
    assert len(empty) == 20
    got = both(position, "lasker")
    assert got == set(empty) | {f"a1-{p}" for p in empty}
    # without flying: a1 slides to a4 or d1
    got = both(position, "lasker", ["flying=never"])
    assert got == set(empty) | {"a1-a4", "a1-d1"}
    # 2 on the board and 2 in hand make 4: slides (a1: a4, d1; g4: g1, f4, not g7: Black's).
    # a1 and g4 share no line: no placement closes a mill.
    position = "W:a1,g4 B:d5,e3,g7 w 2 5"
    got = both(position, "lasker")
    assert got == set(empty_points(position)) | {"a1-a4", "a1-d1", "g4-g1", "g4-f4"}


def test_lasker_three_board_flying_never():
    # Three Men's Morris under Lasker: 2 on the board and 1 in hand; no flying on that board.
    # a1: a2, b1, b2; c3: b3, c2, b2. Placing b2 closes the diagonal a1-b2-c3, and so does no
    # move (a man moving to b2 leaves a1 or c3). Mill-wins: no removal.
    position = "W:a1,c3 B:a3,c1 w 1 1"
    got = both(position, "three", ["lasker=on"])
    assert got == {"a2", "b1", "b2", "b3", "c2", "a1-a2", "a1-b1", "a1-b2", "c3-b3", "c3-c2", "c3-b2"}


# ---- game over while men are in hand ------------------------------------------------------------


def test_fewer_than_three_with_men_in_hand_has_lost():
    # White: 1 on the board and 1 in hand = 2 < 3 (two men were taken): lost, no moves
    position = "W:a1 B:a7,d7,g7 w 1 1"
    assert both(position) == set()
    assert results(position) == ("loss", "loss")
    # 2 on the board and 1 in hand = 3: the game goes on
    position = "W:a1,b2 B:a7,d7,g7 w 1 1"
    assert results(position) == (None, None)
    assert both(position) == set(empty_points(position))  # no pair of a1, b2 on a line
    # the same under Lasker (any hands): 0 on the board and 2 in hand
    position = "W: B:a7,d7,g7 w 2 5"
    assert results(position, "lasker") == ("loss", "loss")


# ---- Twelve Men's Morris: the full board --------------------------------------------------------

# a1 W, a4 B, a7 W, ... alternating in point order: 12 White, 12 Black, every point taken.
FULL = "WBWBWBWBWBWBWBWBWBWBWBWB"


def test_full_board_is_a_draw():
    for side in ("w", "b"):
        position = f"{FULL} {side}"
        assert results(position, "twelve") == ("draw", "draw")
        assert both(position, "twelve") == set()
        # whatever the other options: blocked=passes does not turn the draw into a pass
        assert results(position, "twelve", ["blocked=passes"]) == ("draw", "draw")
    # full-board=blocked: a full board is a side without moves, which loses (or passes)
    assert results(f"{FULL} w", "twelve", ["full-board=blocked"]) == ("loss", "loss")
    assert both(f"{FULL} w", "twelve", ["full-board=blocked", "blocked=passes"]) == {"pass"}


def test_last_placement_fills_the_board():
    # g7 empty, Black to place its last man: g7's lines a7-d7-g7, g1-g4-g7 and g7-f6-e5 each
    # hold a White man (a7, g4, f6), so no Black mill; the board is then full: a draw.
    position = "WBWBWBWBWBWBWBWBWBWBWBW. b 0 1"
    assert both(position, "twelve") == {"g7"}
    rules = make_rules("twelve")
    after = play(parse_position(position, rules), parse_move_g7(rules), rules)
    assert result(after, rules) == "draw"
    assert MoveGen(rules).status(after.mover, after.opponent, after.hand_mover) == "draw"


def parse_move_g7(rules):
    from solver.rules import parse_move

    return parse_move("g7", rules.board_data)


# ---- Three Men's Morris: a mill wins ------------------------------------------------------------


def test_three_placement_mill_wins():
    # White a1, b2 with 1 in hand; Black a3, b3 with 1 in hand. c3 closes the diagonal
    # a1-b2-c3 (a1 and b2 share no other line with an empty third point: a1-b1-c1? b1 empty, c1
    # empty, one White man; a2-b2-c2 one White man). No removal under mill-wins.
    position = "W:a1,b2 B:a3,b3 w 1 1"
    assert both(position, "three") == {"a2", "b1", "c1", "c2", "c3"}
    rules = make_rules("three")
    from solver.rules import parse_move

    after = play(parse_position(position, rules), parse_move("c3", rules.board_data), rules)
    assert result(after, rules) == "loss"  # Black, with a man in hand, faces a mill
    assert MoveGen(rules).status(after.mover, after.opponent, after.hand_mover) == "loss"


def test_three_opponent_mill_with_men_in_hand():
    # Black to move with a man in hand; White has the mill a1-b1-c1: Black has lost
    position = "W:a1,b1,c1 B:a3,b3 b 0 1"
    assert results(position, "three") == ("loss", "loss")
    assert both(position, "three") == set()
    # without mill-wins the mill is just a mill: Black places (c3 closes a3-b3-c3 and takes a
    # White man; all three stand in the mill a1-b1-c1, so any of them)
    got = both(position, "three", ["mill-wins=off"])
    assert got == {"a2", "b2", "c2", "c3xa1", "c3xb1", "c3xc1"}


@pytest.mark.parametrize("name", ["standard", "six", "three", "twelve", "lasker"])
def test_start_position(name):
    """The empty board: every point is a placement (Lasker: nothing on the board to move)."""
    rules = make_rules(name)
    position = f"W: B: w {rules.men} {rules.men}"
    assert both(position, name) == set(rules.board_data.points)
