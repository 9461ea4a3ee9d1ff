"""``solver/tiers.py``: the tiers of a whole game (a, b, ha, hb), their names and twins, the tiers
each one's moves lead into, which tiers are solved together (groups) and in what order.

The solver's successors are checked by hand and against the reference's own
(``tests/reference.py``: ``tier_successors``, ``whole_closure``, ``tier_components``, written
separately from the board's rules); the order and the groups are checked as the properties the
engine relies on: every tier a group's moves lead into is solved before it, and a group is solved
without retrograde analysis only where its moves cannot come back into it."""

from __future__ import annotations

import pytest
from reference import tier_components, tier_successors, whole_closure

from solver.engine.order import pair_name, pairs_up_to
from solver.rules import make_rules
from solver.tiers import (
    fewer_men_needed,
    group_of,
    groups_in_order,
    moves_in,
    needed_by,
    removal_depth,
    start_tier,
    successors,
    tier_name,
    twin,
    valid,
    whole_game_tiers,
)

THREE = make_rules("three")
SIX = make_rules("six")

# Rule sets whose tiers differ in kind: removals (none under mill-wins, up to 3 per move under
# per-mill on the diagonal board), Lasker's rule (moves with men in hand), passes, the full board
# of Twelve Men's Morris, and the smallest games.
RULE_SETS = [
    ("standard", []),
    ("standard", ["lasker=on", "double-mill=per-mill"]),
    ("lasker", []),
    ("twelve", []),
    ("twelve", ["double-mill=per-mill"]),
    ("twelve", ["full-board=blocked", "blocked=passes"]),
    ("six", []),
    ("six", ["double-mill=per-mill"]),
    ("six", ["blocked=passes"]),
    ("six", ["men=4", "lasker=on"]),
    ("three", []),
    ("three", ["lasker=on"]),
    ("three", ["mill-wins=off"]),
]
IDS = [" ".join([name, *options]) for name, options in RULE_SETS]


def all_rules():
    return [make_rules(name, options) for name, options in RULE_SETS]


# ---- names and twins ----------------------------------------------------------------------------


def test_tier_names():
    """A moving-phase tier is named as its subspace (the names of the database's datasets);
    hands are spelled out otherwise."""
    assert tier_name((3, 4, 0, 0)) == "3-4"
    assert tier_name((3, 4, 2, 1)) == "3-4-2-1"
    assert tier_name((0, 0, 9, 9)) == "0-0-9-9"
    assert tier_name((3, 4, 0, 1)) == "3-4-0-1"  # one hand empty is not the moving phase
    assert group_of(SIX, (4, 3, 0, 0)).name == "3-4 and 4-3" == pair_name(3, 4)
    assert group_of(SIX, (4, 4, 0, 0)).name == "4-4" == pair_name(4, 4)
    lasker = make_rules("six", ["lasker=on"])
    assert group_of(lasker, (2, 3, 1, 0)).name == "2-3-1-0 and 3-2-0-1"


@pytest.mark.parametrize("rules", all_rules(), ids=IDS)
def test_twin_swaps_the_sides(rules):
    for t in whole_game_tiers(rules, extended=True):
        a, b, ha, hb = t
        assert twin(t) == (b, a, hb, ha) and twin(twin(t)) == t
        assert valid(rules, twin(t))  # the extended tiers are every valid one: closed under twin


# ---- successors ---------------------------------------------------------------------------------


def test_successors_by_hand():
    """The tier numbers after a placement (a man more for the side that moved, one less in hand)
    or a move, k men removed, seen from the new side to move."""
    # Three Men's Morris: a mill wins, so no removal
    assert successors(THREE, (0, 0, 3, 3)) == [(0, 1, 3, 2)]
    assert successors(THREE, (2, 3, 1, 0)) == [(3, 3, 0, 0)]
    assert successors(THREE, (3, 3, 0, 0)) == [(3, 3, 0, 0)]
    # without mill-wins: (2, 3, 0, 0) leaves the new side to move with 2 men: game over, left out
    assert successors(make_rules("three", ["mill-wins=off"]), (2, 3, 1, 0)) == [(3, 3, 0, 0)]
    # six: the second man placed closes no mill, the third may (and removes one)
    assert successors(SIX, (1, 1, 5, 5)) == [(1, 2, 5, 4)]
    assert successors(SIX, (2, 2, 4, 4)) == [(1, 3, 4, 3), (2, 3, 4, 3)]
    assert successors(SIX, (4, 3, 0, 0)) == [(3, 4, 0, 0)]  # (2, 4): lost, left out
    # Lasker: a placement or a move, with men in hand
    lasker = make_rules("six", ["lasker=on"])
    assert successors(lasker, (2, 2, 4, 4)) == [(1, 3, 4, 3), (2, 2, 4, 4), (2, 3, 4, 3)]
    assert successors(lasker, (4, 4, 1, 1)) == [(3, 4, 1, 1), (3, 5, 1, 0), (4, 4, 1, 1), (4, 5, 1, 0)]
    # per-mill: the fifth man placed can close two mills at once (a1: a1-c1-e1 and a1-a3-a5)
    per_mill = make_rules("six", ["double-mill=per-mill"])
    assert successors(per_mill, (4, 4, 1, 1)) == [(2, 5, 1, 0), (3, 5, 1, 0), (4, 5, 1, 0)]
    # passes: a side without men in hand may pass (into its twin); one placing may not
    passes = make_rules("six", ["blocked=passes"])
    assert successors(passes, (4, 3, 0, 0)) == [(3, 4, 0, 0)]  # the pass is (3, 4, 0, 0) too
    assert successors(passes, (3, 3, 1, 1)) == [(2, 4, 1, 0), (3, 4, 1, 0)]


@pytest.mark.parametrize("rules", all_rules(), ids=IDS)
def test_successors_include_every_tier_the_reference_reaches(rules):
    """For every valid tier, each tier the reference's ``tier_successors`` lists is among the
    solver's successors: a tier the solver left out would be read before it is solved. (The
    solver's may list more: moves from a full board, or more removals than the board's mills
    allow; that only orders the groups more strictly.)"""
    for t in whole_game_tiers(rules, extended=True):
        missing = tier_successors(rules, t) - set(successors(rules, t))
        assert not missing, (t, sorted(missing))


def test_fewer_men_needed():
    """The smaller subspaces a moving-phase subspace's removals lead into, none below 3 men."""
    standard = make_rules("standard")
    assert fewer_men_needed(standard, 3, 3) == []
    assert fewer_men_needed(standard, 4, 4) == [(3, 4)]
    assert fewer_men_needed(standard, 9, 5) == [(4, 9)]
    assert removal_depth(standard) == 1
    # per-mill on the diagonal board: a man moved into a point of three lines closes two mills
    twelve = make_rules("twelve", ["double-mill=per-mill"])
    assert fewer_men_needed(twelve, 7, 5) == [(4, 7), (3, 7)]
    assert removal_depth(twelve) == 2
    for rules in all_rules():
        for a, b in pairs_up_to(min(rules.men, rules.board_data.n // 2)):
            for x, y in {(a, b), (b, a)}:
                want = {(y - k, x, 0, 0) for k in range(1, removal_depth(rules) + 1) if y - k >= 3}
                got = {(s[0], s[1], 0, 0) for s in fewer_men_needed(rules, x, y)}
                assert got <= want
                # among the moving-phase successors with a removal (which, for ordering tiers
                # only, may count more removals than a move can make)
                assert got <= {s for s in successors(rules, (x, y, 0, 0)) if s[0] < y}


# ---- the tiers of a whole game ------------------------------------------------------------------


@pytest.mark.parametrize("rules", all_rules(), ids=IDS)
def test_whole_game_tiers_are_closed_under_successors(rules):
    """Every tier a whole game's tiers lead into, and the twin each is solved with, is among them;
    they hold every tier the reference's closure reaches from the start; the extended tiers hold
    them all and are closed as well."""
    tiers = whole_game_tiers(rules)
    assert start_tier(rules) in tiers and tiers == sorted(set(tiers))
    for extended in (False, True):
        found = set(whole_game_tiers(rules, extended))
        for t in found:
            assert valid(rules, t), t
            assert set(successors(rules, t)) <= found, t
            assert set(group_of(rules, t).tiers) <= found, t
    assert set(whole_closure(rules, [start_tier(rules)])) <= set(tiers)
    assert set(tiers) <= set(whole_game_tiers(rules, extended=True))


def test_whole_game_tiers_by_count():
    # Three Men's Morris, from the start: placements in turn, then the moving phase
    assert whole_game_tiers(THREE) == [
        (0, 0, 3, 3), (0, 1, 3, 2), (1, 1, 2, 2), (1, 2, 2, 1), (2, 2, 1, 1), (2, 3, 1, 0), (3, 3, 0, 0)
    ]
    assert len(whole_game_tiers(SIX)) == 77
    # without Lasker's rule the hands go in turn: equal, or the side to move one more
    assert all(ha == hb or ha == hb + 1 for _, _, ha, hb in whole_game_tiers(SIX))


# ---- groups and their order ---------------------------------------------------------------------


@pytest.mark.parametrize("rules", all_rules(), ids=IDS)
@pytest.mark.parametrize("extended", [False, True], ids=["whole", "extended"])
def test_every_successor_is_solved_before(rules, extended):
    """In ``groups_in_order``, each tier is in exactly one group, and every tier its moves lead
    into is in its own group or in one that comes before; ``needed_by`` lists exactly the latter."""
    tiers = whole_game_tiers(rules, extended)
    groups = groups_in_order(rules, tiers)
    where: dict = {}
    for i, g in enumerate(groups):
        for t in g.tiers:
            assert t not in where, f"{t} in two groups"
            where[t] = i
    assert set(where) == set(tiers)
    for i, g in enumerate(groups):
        outside = {s for t in g.tiers for s in successors(rules, t)} - set(g.tiers)
        assert set(needed_by(rules, g)) == outside
        late = [s for s in outside if where[s] >= i]
        assert not late, f"group {g.name} reads {late}, solved after it"
        assert g.moving_phase == all(t[2] == t[3] == 0 for t in g.tiers)


@pytest.mark.parametrize("rules", all_rules(), ids=IDS)
def test_a_group_cycles_exactly_when_both_sides_may_move(rules):
    """A group is a tier and its twin where both sides may move (moves go back and forth between
    them; a tier that is its own twin alone), and it then ``cycles``: it is solved by retrograde
    analysis. Otherwise it is one tier whose moves never come back into it (each position is the
    best of successors solved before). Every cycle of the reference's tier graph lies inside one
    cycling group."""
    tiers = whole_game_tiers(rules, extended=True)
    for g in groups_in_order(rules, tiers):
        t = g.tiers[0]
        both = moves_in(rules, t[2]) and moves_in(rules, t[3])
        assert g.cycles == both, g
        assert set(g.tiers) == ({t, twin(t)} if both else {t}), g
        if not g.cycles:
            assert t not in successors(rules, t), g
    for component in tier_components(rules, whole_closure(rules, tiers)):
        if len(component) > 1 or component[0] in tier_successors(rules, component[0]):
            g = group_of(rules, component[0])
            assert g.cycles and set(component) <= set(g.tiers), (component, g)


def test_a_tier_whose_twin_is_not_asked_for_is_grouped_with_it():
    lasker = make_rules("six", ["lasker=on"])
    (g,) = groups_in_order(lasker, [(2, 3, 1, 0)])
    assert g.tiers == ((2, 3, 1, 0), (3, 2, 0, 1)) and g.cycles


def test_the_moving_phase_groups_are_the_pairs():
    """On the moving phase the groups are the engine's pairs (a subspace and its twin), by
    increasing total of men: what ``morris solve`` solves, in an order the groups allow."""
    rules = make_rules("standard")
    pairs = pairs_up_to(9)
    groups = groups_in_order(rules, [(a, b, 0, 0) for a, b in pairs])
    assert all(g.moving_phase and g.cycles for g in groups)
    assert sorted(g.name for g in groups) == sorted(pair_name(a, b) for a, b in pairs)
    totals = [sum(g.tiers[0][:2]) for g in groups]
    assert totals == sorted(totals)
