"""The boards as data: point and mill counts, and the symmetries of each board (docs/rules.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.rules.boards import BOARDS, DIAGONAL, SIX, STANDARD, THREE

# board -> (points, mills, symmetries)
EXPECTED = {
    "standard": (24, 16, 16),
    "diagonal": (24, 20, 16),
    "six": (16, 8, 16),
    "three": (9, 8, 8),
}
ALL = sorted(BOARDS)


def test_every_board_is_checked():
    assert set(BOARDS) == set(EXPECTED)


@pytest.mark.parametrize("name", ALL)
def test_counts(name):
    board = BOARDS[name]
    points, mills, syms = EXPECTED[name]
    assert board.n == len(set(board.points)) == points
    assert len(board.mills) == len({frozenset(m) for m in board.mills}) == mills
    assert len(board.symmetries) == len(set(board.symmetries)) == syms
    assert all(len(m) == 3 for m in board.mills)
    assert board.mill_masks.shape == (mills,)


@pytest.mark.parametrize("name", ALL)
def test_points_are_in_board_string_order(name):
    board = BOARDS[name]
    key = [(p[0], int(p[1:])) for p in board.points]
    assert key == sorted(key)
    assert board.index == {p: i for i, p in enumerate(board.points)}


def test_standard_board_is_the_one_of_rules_md():
    order = "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7".split()
    assert list(STANDARD.points) == order
    mills = """a7 d7 g7, b6 d6 f6, c5 d5 e5, a4 b4 c4, e4 f4 g4, c3 d3 e3, b2 d2 f2, a1 d1 g1,
               a1 a4 a7, b2 b4 b6, c3 c4 c5, d5 d6 d7, d1 d2 d3, e3 e4 e5, f2 f4 f6, g1 g4 g7"""
    assert {frozenset(m.split()) for m in mills.split(",")} == {frozenset(m) for m in STANDARD.mills}
    # On the standard board every drawn line is a mill, and the adjacencies are the mills' steps.
    nb = STANDARD.neighbours
    assert sum(len(a) for a in nb) == 2 * 32
    assert {STANDARD.points[j] for j in nb[STANDARD.index["d2"]]} == {"b2", "f2", "d1", "d3"}
    assert {STANDARD.points[j] for j in nb[STANDARD.index["a1"]]} == {"a4", "d1"}


def test_diagonal_board_adds_four_lines():
    extra = {frozenset(m) for m in DIAGONAL.mills} - {frozenset(m) for m in STANDARD.mills}
    assert extra == {frozenset(m.split()) for m in ("a1 b2 c3", "a7 b6 c5", "g7 f6 e5", "g1 f2 e3")}
    added = sum(len(a) for a in DIAGONAL.neighbours) - sum(len(a) for a in STANDARD.neighbours)
    assert added == 2 * 8  # 4 lines of 2 steps, each both ways
    assert {DIAGONAL.points[j] for j in DIAGONAL.neighbours[DIAGONAL.index["b2"]]} == {"a1", "c3", "b4", "d2"}


def test_six_and_three_boards():
    assert SIX.points == tuple("a1 a3 a5 b2 b3 b4 c1 c2 c4 c5 d2 d3 d4 e1 e3 e5".split())
    # the midpoints of the sides are joined, but those joins are not mills
    assert SIX.index["b3"] in SIX.neighbours[SIX.index["a3"]]
    assert not any({"a3", "b3"} <= set(m) for m in SIX.mills)
    assert THREE.points == tuple("a1 a2 a3 b1 b2 b3 c1 c2 c3".split())
    assert len(THREE.neighbours[THREE.index["b2"]]) == 8  # the centre touches every point
    assert len(THREE.neighbours[THREE.index["a1"]]) == 3


# ---- symmetries ----------------------------------------------------------------------------


def _edges(board):
    return {frozenset((i, j)) for i, a in enumerate(board.neighbours) for j in a}


def _mills(board):
    return {frozenset(board.index[p] for p in m) for m in board.mills}


def _compose(p, q):
    """p after q: i -> p[q[i]]."""
    return tuple(p[q[i]] for i in range(len(q)))


def _inverse(p):
    inv = [0] * len(p)
    for i, j in enumerate(p):
        inv[j] = i
    return tuple(inv)


@pytest.mark.parametrize("name", ALL)
def test_symmetries_are_automorphisms(name):
    board = BOARDS[name]
    edges, mills = _edges(board), _mills(board)
    for perm in board.symmetries:
        assert sorted(perm) == list(range(board.n))  # a permutation of the points
        assert {frozenset(perm[i] for i in e) for e in edges} == edges
        assert {frozenset(perm[i] for i in m) for m in mills} == mills


@pytest.mark.parametrize("name", ALL)
def test_symmetries_form_a_group(name):
    board = BOARDS[name]
    group = set(board.symmetries)
    assert tuple(range(board.n)) in group
    for p in group:
        assert _inverse(p) in group
        for q in group:
            assert _compose(p, q) in group
    assert board.symmetry_array.shape == (len(group), board.n)


def test_standard_symmetries_include_the_ring_swap():
    # The 16 of docs/rules.md: the 8 of the square times the swap of the inner and outer ring.
    idx = STANDARD.index
    swap = {"a1": "c3", "a4": "c4", "d1": "d3", "b2": "b2", "g7": "e5", "d7": "d5"}
    assert any(all(perm[idx[a]] == idx[b] for a, b in swap.items()) for perm in STANDARD.symmetries)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_symmetry_maps_mask_mills(name, data):
    """For a random set of points and a random symmetry, the image has as many complete mills."""
    board = BOARDS[name]
    perm = data.draw(st.sampled_from(board.symmetries))
    pts = data.draw(st.sets(st.integers(0, board.n - 1)))
    image = {perm[i] for i in pts}
    mills = _mills(board)
    assert sum(m <= pts for m in mills) == sum(m <= image for m in mills)
    adj_pairs = sum(frozenset((i, j)) in _edges(board) for i in pts for j in pts if i < j)
    adj_image = sum(frozenset((i, j)) in _edges(board) for i in image for j in image if i < j)
    assert adj_pairs == adj_image


def test_boards_beyond_the_index_limits_are_refused():
    """A 25-point board (5x5 grid) or one with more than 16 symmetries cannot be indexed (three
    bytes per mask in the image tables, 4 bits for the symmetry id): it is refused where it is
    built, with a clear error, rather than ranked wrongly."""
    from solver.errors import RulesError
    from solver.rules.boards import MAX_POINTS, MAX_SYMMETRIES, Board

    grid = tuple(f"{c}{r}" for c in "abcde" for r in range(1, 6))
    assert len(grid) == MAX_POINTS + 1
    with pytest.raises(RulesError, match="25 points"):
        Board("grid", grid, (), (), (tuple(range(25)),), "")
    small = tuple(f"a{i}" for i in range(1, 9))
    identity = tuple(range(8))
    with pytest.raises(RulesError, match="17 symmetries"):
        Board("many", small, (), (), (identity,) * (MAX_SYMMETRIES + 1), "")
    with pytest.raises(RulesError, match="not a permutation"):
        Board("bad", small, (), (), ((0,) * 8,), "")
    assert Board("ok", small, (), (), (identity,), "").n == 8
