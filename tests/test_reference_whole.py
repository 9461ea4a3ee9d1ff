"""Tests of the reference solver's whole games (tests/reference.py: placing, moving, Lasker's rule,
the full board): tiers and their closure, reachable tiers, the defining equations on every
position, agreement with the moving-phase solver, an independent depth-limited search, and
positions whose values are argued by hand.

Three Men's Morris board (a mill wins; every line is a path):

    3 a3--b3--c3
      | \\ | / |
    2 a2--b2--c2
      | / | \\ |
    1 a1--b1--c1
      a   b   c

Six Men's Morris board (mills: the sides of the two squares):

    5 a5-------c5-------e5
    4 |   b4---c4---d4   |
    3 a3--b3        d3--e3
    2 |   b2---c2---d2   |
    1 a1-------c1-------e1
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest
from reference import (
    DRAW,
    LOSS,
    WIN,
    MoveGen,
    build_graph,
    build_whole_graph,
    cached_solve,
    cached_whole,
    check_solution,
    closure,
    enumerate_subspace,
    enumerate_tier,
    lookup_whole,
    masks,
    reachable_tiers,
    solve_graph,
    solve_whole_reference,
    start_value,
    summary,
    tier_components,
    tier_successors,
    whole_closure,
    whole_values,
)

from solver.rules import make_rules

THREE = make_rules("three")
SIX = make_rules("six")
SIX4 = make_rules("six", ["men=4"])
REFERENCE = Path(__file__).resolve().parent / "reference.py"


@pytest.fixture(scope="module")
def six4_whole(reference_whole):
    """The whole six-board game with 4 men a side, each group's equations checked as it is solved
    (shared by the session: test_whole_game.py compares the engine with it)."""
    return reference_whole(SIX4)


# ---- positions and tiers ------------------------------------------------------------------------


def test_enumerate_tier_matches_combinations():
    def plain(n, a, b):
        out = []
        for mv in sorted(sum(1 << i for i in c) for c in combinations(range(n), a)):
            free = [i for i in range(n) if not (mv >> i) & 1]
            out += [(mv, op) for op in sorted(sum(1 << i for i in c) for c in combinations(free, b))]
        return out

    cases = [(9, 0, 0), (9, 0, 1), (9, 2, 3), (9, 4, 5), (16, 4, 3), (16, 7, 8), (16, 8, 8), (24, 2, 1), (24, 3, 2)]
    for n, a, b in cases:
        mover, opp = enumerate_tier(n, a, b)
        assert mover.dtype == np.int64 and opp.dtype == np.int64
        assert list(zip(mover.tolist(), opp.tolist())) == plain(n, a, b), (n, a, b)
        assert len(mover) == comb(n, a) * comb(n - a, b)
    m, o = enumerate_subspace(24, 12, 12)  # the full boards of Twelve Men's Morris
    assert len(m) == comb(24, 12) and np.all((m | o) == (1 << 24) - 1) and np.all(np.diff(m) > 0)


def test_tier_successors_by_hand():
    # Three Men's Morris: a placement; a mill wins without a removal
    assert tier_successors(THREE, (0, 0, 3, 3)) == {(0, 1, 3, 2)}
    assert tier_successors(THREE, (2, 3, 1, 0)) == {(3, 3, 0, 0)}
    assert tier_successors(THREE, (3, 3, 0, 0)) == {(3, 3, 0, 0)}
    # with removals: (2, 3, 0, 0) would leave the new side to move with 2 men: game over, left out
    assert tier_successors(make_rules("three", ["mill-wins=off"]), (2, 3, 1, 0)) == {(3, 3, 0, 0)}
    # six: the third man placed may close a mill and take one; the second may not
    assert tier_successors(SIX, (1, 1, 5, 5)) == {(1, 2, 5, 4)}
    assert tier_successors(SIX, (2, 2, 4, 4)) == {(2, 3, 4, 3), (1, 3, 4, 3)}
    assert tier_successors(SIX, (4, 3, 0, 0)) == {(3, 4, 0, 0)}  # (2, 4): lost, left out
    # a side with fewer than 3 men on the board and in hand leads nowhere
    assert tier_successors(SIX, (1, 3, 1, 0)) == set()
    # Lasker: placements or moves (two men close no mill by moving)
    lasker = make_rules("six", ["lasker=on"])
    assert tier_successors(lasker, (2, 2, 4, 4)) == {(2, 3, 4, 3), (1, 3, 4, 3), (2, 2, 4, 4)}
    assert tier_successors(lasker, (4, 4, 1, 1)) == {(4, 5, 1, 0), (3, 5, 1, 0), (4, 4, 1, 1), (3, 4, 1, 1)}
    # per-mill: five men after the placement can close two mills at once (a1: a1-c1-e1, a1-a3-a5)
    per_mill = make_rules("six", ["double-mill=per-mill"])
    assert tier_successors(per_mill, (4, 4, 1, 1)) == {(4, 5, 1, 0), (3, 5, 1, 0), (2, 5, 1, 0)}
    # the full board of Twelve Men's Morris: a draw (nothing follows), or a side without moves
    twelve = make_rules("twelve")
    assert tier_successors(twelve, (12, 12, 0, 0)) == set()
    assert tier_successors(make_rules("twelve", ["full-board=blocked"]), (12, 12, 0, 0)) == set()
    passes = make_rules("twelve", ["full-board=blocked", "blocked=passes"])
    assert tier_successors(passes, (12, 12, 0, 0)) == {(12, 12, 0, 0)}  # the pass
    assert tier_successors(twelve, (11, 12, 1, 0)) == {(12, 12, 0, 0), (11, 12, 0, 0)}


def test_whole_closure():
    assert whole_closure(THREE, [(0, 0, 3, 3)]) == [
        (0, 0, 3, 3), (0, 1, 3, 2), (1, 1, 2, 2), (1, 2, 2, 1), (2, 2, 1, 1), (2, 3, 1, 0), (3, 3, 0, 0)
    ]
    # the moving phase: the same subspaces as closure()
    for rules, subs in [(SIX, [(4, 4)]), (SIX, [(5, 3)]), (make_rules("six", ["double-mill=per-mill"]), [(5, 5)])]:
        assert whole_closure(rules, [(a, b, 0, 0) for a, b in subs]) == [(a, b, 0, 0) for a, b in closure(rules, subs)]
    six = whole_closure(SIX, [(0, 0, 6, 6)])
    assert len(six) == 77 and (6, 6, 0, 0) in six and (3, 3, 0, 0) in six
    # without Lasker's rule the hands go in turn: equal, or the side to move one more
    assert all(ha == hb or ha == hb + 1 for _, _, ha, hb in six)


def test_components_come_after_what_they_lead_to():
    for rules in (SIX4, make_rules("six", ["men=4", "lasker=on"]), make_rules("six", ["men=4", "blocked=passes"])):
        tiers = whole_closure(rules, [(0, 0, rules.men, rules.men)])
        groups = tier_components(rules, tiers)
        assert sorted(t for g in groups for t in g) == tiers
        where = {t: i for i, g in enumerate(groups) for t in g}
        for t in tiers:
            assert all(where[u] <= where[t] for u in tier_successors(rules, t))
    groups = tier_components(SIX4, whole_closure(SIX4, [(0, 0, 4, 4)]))
    assert [(3, 4, 0, 0), (4, 3, 0, 0)] in groups and [(4, 4, 0, 0)] in groups
    assert [(4, 4, 0, 0), (4, 4, 1, 1)] not in groups  # a placement never comes back


def test_reachable_tiers():
    assert reachable_tiers(THREE) == whole_closure(THREE, [(0, 0, 3, 3)])
    lasker3 = make_rules("three", ["lasker=on"])
    assert reachable_tiers(lasker3) == whole_closure(lasker3, [(0, 0, 3, 3)])
    six5 = make_rules("six", ["men=5"])
    reach = reachable_tiers(six5)
    tiers = whole_closure(six5, [(0, 0, 5, 5)])
    assert set(reach) <= set(tiers) and (0, 0, 5, 5) in reach and (3, 3, 0, 0) in reach
    # (4, 3, 1, 0): White to move has placed 4 men and lost none, Black has placed all 5 and lost
    # 2. Two removals in White's first four placements need a mill at the third and another at
    # the fourth, but the fourth man closes a mill only with two men outside the first mill (two
    # mills share one point at most): five men. The tier numbers allow it, the board does not.
    assert (4, 3, 1, 0) in tiers and (4, 3, 1, 0) not in reach


# ---- the solution against its definition --------------------------------------------------------


def test_three_whole_check_solution():
    result = solve_whole_reference(THREE, check=True)
    g = build_whole_graph(THREE)
    assert g.subspaces == whole_closure(THREE, [(0, 0, 3, 3)])
    value, plies = whole_values(g, result)
    check_solution(g, value, plies)
    # one graph solved at once gives the same values as the groups one after another
    v2, p2 = solve_graph(g)
    assert np.array_equal(value, v2) and np.array_equal(plies, p2)
    # build_graph with tiers is the same graph
    g2 = build_graph(THREE, [(0, 0, 3, 3)])
    assert np.array_equal(g.succ, g2.succ) and np.array_equal(g.indptr, g2.indptr)
    # this reference's own figures (a regression check, not published ones)
    assert start_value(result, THREE) == ("win", 9)
    assert summary(result) == {
        (0, 0, 3, 3): dict(positions=1, wins=1, draws=0, losses=0, longest_win=9, longest_loss=-1),
        (0, 1, 3, 2): dict(positions=9, wins=4, draws=4, losses=1, longest_win=7, longest_loss=8),
        (1, 1, 2, 2): dict(positions=72, wins=32, draws=36, losses=4, longest_win=9, longest_loss=6),
        (1, 2, 2, 1): dict(positions=252, wins=100, draws=128, losses=24, longest_win=7, longest_loss=8),
        (2, 2, 1, 1): dict(positions=756, wins=472, draws=212, losses=72, longest_win=9, longest_loss=6),
        (2, 3, 1, 0): dict(positions=1260, wins=716, draws=284, losses=260, longest_win=9, longest_loss=8),
        (3, 3, 0, 0): dict(positions=1680, wins=924, draws=312, losses=444, longest_win=9, longest_loss=10),
    }
    assert cached_whole(THREE)[(2, 3, 1, 0)].value.tolist() == result[(2, 3, 1, 0)].value.tolist()


@pytest.mark.parametrize(
    "name,opts",
    [
        ("three", ["lasker=on"]),
        ("three", ["mill-wins=off"]),
        ("three", ["blocked=passes"]),
        ("three", ["men=4"]),
        ("three", ["men=4", "lasker=on", "mill-wins=off"]),
        ("six", ["men=3"]),
        pytest.param("six", ["men=3", "lasker=on", "flying=at-3"], marks=pytest.mark.slow),  # 6 s; Lasker's rule: three above
        ("six", ["men=3", "double-mill=per-mill", "removal=optional", "removal-from-mills=forfeit"]),
    ],
)
def test_whole_variants_check_solution(name, opts):
    rules = make_rules(name, opts)
    result = solve_whole_reference(rules, check=True)
    g = build_whole_graph(rules)
    value, plies = whole_values(g, result)
    check_solution(g, value, plies)
    v2, p2 = solve_graph(g)
    assert np.array_equal(value, v2) and np.array_equal(plies, p2)


def test_check_solution_catches_whole_errors():
    rules = make_rules("six", ["men=8", "mill-wins=on"])
    g = build_whole_graph(rules, [(7, 8, 1, 0)])
    value, plies = solve_graph(g)
    check_solution(g, value, plies)
    assert g.terminal_draws().any()
    rng = np.random.default_rng(0)
    for kind in ("terminal draw", "win", "draw"):
        if kind == "terminal draw":
            pick = g.terminal_draws()
        else:
            pick = (value == {"win": WIN, "draw": DRAW}[kind]) & ~g.terminal_draws() & ~g.lost
        i = int(rng.choice(np.nonzero(pick)[0]))
        bad_value, bad_plies = value.copy(), plies.copy()
        if kind == "win":
            bad_plies[i] += 2
        else:
            bad_value[i], bad_plies[i] = LOSS, 1
        with pytest.raises(AssertionError):
            check_solution(g, bad_value, bad_plies)


def test_six_men4_whole(six4_whole, reference_moving):
    result = six4_whole
    assert sorted(result) == whole_closure(SIX4, [(0, 0, 4, 4)])
    assert sum(len(s.value) for s in result.values()) == 2_897_557
    # the moving phase of the whole solve is the moving-phase solver's, position by position (the
    # six rules' moving phase up to 4 men, shared by the session: the moving phase reads no
    # ``rules.men``, so it is the one of 4 men a side)
    assert SIX4 == replace(SIX, men=4)
    moving = reference_moving(SIX, 4).result
    for (a, b), s in moving.items():
        w = result[(a, b, 0, 0)]
        for x, y in zip(s, w):
            assert np.array_equal(x, y), (a, b)
    # this reference's own figure
    assert start_value(result, SIX4) == ("draw", None)


@pytest.mark.slow
def test_six_men4_one_graph(six4_whole):
    """The whole six-board game with 4 men as one graph: the equations, and the values of a
    solve in one go against the groups'. (The default run checks one graph against the groups on
    the smaller games, ``test_three_whole_check_solution`` and ``test_whole_variants_check_solution``
    (the six board with 3 men among them), and the equations of this game group by group, as
    ``six4_whole`` is solved.)"""
    g = build_whole_graph(SIX4, workers=2)
    value, plies = whole_values(g, six4_whole)
    check_solution(g, value, plies)
    v2, p2 = solve_graph(g)
    assert np.array_equal(value, v2) and np.array_equal(plies, p2)


def test_given_tiers_stand_in_for_their_solve():
    """``solve_whole_reference(given=...)``: with the tiers of 5 or more men on the board taken
    from the whole solve, the tiers before them come out as the whole solve has them; the closure
    stops at the given tiers, which the result leaves out."""
    rules = make_rules("three", ["lasker=on"])
    whole = cached_whole(rules)
    given = {t: s for t, s in whole.items() if t[0] + t[1] >= 5}
    part = solve_whole_reference(rules, given=given)
    assert (0, 0, 3, 3) in part and not set(part) & set(given)
    assert len(part) >= 8 and set(part) <= set(whole)
    for t, s in part.items():
        for x, y in zip(s, whole[t]):
            assert np.array_equal(x, y), t
    # and they are read: other values for them give other values before them
    flipped = {t: s._replace(value=-s.value) for t, s in given.items()}
    assert any(not np.array_equal(s.value, part[t].value) for t, s in solve_whole_reference(rules, given=flipped).items())


def test_three_moving_tier_equals_moving_solver():
    whole = cached_whole(THREE)[(3, 3, 0, 0)]
    moving = cached_solve(THREE, subspaces=((3, 3),))[(3, 3)]
    for x, y in zip(whole, moving):
        assert np.array_equal(x, y)


# ---- an independent depth-limited search over whole-game positions -----------------------------


def search(gen: MoveGen, mover: int, opp: int, hm: int, ho: int, depth: int):
    """(value, plies) when the game is decided within ``depth`` plies under perfect play, else None.
    Straight from the rules: men in hand, placements, the new side to move's men."""
    moves = gen.moves(mover, opp, hm)
    status = gen.status(mover, opp, hm, moves)
    if status == "loss":
        return ("loss", 0)
    if status == "draw":
        return ("draw", None)
    if depth == 0:
        return None
    shortest_loss, longest_win, unknown, draw = None, -1, False, False
    for m, o in moves:
        placed = m.bit_count() - mover.bit_count()
        if o.bit_count() + ho < 3:
            r = ("loss", 0)
        else:
            r = search(gen, o, m, ho, hm - placed, depth - 1)
        if r is None:
            unknown = True
        elif r[0] == "loss":
            shortest_loss = r[1] if shortest_loss is None else min(shortest_loss, r[1])
        elif r[0] == "draw":
            draw = True
        else:
            longest_win = max(longest_win, r[1])
    if shortest_loss is not None:
        return ("win", shortest_loss + 1)
    if unknown:
        return None
    if draw:
        return ("draw", None)
    return ("loss", longest_win + 1)


@pytest.mark.parametrize("name,opts", [("three", []), ("three", ["lasker=on"]), ("three", ["mill-wins=off", "men=4"])])
def test_depth_limited_search_agrees(name, opts):
    rules = make_rules(name, opts)
    result = solve_whole_reference(rules)
    gen = MoveGen(rules)
    rng = np.random.default_rng(3)
    depth = 4
    checked = 0
    for (a, b, ha, hb), s in sorted(result.items()):
        picks = set(rng.choice(len(s.value), size=min(20, len(s.value)), replace=False).tolist())
        for code in (WIN, LOSS):
            idx = np.nonzero((s.value == code) & (s.plies <= depth))[0]
            picks |= set(rng.choice(idx, size=min(10, len(idx)), replace=False).tolist())
        for i in sorted(picks):
            m, o = int(s.mover[i]), int(s.opp[i])
            v, p = int(s.value[i]), int(s.plies[i])
            r = search(gen, m, o, ha, hb, depth)
            if v != DRAW and p <= depth:
                assert r == ({WIN: "win", LOSS: "loss"}[v], p), ((a, b, ha, hb), m, o)
            else:
                assert r is None, ((a, b, ha, hb), m, o, v, p)
            checked += 1
    assert checked > 100


# ---- positions argued by hand -------------------------------------------------------------------


def test_three_placing_by_hand():
    result = cached_whole(THREE)
    b = THREE.board_data
    # White a1, b2, one man in hand each: c3 closes the diagonal a1-b2-c3 and wins at once
    w, bl = masks(b, "a1 b2", "a3 b3")
    assert lookup_whole(result, w, bl, 1, 1) == ("win", 1)
    # Black to place its last man: Black a1, a2; White a3, b1, b2 (all placed). White threatens
    # two mills: b1-c1 closes a3-b2-c1 and a3-b3 closes b1-b2-b3. Black's own only pair, a1-a2,
    # is blocked by a3, so no placement closes a mill; one placement blocks one threat (c1 or
    # b3), and White closes the other: Black loses in 2.
    w, bl = masks(b, "a3 b1 b2", "a1 a2")
    assert lookup_whole(result, bl, w, 1, 0) == ("loss", 2)
    gen = MoveGen(THREE)
    for m, o in gen.moves(bl, w, 1):
        assert lookup_whole(result, o, m, 0, 0) == ("win", 1)
    # the start: White wins in 9 plies (this reference's own figure)
    assert start_value(result, THREE) == ("win", 9)
    # fewer than 3 men on the board and in hand: lost, whatever the table holds
    assert lookup_whole(result, *masks(b, "a1", "a3 b3"), 1, 1) == ("loss", 0)
    # a side to move facing a mill has lost, with a man still in hand
    w, bl = masks(b, "a1 b1 c1", "a3 b3")
    assert lookup_whole(result, bl, w, 1, 0) == ("loss", 0)
    with pytest.raises(ValueError):
        lookup_whole(result, *masks(b, "a1 b1", "a1 b3"), 1, 1)


def test_lasker_only_a_move_wins():
    """Three Men's Morris under Lasker's rule: Black a1, a2 with a man in hand, White a3, b1, b3
    (all placed), Black to move. White threatens a3-b2 (closing b1-b2-b3). Black's move a1-b2
    blocks it and threatens to place c2 (closing a2-b2-c2, with the man kept in hand); no White
    man stands next to c2 (its neighbours c1, c3, b2), and White closes no mill of its own (a3-b3-c3
    needs c3, whose free neighbours hold no White man but b3, part of it; a1-b1-c1 needs two men):
    Black wins in 3. Placing on c1, c2 or c3 leaves b2 to White's a3-b2: a loss in 2; placing on b2
    leaves Black without a threat (c2 and c3 complete its lines, but no Black man outside them
    stands next to either) and does not win."""
    rules = make_rules("three", ["lasker=on"])
    result = solve_whole_reference(rules, tiers=[(2, 3, 1, 0)], check=True)
    b = rules.board_data
    w, bl = masks(b, "a3 b1 b3", "a1 a2")
    assert lookup_whole(result, bl, w, 1, 0) == ("win", 3)
    after_move = masks(b, "a2 b2", "")[0]
    assert lookup_whole(result, w, after_move, 0, 1) == ("loss", 2)
    for p in ("c1", "c2", "c3"):
        placed = bl | masks(b, p, "")[0]
        assert lookup_whole(result, w, placed, 0, 0) == ("win", 1), p
    placed = bl | masks(b, "b2", "")[0]
    assert lookup_whole(result, w, placed, 0, 0)[0] != "loss"
    # the moves: placements on b2, c1, c2, c3 and the slides a1-b2, a2-b2 (a1's other neighbours
    # a2 and b1, a2's a1 and a3, are taken); only a1-b2 wins in 3
    gen = MoveGen(rules)
    moves = gen.moves(bl, w, 1)
    assert len(moves) == 6
    winning = [(m, o) for m, o in moves if lookup_whole(result, o, m, 0, 1 - (m.bit_count() - 2)) == ("loss", 2)]
    assert winning == [(after_move, w)]


def test_twelve_full_board_draw():
    """The full boards of Twelve Men's Morris are drawn at once (full-board=draw), whatever the
    mills on them; a last placement that fills the board without a mill is a draw."""
    twelve = make_rules("twelve")
    result = solve_whole_reference(twelve, tiers=[(12, 12, 0, 0)])
    assert list(result) == [(12, 12, 0, 0)]
    s = summary(result)[(12, 12, 0, 0)]
    assert s == dict(positions=comb(24, 12), wins=0, draws=comb(24, 12), losses=0, longest_win=-1, longest_loss=-1)
    b = twelve.board_data
    white = sum(1 << i for i in range(0, 24, 2))  # a1, a7, b4, ... alternating in point order
    black = ((1 << 24) - 1) & ~white
    assert lookup_whole(result, white, black, 0, 0) == ("draw", None)
    # Black places its last man on g7 (it closes no Black mill: each line through g7 holds a White
    # man): the one move, into the full board, a draw
    gen = MoveGen(twelve)
    g7 = 1 << b.index["g7"]
    moves = gen.moves(black & ~g7, white, 1)
    assert moves == [(black, white)]
    assert lookup_whole(result, white, black, 0, 0) == ("draw", None)


def test_full_board_with_mills_on_the_six_board():
    """Six board, 8 men a side (16 points: the board fills up), mill-wins on (no removals, so the
    tiers stay small): White to move, one man in hand each, e1 and e5 empty."""
    rules = make_rules("six", ["men=8", "mill-wins=on"])
    result = solve_whole_reference(rules, tiers=[(7, 7, 1, 1)], check=True)
    assert sorted(result) == [(7, 7, 1, 1), (7, 8, 1, 0), (8, 8, 0, 0)]
    b = rules.board_data
    # no pair of one colour on a line through e1 (a1-c1-e1, e1-e3-e5) or e5 (a5-c5-e5): whoever
    # places where, the board fills without a mill: a draw
    w, bl = masks(b, "a1 a3 c5 b2 d2 d4 c4", "c1 a5 c2 d3 b4 b3 e3")
    assert lookup_whole(result, w, bl, 1, 1) == ("draw", None)
    # White a1, c1: e1 closes a1-c1-e1 and wins at once
    w, bl = masks(b, "a1 a3 c1 c5 b2 d2 d4", "a5 c2 d3 b4 b3 e3 c4")
    assert lookup_whole(result, w, bl, 1, 1) == ("win", 1)
    # Black a1, c1 and a5, c5: White fills one corner (no mill: e3 is Black's), Black the other
    # and closes a mill there; the full board then is a loss, not a draw (the mill comes first)
    w, bl = masks(b, "a3 b3 b4 c2 c4 d2 d3", "a1 c1 a5 c5 e3 b2 d4")
    assert lookup_whole(result, w, bl, 1, 1) == ("loss", 2)
    full = result[(8, 8, 0, 0)]
    gen = MoveGen(rules)
    mills = np.array([gen.has_mill(o) for o in full.opp.tolist()])
    assert np.all((full.value == LOSS) == mills) and np.all(full.plies[mills] == 0)
    assert np.all(full.value[~mills] == DRAW)


def test_lookup_whole_missing_tier():
    result = cached_whole(THREE)
    with pytest.raises(KeyError):
        lookup_whole(result, 0b111, 0b111000, 0, 1)  # (3, 3, 0, 1) is no tier of the game


def test_command_line_whole():
    out = subprocess.run(
        [sys.executable, str(REFERENCE), "three", "--whole"], capture_output=True, text=True, check=True
    ).stdout
    assert "start: ('win', 9)" in out
    assert "(3, 3, 0, 0) 1680 924 312 444 9 10" in out
    out = subprocess.run(
        [sys.executable, str(REFERENCE), "three", "--whole", "-o", "lasker=on", "--tier", "2,3,1,0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "(2, 3, 1, 0)" in out and "start:" not in out
