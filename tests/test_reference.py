"""Tests of the reference solver (tests/reference.py) itself: hand-checked positions, known
figures, the defining equations on every position, and an independent depth-limited search."""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest
from reference import (
    DRAW,
    LOSS,
    WIN,
    MoveGen,
    bits,
    build_graph,
    cached_solve,
    check_solution,
    closure,
    enumerate_subspace,
    lookup,
    masks,
    solve_graph,
    split,
    summary,
)

from solver.rules import make_rules

SIX = make_rules("six")
THREE = make_rules("three")


@pytest.fixture(scope="module")
def six4(reference_moving):
    """The six board, every subspace up to 4 men: (graph, value, plies), shared by the session
    (``conftest.reference_moving``; the engine is compared with it in test_engine_vs_reference.py).
    Read-only."""
    g, value, plies, _ = reference_moving(SIX, 4)
    return g, value, plies


def result_of(g, value, plies):
    return split(g, value, plies)


def names(board, mask):
    return " ".join(board.points[i] for i in bits(mask))


# ---- positions and subspaces ---------------------------------------------------------------------


def test_enumeration_counts():
    for n, a, b in [(9, 3, 3), (16, 3, 4), (16, 4, 4), (12, 4, 3)]:
        mover, opp = enumerate_subspace(n, a, b)
        assert len(mover) == comb(n, a) * comb(n - a, b)
        assert np.all(mover & opp == 0)
        assert all(int(m).bit_count() == a for m in mover[:1000])
        assert all(int(o).bit_count() == b for o in opp[:1000])
        keys = (mover << 32) | opp
        assert np.all(np.diff(keys) > 0)  # sorted and distinct
    assert comb(24, 3) * comb(21, 3) == 2_691_920


def test_closure():
    assert closure(SIX, [(3, 3)]) == [(3, 3)]
    assert closure(SIX, [(4, 3)]) == [(3, 3), (3, 4), (4, 3)]
    assert closure(SIX, [(4, 4)]) == [(3, 3), (3, 4), (4, 3), (4, 4)]
    per_mill = make_rules("six", ["double-mill=per-mill"])
    assert closure(per_mill, [(5, 5)]) == sorted({(5, 5), (4, 5), (3, 5), (5, 4), (4, 4), (3, 4), (5, 3), (4, 3), (3, 3)})


# ---- move generation by hand -----------------------------------------------------------------------


def test_slides_and_flying():
    std = make_rules("standard")
    b = std.board_data
    mover, opp = masks(b, "a1 d1 g4", "b4 d6 f4")
    # flying: 3 men x 18 empty points; g4-g1 closes a1-d1-g1 and takes any of the 3 men
    assert len(MoveGen(std).moves(mover, opp)) == 3 * 18 - 1 + 3
    # sliding: a1-a4; d1-d2, d1-g1; g4-g7, g4-g1 (with 3 removals); f4 is taken
    assert len(MoveGen(make_rules("standard", ["flying=never"])).moves(mover, opp)) == 1 + 2 + 1 + 3


def test_mill_removals_standard():
    std = make_rules("standard", ["flying=never"])
    b = std.board_data
    # g4-g1 closes a1-d1-g1; the opponent's a7 d7 g7 is a mill, b4 is not: only b4 may go
    mover, opp = masks(b, "a1 d1 g4", "a7 d7 g7 b4")
    gen = MoveGen(std)
    after = masks(b, "a1 d1 g1", "")[0]
    results = [o for m, o in gen.moves(mover, opp) if m == after]
    assert [names(b, o) for o in results] == ["a7 d7 g7"]
    # every opponent man in a mill: any man (standard), none (viking: forfeited)
    mover, opp = masks(b, "a1 d1 g4", "a7 d7 g7")
    results = sorted(names(b, o) for m, o in gen.moves(mover, opp) if m == after)
    assert results == ["a7 d7", "a7 g7", "d7 g7"]
    viking = MoveGen(make_rules("viking"))
    assert [names(b, o) for m, o in viking.moves(mover, opp) if m == after] == ["a7 d7 g7"]
    # optional removal adds the move without a removal
    optional = MoveGen(make_rules("standard", ["flying=never", "removal=optional"]))
    results = sorted(names(b, o) for m, o in optional.moves(mover, opp) if m == after)
    assert results == ["a7 d7", "a7 d7 g7", "a7 g7", "d7 g7"]


def test_double_mill_per_mill():
    # Two mills by one slide need a point whose neighbours are not all in its mills: the diagonal
    # board's b2 (neighbours a1 b4 c3 d2; mills b2-d2-f2, b2-b4-b6, a1-b2-c3).
    diag = make_rules("twelve", ["flying=never", "double-mill=per-mill"])
    bd = diag.board_data
    # b2 on the diagonal board: mills b2-d2-f2, b2-b4-b6, a1-b2-c3; neighbours a1 b4 c3 d2.
    # Men d2 f2 b4 b6, and c3-b2 closes two mills (c3 leaves, so a1-b2-c3 is not closed).
    mover, opp = masks(bd, "d2 f2 b4 b6 c3", "a7 d7 g7 g1 a4")
    gen = MoveGen(diag)
    after = masks(bd, "d2 f2 b4 b6 b2", "")[0]
    results = sorted(names(bd, o) for m, o in gen.moves(mover, opp) if m == after)
    # opponent: a7 d7 g7 is a mill, g1 and a4 are not -> first removal g1 or a4, then the other
    # (a7 d7 g7 is still a mill and not every man is in one); both orders give the same result
    assert results == ["a7 d7 g7"]
    one = MoveGen(make_rules("twelve", ["flying=never"]))
    results = sorted(names(bd, o) for m, o in one.moves(mover, opp) if m == after)
    assert results == ["a4 a7 d7 g7", "a7 d7 g1 g7"]
    # after the first removal every remaining man may stand in a mill: then any man goes
    mover, opp = masks(bd, "d2 f2 b4 b6 c3", "a7 d7 g7 g1")
    results = sorted(names(bd, o) for m, o in gen.moves(mover, opp) if m == after)
    assert results == ["a7 d7", "a7 g7", "d7 g7"]


def test_pass_when_blocked():
    b = SIX.board_data
    mover, opp = masks(b, "a1 a5 e5", "a3 c1 c5 e3")  # every neighbour taken
    assert MoveGen(SIX).moves(mover, opp) == []
    assert MoveGen(SIX).is_lost(mover, opp)
    passes = MoveGen(make_rules("six", ["blocked=passes"]))
    assert passes.moves(mover, opp) == [(mover, opp)]
    assert not passes.is_lost(mover, opp)
    assert not MoveGen(make_rules("six", ["flying=at-3"])).is_lost(mover, opp)


def test_mill_wins_three_board():
    b = THREE.board_data
    gen = MoveGen(THREE)
    mover, opp = masks(b, "a2 b3 c2", "a1 b1 c1")  # the opponent has a mill: lost
    assert gen.is_lost(mover, opp)
    mover, opp = masks(b, "a1 b1 c2", "a2 b2 c3")
    assert not gen.is_lost(mover, opp)
    # c2-c1 closes a1-b1-c1: no removal, the opponent now faces a mill
    after = masks(b, "a1 b1 c1", "")[0]
    assert [(m, o) for m, o in gen.moves(mover, opp) if m == after] == [(after, opp)]
    assert gen.is_lost(opp, after)


def test_agrees_with_solver_game_moves():
    """The reference's moves against the project's move generator (solver.game) on random
    positions under every moving-phase option: the same positions after the moves."""
    from solver.rules import game
    from solver.rules.notation import Position

    rng = random.Random(7)
    options = [
        [],
        ["flying=never"],
        ["removal-from-mills=forfeit"],
        ["double-mill=per-mill"],
        ["removal=optional"],
        ["blocked=passes", "flying=never"],
        ["double-mill=per-mill", "removal=optional", "removal-from-mills=forfeit"],
    ]
    for name in ("standard", "six", "three", "twelve"):
        for opts in options:
            rules = make_rules(name, opts)
            gen = MoveGen(rules)
            n = rules.board_data.n
            for _ in range(150):
                a = rng.randint(3, min(rules.men, 7))
                b = rng.randint(3, min(rules.men, 7))
                if a + b >= n:
                    continue
                pts = rng.sample(range(n), a + b)
                mover = sum(1 << p for p in pts[:a])
                opp = sum(1 << p for p in pts[a:])
                pos = Position.from_mover("w", mover, opp)
                moves = gen.moves(mover, opp)
                assert gen.is_lost(mover, opp, moves) == (game.result(pos, rules) == "loss")
                if gen.is_lost(mover, opp, moves):
                    continue
                theirs = set()
                for mv in game.legal_moves(pos, rules):
                    after = game.play(pos, mv, rules, check=False)
                    theirs.add((after.opponent, after.mover))  # back to the mover's side
                assert set(moves) == theirs, (rules.describe(), mover, opp)


def test_agrees_with_solver_game_moves_per_mill_diagonal():
    """One removal per mill on the diagonal board, where a slide can close two mills and a
    placement three: the reference's own count of mills and removals against the move generator
    (solver.rules.game), move list against move list (each set of removed men once), on random
    positions biased towards several mills: the mover holds most of the other points of the three
    mills through a random point, has men in hand or not, and the opponent often has a mill (so
    the removable men change between removals). Moves with three and with two removals must have
    been compared."""
    from collections import Counter

    from solver.rules import game
    from solver.rules.notation import Position

    rng = random.Random(11)
    board = make_rules("twelve").board_data
    n = board.n
    mills = [sum(1 << board.index[p] for p in m) for m in board.mills]
    triple_points = [i for i in range(n) if sum(1 for m in mills if m >> i & 1) == 3]
    assert len(triple_points) == 12
    seen = Counter()
    option_sets = [
        [],
        ["removal=optional"],
        ["removal-from-mills=forfeit"],
        ["removal=optional", "removal-from-mills=forfeit"],
        ["flying=never"],
        ["lasker=on"],
    ]
    for opts in option_sets:
        rules = make_rules("twelve", ["double-mill=per-mill", *opts])
        gen = MoveGen(rules)
        for _ in range(120):
            p = rng.choice(triple_points)
            others = bits(np.bitwise_or.reduce([m for m in mills if m >> p & 1]).item() & ~(1 << p))
            mover_pts = set(rng.sample(others, rng.randint(4, 6)))
            if rng.random() < 0.5:  # a man next to p, to slide in
                mover_pts.add(rng.choice(bits(int(board.adjacency_masks[p]))))
            mover_pts.discard(p)
            free = [i for i in range(n) if i not in mover_pts and i != p]
            opp_pts: set[int] = set()
            if rng.random() < 0.6:  # an opponent mill on free points
                own = [m for m in mills if all(i in free for i in bits(m))]
                if own:
                    opp_pts |= set(bits(rng.choice(own)))
            free = [i for i in free if i not in opp_pts]
            opp_pts |= set(rng.sample(free, rng.randint(max(0, 3 - len(opp_pts)), 5)))
            free = [i for i in free if i not in opp_pts]
            mover_pts |= set(rng.sample(free, rng.randint(0, min(3, 11 - len(mover_pts)))))
            mover = sum(1 << i for i in mover_pts)
            opp = sum(1 << i for i in opp_pts)
            hand = rng.choice([0, rng.randint(1, 12 - len(mover_pts))])
            pos = Position.from_mover("w", mover, opp, hand, hand)
            res = game.result(pos, rules)
            if res == "draw":
                continue
            moves = gen.moves(mover, opp, hand)
            assert gen.is_lost(mover, opp, moves, hand) == (res == "loss")
            if res == "loss":
                continue
            ours = game.legal_moves(pos, rules)
            theirs = [(after.opponent, after.mover) for after in (game.play(pos, mv, rules, check=False) for mv in ours)]
            assert len(set(theirs)) == len(theirs), "a set of removed men is listed twice"
            assert sorted(moves) == sorted(theirs), (rules.describe(), mover, opp, hand)
            for mv in ours:
                seen[len(mv.removals)] += 1
            for _, o in moves:
                seen[f"ref {opp.bit_count() - o.bit_count()}"] += 1
    assert seen[3] == seen["ref 3"] and seen[2] == seen["ref 2"]
    assert seen[3] >= 100 and seen[2] >= 100, seen


# ---- hand-checked values -------------------------------------------------------------------------


def test_hand_checked_six(six4):
    res = result_of(*six4)
    b = SIX.board_data
    # e3-e1 closes a1-c1-e1 and takes the opponent's third man: win in 1
    assert lookup(res, *masks(b, "a1 c1 e3", "b3 c4 d4")) == ("win", 1)
    # no neighbour free, no flying: lost in 0
    assert lookup(res, *masks(b, "a1 a5 e5", "a3 c1 c5 e3")) == ("loss", 0)
    # d3-e3 blocks every man of the opponent: win in 1
    assert lookup(res, *masks(b, "a3 c1 c5 d3", "a1 a5 e5")) == ("win", 1)
    # a1 a3 a5 can only play a1-c1 or a5-c5, no mill; either way c2-b2 closes b2-b3-b4: loss in 2
    assert lookup(res, *masks(b, "a1 a3 a5", "b3 b4 c2")) == ("loss", 2)
    # a side with 2 men has lost
    assert lookup(res, *masks(b, "a1 a3", "b3 b4 c2")) == ("loss", 0)
    with pytest.raises(ValueError):
        lookup(res, *masks(b, "a1 a3 a5", "a1 b4 c2"))


def test_hand_checked_three():
    res = cached_solve(THREE, subspaces=((3, 3),))
    b = THREE.board_data
    assert lookup(res, *masks(b, "a2 b3 c2", "a1 b1 c1")) == ("loss", 0)  # opponent's mill
    assert lookup(res, *masks(b, "a1 b1 c2", "a2 b2 c3")) == ("win", 1)  # c2-c1
    assert summary(res)[(3, 3)]["positions"] == comb(9, 3) * comb(6, 3)


# ---- the solution against its definition ---------------------------------------------------------


def test_consistency_six(six4):
    g, value, plies = six4
    check_solution(g, value, plies)


@pytest.mark.parametrize(
    "name,opts,subspaces",
    [
        ("three", [], [(3, 3)]),
        ("three", ["mill-wins=off"], [(3, 3)]),
        ("three", ["blocked=passes"], [(3, 3)]),
        ("six", ["flying=at-3"], [(3, 3)]),
        ("six", ["blocked=passes"], [(3, 3)]),
        ("six", ["removal-from-mills=forfeit"], [(3, 3)]),
        ("six", ["removal=optional"], [(3, 3)]),
        ("six", ["double-mill=per-mill", "removal=optional"], [(3, 3)]),
    ],
)
def test_consistency_variants(name, opts, subspaces):
    g = build_graph(make_rules(name, opts), subspaces)
    value, plies = solve_graph(g)
    check_solution(g, value, plies)


def test_check_solution_catches_errors(six4):
    g, value, plies = six4
    rng = np.random.default_rng(0)
    for kind in ("win", "loss", "draw"):
        code = {"win": WIN, "loss": LOSS, "draw": DRAW}[kind]
        i = int(rng.choice(np.nonzero((value == code) & ~g.lost)[0]))
        bad_plies = plies.copy()
        bad_value = value.copy()
        if kind == "draw":
            bad_value[i], bad_plies[i] = LOSS, 50
        else:
            bad_plies[i] += 2
        with pytest.raises(AssertionError):
            check_solution(g, bad_value, bad_plies)


# ---- an independent depth-limited search ------------------------------------------------------------


def search(gen: MoveGen, mover: int, opp: int, depth: int):
    """(value, plies) when the game ends within ``depth`` plies under perfect play, else None."""
    moves = gen.moves(mover, opp)
    if gen.is_lost(mover, opp, moves):
        return ("loss", 0)
    if depth == 0:
        return None
    shortest_loss, longest_win, unknown = None, -1, False
    for m, o in moves:
        r = search(gen, o, m, depth - 1)
        if r is None:
            unknown = True
        elif r[0] == "loss":
            shortest_loss = r[1] if shortest_loss is None else min(shortest_loss, r[1])
        else:
            longest_win = max(longest_win, r[1])
    if shortest_loss is not None:
        return ("win", shortest_loss + 1)
    if unknown:
        return None
    return ("loss", longest_win + 1)


@pytest.mark.parametrize("rules_name,opts,subspaces,depth", [("six", [], None, 4), ("three", [], [(3, 3)], 4)])
def test_depth_limited_search_agrees(six4, rules_name, opts, subspaces, depth):
    rules = make_rules(rules_name, opts)
    if rules_name == "six":
        g, value, plies = six4
    else:
        g = build_graph(rules, subspaces)
        value, plies = solve_graph(g)
    gen = MoveGen(rules)
    rng = np.random.default_rng(1)
    picks = []
    for p in range(depth + 1):  # some positions decided at each small depth
        for code in (WIN, LOSS):
            idx = np.nonzero((value == code) & (plies == p))[0]
            picks.extend(rng.choice(idx, size=min(15, len(idx)), replace=False).tolist())
    picks.extend(rng.choice(g.size, size=30, replace=False).tolist())
    for i in picks:
        mover, opp = int(g.mover[i]), int(g.opp[i])
        r = search(gen, mover, opp, depth)
        v, p = int(value[i]), int(plies[i])
        if v != DRAW and p <= depth:
            assert r == ({WIN: "win", LOSS: "loss"}[v], p), (mover, opp)
        else:
            assert r is None, (mover, opp, v, p)


# ---- figures ----------------------------------------------------------------------------------------


def test_six_figures(six4):
    """Positions per subspace by counting; the rest are this reference's own figures (kept as a
    regression check, not published ones)."""
    s = summary(result_of(*six4))
    assert s == {
        (3, 3): dict(positions=160_160, wins=70_696, draws=58_952, losses=30_512, longest_win=15, longest_loss=14),
        (3, 4): dict(positions=400_400, wins=65_368, draws=0, losses=335_032, longest_win=13, longest_loss=26),
        (4, 3): dict(positions=400_400, wins=379_328, draws=0, losses=21_072, longest_win=25, longest_loss=12),
        (4, 4): dict(positions=900_900, wins=526_380, draws=127_556, losses=246_964, longest_win=37, longest_loss=38),
    }
    assert comb(16, 3) * comb(13, 3) == 160_160 and comb(16, 4) * comb(12, 4) == 900_900


def test_three_figures():
    s = summary(cached_solve(THREE, subspaces=((3, 3),)))
    assert s == {(3, 3): dict(positions=1680, wins=924, draws=312, losses=444, longest_win=9, longest_loss=10)}


@pytest.mark.slow
def test_standard_3_3():
    """Gasser (1996): the 3-3 endgame has 2,691,920 positions (without symmetry reduction), and
    its longest loss is 26 plies. (About 3 minutes on 2 free cores, 3.5 GB.)"""
    rules = make_rules("standard")
    g = build_graph(rules, [(3, 3)], workers=2)
    assert g.subspaces == [(3, 3)]
    value, plies = solve_graph(g)
    res = result_of(g, value, plies)
    s = summary(res)[(3, 3)]
    assert s["positions"] == 2_691_920
    assert s["longest_loss"] == 26
    # this reference's own figures
    assert s == dict(positions=2_691_920, wins=2_232_160, draws=4_112, losses=455_648, longest_win=25, longest_loss=26)
    b = rules.board_data
    assert lookup(res, *masks(b, "a1 d1 g4", "b4 d6 f4")) == ("win", 1)  # g4-g1 (or a flight) x
    assert lookup(res, *masks(b, "a1 a4 a7", "b4 d1 d7"))[1] != 0  # flying: not blocked
    check_solution(g, value, plies)


@pytest.mark.slow
def test_no_flying_3_3():
    """Standard board without flying, 3-3 (about a minute)."""
    rules = make_rules("no-flying")
    g = build_graph(rules, [(3, 3)])
    value, plies = solve_graph(g)
    res = result_of(g, value, plies)
    b = rules.board_data
    assert lookup(res, *masks(b, "a1 d1 g4", "b4 d6 f4")) == ("win", 1)  # g4-g1 closes a1-d1-g1
    assert lookup(res, *masks(b, "a1 a4 a7", "b4 d1 d7")) == ("loss", 0)  # blocked
    # this reference's own figures
    assert summary(res)[(3, 3)] == dict(
        positions=2_691_920, wins=1_442_092, draws=614_124, losses=635_704, longest_win=39, longest_loss=38
    )
    check_solution(g, value, plies)
