"""Every rule option of docs/rules.md on hand-made positions.

Each expected move list is worked out by hand from the rules and the board (the adjacencies are
spelled out in comments), not copied from the program. The positions go through
``morris moves --json`` so that ``--rules`` and ``-o`` are exercised too.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.rules.game import play, result
from solver.rules.notation import parse_move, parse_position
from solver.rules import make_rules

STD_POINTS = "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7".split()


def moves(position: str, *args: str) -> tuple[set[str], str | None]:
    """The legal moves (as a set of strings) and the result, from ``morris moves --json``."""
    res = CliRunner().invoke(main, ["moves", "--json", *args, position])
    assert res.exit_code == 0, res.output
    (line,) = res.stdout.splitlines()
    data = json.loads(line)
    assert len(data["moves"]) == len(set(data["moves"])), "a move is listed twice"
    return set(data["moves"]), data["result"]


def after(position: str, move: str, name: str = "standard", options=()) -> tuple[str | None, object]:
    """Play ``move`` and return (result, position) of the position after it."""
    rules = make_rules(name, list(options))
    pos = parse_position(position, rules)
    nxt = play(pos, parse_move(move, rules.board_data), rules)
    return result(nxt, rules), nxt


def names(mask: int, points=STD_POINTS) -> set[str]:
    return {p for i, p in enumerate(points) if mask >> i & 1}


def empty_points(position: str, points=STD_POINTS) -> list[str]:
    taken = set()
    for part in position.split():
        if ":" in part:
            taken |= set(filter(None, part.split(":")[1].split(",")))
    return [p for p in points if p not in taken]


# ---- removing from mills when every opponent man stands in a mill ------------------------------

# White: a1, d1, g4, c5; Black: the mills a7-d7-g7 and b2-b4-b6, nothing else.
# White's slides (adjacency of the standard board):
#   a1: a4 (d1 own)         -> a1-a4
#   d1: d2, g1 (a1 own)     -> d1-d2, d1-g1 (g1 then has a1, but not d1: no mill)
#   g4: g1, f4 (g7 Black)   -> g4-g1 closes a1-d1-g1, g4-f4
#   c5: c4, d5              -> c5-c4, c5-d5
ALL_IN_MILLS = "W:a1,d1,g4,c5 B:a7,d7,g7,b2,b4,b6 w"
PLAIN = {"a1-a4", "d1-d2", "d1-g1", "g4-f4", "c5-c4", "c5-d5"}


def test_all_in_mills_any_man_may_be_removed():
    got, res = moves(ALL_IN_MILLS)
    assert res is None
    assert got == PLAIN | {f"g4-g1x{p}" for p in ("a7", "d7", "g7", "b2", "b4", "b6")}


@pytest.mark.parametrize("args", [["--rules", "viking"], ["-o", "removal-from-mills=forfeit"]])
def test_all_in_mills_removal_forfeited(args):
    got, _ = moves(ALL_IN_MILLS, *args)
    assert got == PLAIN | {"g4-g1"}  # the mill closes, nothing is removed
    res, pos = after(ALL_IN_MILLS, "g4-g1", "viking")
    assert res is None and bin(pos.black).count("1") == 6


@pytest.mark.parametrize("args", [[], ["--rules", "viking"]])
def test_man_outside_mills_must_be_taken(args):
    # one Black man (e5: next to d5 and e4, no mill) outside the mills: only it may go
    got, _ = moves("W:a1,d1,g4,c5 B:a7,d7,g7,b2,b4,b6,e5 w", *args)
    assert got == PLAIN | {"g4-g1xe5"}


def test_two_men_outside_mills():
    # Black: the mill a7-d7-g7 plus b2 and b4 (b2-b4-b6 not complete): b2 or b4
    got, _ = moves("W:a1,d1,g4,c5 B:a7,d7,g7,b2,b4 w")
    assert got == PLAIN | {"g4-g1xb2", "g4-g1xb4"}


# ---- two mills at once ------------------------------------------------------------------------

# Placing: White a1, g1, d2, d3 (5 in hand each); d1 closes a1-d1-g1 and d1-d2-d3 together.
# No other empty point closes a White mill (a4: a7 is Black; b2/f2, c3/e3 need two more).
DOUBLE = "W:a1,g1,d2,d3 B:a7,b6,c5,e5 w 5 5"
DOUBLE_EMPTY = "a4 b2 b4 c3 c4 d5 d6 d7 e3 e4 f2 f4 f6 g4 g7".split()  # 16 empty less d1


def test_double_mill_one_removal():
    got, _ = moves(DOUBLE)
    assert got == set(DOUBLE_EMPTY) | {"d1xa7", "d1xb6", "d1xc5", "d1xe5"}


def test_double_mill_per_mill():
    got, _ = moves(DOUBLE, "-o", "double-mill=per-mill")
    # every pair of the four Black men, written in board-string order (a7 b6 c5 e5)
    pairs = {"d1xa7xb6", "d1xa7xc5", "d1xa7xe5", "d1xb6xc5", "d1xb6xe5", "d1xc5xe5"}
    assert got == set(DOUBLE_EMPTY) | pairs
    res, pos = after(DOUBLE, "d1xa7xe5", options=["double-mill=per-mill"])
    assert res is None and names(pos.black) == {"b6", "c5"} and (pos.hand_white, pos.hand_black) == (4, 5)


def test_double_mill_per_mill_second_from_a_mill():
    # Black: the mill a7-d7-g7 and e5. The first removal must be e5; then every Black man is in
    # a mill and any of them may go. The same pair is listed once.
    position = "W:a1,g1,d2,d3 B:a7,d7,g7,e5 w 5 5"
    got, _ = moves(position, "-o", "double-mill=per-mill")
    empty = [p for p in DOUBLE_EMPTY if p not in ("d7", "g7")] + ["b6", "c5"]
    assert got == set(empty) | {"d1xa7xe5", "d1xd7xe5", "d1xe5xg7"}
    got, _ = moves(position)
    assert got == set(empty) | {"d1xe5"}
    # with the forfeit rule the second removal is lost: only e5 goes
    got, _ = moves(position, "-o", "double-mill=per-mill", "-o", "removal-from-mills=forfeit")
    assert got == set(empty) | {"d1xe5"}


def test_double_mill_notation_of_rules_md():
    # docs/rules.md writes two removals as a1-a4xb6xc4: the parser takes them in either order
    board = make_rules().board_data
    assert parse_move("a1-a4xb6xc4", board) == parse_move("a1-a4xc4xb6", board)


# Diagonal board (Twelve Men's Morris), White to place with men in hand: White d2 f2 b4 b6 a1 c3,
# so b2 closes three mills at once (b2-d2-f2, b2-b4-b6 and the diagonal a1-b2-c3). No other empty
# point has two White men on one of its mills, so every other placement is plain.
TRIPLE = "W:d2,f2,b4,b6,a1,c3 B:a7,d7,g4,e4 w 6 6"


def test_triple_mill_per_mill():
    # Black a7 d7 g4 e4: no Black mill (g7 and f4 are empty), every man removable at each step.
    plain = {p for p in empty_points(TRIPLE) if p != "b2"}
    got, _ = moves(TRIPLE, "--rules", "twelve", "-o", "double-mill=per-mill")
    triples = {"b2xa7xd7xe4", "b2xa7xd7xg4", "b2xa7xe4xg4", "b2xd7xe4xg4"}  # every 3 of the 4
    assert "b2xa7xd7xg4" in got
    assert got == plain | triples
    got, _ = moves(TRIPLE, "--rules", "twelve")
    assert got == plain | {"b2xa7", "b2xd7", "b2xe4", "b2xg4"}
    # optional removal: none, one, two or three of them
    got, _ = moves(TRIPLE, "--rules", "twelve", "-o", "double-mill=per-mill", "-o", "removal=optional")
    pairs = {"b2xa7xd7", "b2xa7xe4", "b2xa7xg4", "b2xd7xe4", "b2xd7xg4", "b2xe4xg4"}
    assert got == plain | triples | pairs | {"b2", "b2xa7", "b2xd7", "b2xe4", "b2xg4"}
    res, pos = after(TRIPLE, "b2xg4xa7xd7", "twelve", ["double-mill=per-mill"])
    assert res is None and names(pos.black) == {"e4"} and (pos.hand_white, pos.hand_black) == (5, 6)


def test_triple_mill_removable_men_change():
    # Black: the mill a7-d7-g7, and g4 and e4 outside it. The first two removals must take g4 and
    # e4 (in either order: listed once); then every Black man stands in a mill and any may go.
    position = "W:d2,f2,b4,b6,a1,c3 B:a7,d7,g7,g4,e4 w 6 6"
    plain = {p for p in empty_points(position) if p != "b2"}
    got, _ = moves(position, "--rules", "twelve", "-o", "double-mill=per-mill")
    assert got == plain | {"b2xa7xe4xg4", "b2xd7xe4xg4", "b2xe4xg4xg7"}
    # forfeit: with every man left in a mill, the third removal is lost
    got, _ = moves(position, "--rules", "twelve", "-o", "double-mill=per-mill", "-o", "removal-from-mills=forfeit")
    assert got == plain | {"b2xe4xg4"}
    got, _ = moves(position, "--rules", "twelve", "-o", "double-mill=per-mill", "-o", "removal=optional")
    assert got == plain | {"b2", "b2xe4", "b2xg4", "b2xe4xg4", "b2xa7xe4xg4", "b2xd7xe4xg4", "b2xe4xg4xg7"}


# ---- optional removal -------------------------------------------------------------------------


def test_removal_optional():
    position = "W:a1,d1,g4,c5 B:a7,d7,g7,b2,b4,b6,e5 w"
    got, _ = moves(position, "-o", "removal=optional")
    assert got == PLAIN | {"g4-g1", "g4-g1xe5"}
    got, _ = moves(DOUBLE, "-o", "removal=optional")
    assert got == set(DOUBLE_EMPTY) | {"d1", "d1xa7", "d1xb6", "d1xc5", "d1xe5"}
    res, pos = after(position, "g4-g1", options=["removal=optional"])
    assert res is None and bin(pos.black).count("1") == 7


# ---- a player with no legal move -------------------------------------------------------------

# Black a1, d1, g1, a7 against White a4, d2, g4, d7:
#   a1: a4 White, d1 own; d1: a1, g1 own, d2 White; g1: d1 own, g4 White; a7: a4, d7 White.
BLOCKED = "W:a4,d2,g4,d7 B:a1,d1,g1,a7 b"


def test_blocked_loses():
    got, res = moves(BLOCKED)
    assert got == set() and res == "loss"


def test_blocked_passes():
    got, res = moves(BLOCKED, "-o", "blocked=passes")
    assert got == {"pass"} and res is None
    res, pos = after(BLOCKED, "pass", options=["blocked=passes"])
    assert res is None and pos.side == "w"  # the same men, White moves again
    assert names(pos.white) == {"a4", "d2", "g4", "d7"} and names(pos.black) == {"a1", "d1", "g1", "a7"}


def test_blocking_move_wins():
    # White d3-d2 shuts the last Black man in (d1's way out): Black to move then has lost.
    position = "W:a4,d3,g4,d7 B:a1,d1,g1,a7 w"
    got, _ = moves(position)
    assert "d3-d2" in got
    res, _ = after(position, "d3-d2")
    assert res == "loss"


# ---- flying -----------------------------------------------------------------------------------

# Black a1, d1, g1 (3 men) against White a4, d2, g4, d7: flying, any man to any empty point;
# no fly closes a Black mill (a1-d1-g1 loses the man that moves, the others are blocked by White).
FLY = "W:a4,d2,g4,d7 B:a1,d1,g1 b"


def test_flying_at_three():
    got, res = moves(FLY)
    empty = empty_points(FLY)
    assert len(empty) == 17
    assert got == {f"{m}-{p}" for m in ("a1", "d1", "g1") for p in empty} and res is None


@pytest.mark.parametrize("args", [["-o", "flying=never"], ["--rules", "no-flying"], ["--rules", "viking"]])
def test_flying_never(args):
    got, res = moves(FLY, *args)
    assert got == set() and res == "loss"  # slides only, and there are none


def test_flying_mill():
    # White a1, d1, f6 flies f6-g1 to close a1-d1-g1; Black b4, d5, e3, g7 (no mills)
    position = "W:a1,d1,f6 B:b4,d5,e3,g7 w"
    empty = empty_points(position)
    expected = {f"{m}-{p}" for m in ("a1", "d1", "f6") for p in empty} - {"f6-g1"}
    expected |= {f"f6-g1x{p}" for p in ("b4", "d5", "e3", "g7")}
    got, _ = moves(position)
    assert got == expected and len(got) == 54
    # without flying: a1: a4; d1: d2, g1; f6: f4, d6
    got, _ = moves(position, "-o", "flying=never")
    assert got == {"a1-a4", "d1-d2", "d1-g1", "f6-f4", "f6-d6"}


def test_flying_counts_men_in_hand():
    # Lasker: 2 men on the board and 1 in hand make 3: the men on the board fly
    position = "W:a1,d1 B:b4,d5,e3,g7 w 1 3"
    empty = empty_points(position)
    got, _ = moves(position, "--rules", "lasker")
    expected = {p for p in empty if p != "g1"} | {"g1xb4", "g1xd5", "g1xe3", "g1xg7"}
    expected |= {f"{m}-{p}" for m in ("a1", "d1") for p in empty}  # no fly closes a mill
    assert got == expected


# ---- the diagonal board -----------------------------------------------------------------------


def test_diagonal_mill_by_placing():
    position = "W:a1,b2 B:a7,g7 w 10 10"
    empty = empty_points(position)
    got, _ = moves(position, "--rules", "twelve")
    assert got == (set(empty) - {"c3"}) | {"c3xa7", "c3xg7"}  # a1-b2-c3
    got, _ = moves(position, "--rules", "morabaraba", "-o", "board=standard")
    assert got == set(empty)  # no diagonal lines: c3 closes nothing


def test_diagonal_slides():
    # the four corners of the middle square: each slides along its two sides and its diagonal
    position = "W:b2,b6,f6,f2 B:d1,d3,d5,d7 w"
    got, _ = moves(position, "--rules", "twelve")
    standard = {"b2-b4", "b2-d2", "b6-b4", "b6-d6", "f6-f4", "f6-d6", "f2-f4", "f2-d2"}
    diagonal = {"b2-a1", "b2-c3", "b6-a7", "b6-c5", "f6-g7", "f6-e5", "f2-g1", "f2-e3"}
    assert got == standard | diagonal
    got, _ = moves(position, "--rules", "twelve", "-o", "board=standard")
    assert got == standard


def test_diagonal_mill_by_sliding():
    # White a1, c3, b4, g7; the man on b4 slides to b2 and closes the diagonal a1-b2-c3.
    # a1: a4, d1, b2; c3: c4, d3, b2; b4: a4, c4, b6, b2; g7: g4, d7, f6 (no other mill closes:
    # a1-a4-a7 has Black a7, b2-d2-f2 Black f2).
    position = "W:a1,c3,b4,g7 B:d5,e4,f2,a7 w"
    got, _ = moves(position, "--rules", "twelve")
    plain = {"a1-a4", "a1-d1", "a1-b2", "c3-c4", "c3-d3", "c3-b2", "b4-a4", "b4-c4", "b4-b6"}
    plain |= {"g7-g4", "g7-d7", "g7-f6"}
    assert got == plain | {"b4-b2xd5", "b4-b2xe4", "b4-b2xf2", "b4-b2xa7"}


# ---- Lasker -----------------------------------------------------------------------------------


def test_lasker_place_or_move():
    # White a1, d1 with 8 in hand: every empty point (g1 closes a1-d1-g1 and takes a7), or a slide:
    # a1: a4; d1: d2, g1
    position = "W:a1,d1 B:a7 w 8 9"
    empty = empty_points(position)
    got, _ = moves(position, "--rules", "lasker")
    assert got == (set(empty) - {"g1"}) | {"g1xa7", "a1-a4", "d1-d2", "d1-g1"}
    # the same men, no Lasker rule: placements only
    got, _ = moves("W:a1,d1 B:a7 w 8 8", "--rules", "lasker", "-o", "lasker=off")
    assert got == (set(empty) - {"g1"}) | {"g1xa7"}


def test_lasker_empty_hand_moves_only():
    # White's hand is empty, Black still holds men: White slides
    # a1: a4; d1: d2, g1; g4: g1 (closes a1-d1-g1), f4, g7; c5: c4, d5
    got, _ = moves("W:a1,d1,g4,c5 B:a7 w 0 6", "--rules", "lasker")
    assert got == {"a1-a4", "d1-d2", "d1-g1", "g4-g1xa7", "g4-f4", "g4-g7", "c5-c4", "c5-d5"}


def test_lasker_allows_any_hands():
    rules = make_rules("lasker")
    pos = parse_position("W:a1 B: b 9 3", rules)
    assert (pos.hand_white, pos.hand_black) == (9, 3)


# ---- full board in Twelve Men's Morris ---------------------------------------------------------

# a1 W, a4 B, a7 W, b2 B, ... alternating in board-string order, g7 empty: 12 White, 11 Black.
# g7's lines a7-d7-g7, g1-g4-g7 and g7-f6-e5 each hold a White man (a7, g4, f6): no Black mill.
LAST_PLACEMENT = "WBWBWBWBWBWBWBWBWBWBWBW. b 0 1"


def test_full_board_is_a_draw():
    got, res = moves(LAST_PLACEMENT, "--rules", "twelve")
    assert got == {"g7"} and res is None
    res, _ = after(LAST_PLACEMENT, "g7", "twelve")
    assert res == "draw"
    got, res = moves("WBWBWBWBWBWBWBWBWBWBWBWB w", "--rules", "twelve")
    assert got == set() and res == "draw"


def test_full_board_blocked_option():
    got, res = moves("WBWBWBWBWBWBWBWBWBWBWBWB w", "--rules", "twelve", "-o", "full-board=blocked")
    assert got == set() and res == "loss"


def test_last_placement_with_a_mill_is_no_draw():
    # As above with a4 White and g4 Black: g7 closes g1-g4-g7 for Black. White's only mill is
    # a1-a4-a7 (every other line through a White man holds a Black one), so any of the other
    # nine White men may be taken, and the board is not full afterwards.
    position = "WWWBWBWBWBWBWBWBWBWBWBB. b 0 1"
    got, res = moves(position, "--rules", "twelve")
    assert res is None
    assert got == {f"g7x{p}" for p in ("b4", "c3", "c5", "d2", "d5", "d7", "e4", "f2", "f6")}
    res, _ = after(position, "g7xd7", "twelve")
    assert res is None  # White a7-d7 slides into the hole


# ---- Three Men's Morris -----------------------------------------------------------------------


def test_three_mill_wins_no_removal_no_flying():
    # White a1, b1, b2; Black a3, c2, c3. a1 touches a2, b1, b2; b1 touches a1, c1, b2;
    # b2 touches every point. b2-c1 closes a1-b1-c1 and wins at once: no removal.
    position = "W:a1,b1,b2 B:a3,c2,c3 w"
    got, res = moves(position, "--rules", "three")
    assert got == {"a1-a2", "b1-c1", "b2-a2", "b2-b3", "b2-c1"} and res is None
    res, pos = after(position, "b2-c1", "three")
    assert res == "loss" and bin(pos.black).count("1") == 3
    # the same board with removals: the mill takes a man instead of winning
    got, _ = moves(position, "--rules", "three", "-o", "mill-wins=off")
    assert got == {"a1-a2", "b1-c1", "b2-a2", "b2-b3", "b2-c1xa3", "b2-c1xc2", "b2-c1xc3"}


def test_three_placing():
    got, _ = moves("W:a1,b2 B:a3,c3 w 1 1", "--rules", "three")
    assert got == {"a2", "b1", "b3", "c1", "c2"}  # c3 is Black's: no mill to close
    position = "W:a1,b2 B:a3,b3 w 1 1"
    got, _ = moves(position, "--rules", "three")
    assert got == {"a2", "b1", "c1", "c2", "c3"}  # c3 closes the diagonal a1-b2-c3
    res, _ = after(position, "c3", "three")
    assert res == "loss"


def test_three_opponent_mill_has_won():
    got, res = moves("W:a1,b1,c1 B:a3,b3,c2 b", "--rules", "three")
    assert got == set() and res == "loss"


# ---- Six Men's Morris -------------------------------------------------------------------------

SIX_POINTS = "a1 a3 a5 b2 b3 b4 c1 c2 c4 c5 d2 d3 d4 e1 e3 e5".split()


def test_six_placing():
    position = "W:a1,c1 B:a5,c5 w 4 4"
    empty = empty_points(position, SIX_POINTS)
    got, _ = moves(position, "--rules", "six")
    assert got == (set(empty) - {"e1"}) | {"e1xa5", "e1xc5"}  # a1-c1-e1; c1-c2 joins no mill
    assert "c2" in got


def test_six_moving_no_flying():
    # a1: c1 own, a3; c1: a1 own, e1, c2; e3: e1 (closes a1-c1-e1), e5, d3
    position = "W:a1,c1,e3 B:a5,c5,b4 w"
    expected = {"a1-a3", "c1-c2", "c1-e1", "e3-d3", "e3-e5", "e3-e1xa5", "e3-e1xb4", "e3-e1xc5"}
    got, _ = moves(position, "--rules", "six")
    assert got == expected
    # with flying switched on, the 3 men fly to any of the 10 empty points; only e3-e1 closes a
    # mill (a1-c1-e1); a1 or c1 flying leaves the other without a partner on a line with e3
    empty = empty_points(position, SIX_POINTS)
    assert len(empty) == 10
    got, _ = moves(position, "--rules", "six", "-o", "flying=at-3")
    fly = {f"{m}-{p}" for m in ("a1", "c1", "e3") for p in empty} - {"e3-e1"}
    assert got == fly | {"e3-e1xa5", "e3-e1xb4", "e3-e1xc5"}
