"""``solver/index/``: the symmetry-reduced index of a subspace (a men of the side to move, b of the
other): unrank then rank gives every canonical slot back, canonical slots are as many as the
positions up to symmetry (Burnside's lemma, counted without the index), every symmetric image of a
position ranks to the same slot, the colex table that unranking reads, and slots per position.

(The small boards' round trips with the kernels as plain Python are in ``test_kernels_plain.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

from solver.index import board_index
from solver.index.counting import positions_up_to_symmetry

burnside_positions = positions_up_to_symmetry  # Burnside's lemma: independent of the index


def permute_masks(masks: np.ndarray, perm: np.ndarray, n: int) -> np.ndarray:
    """Each mask with point p moved to ``perm[p]``, by a table per byte of the mask (built here from
    the permutation, not from the index's own image tables)."""
    out = np.zeros_like(masks)
    for lo in range(0, n, 8):
        table = np.zeros(256, dtype=np.int64)
        for byte in range(256):
            for bit in range(8):
                if byte >> bit & 1 and lo + bit < n:
                    table[byte] |= 1 << int(perm[lo + bit])
        out |= table[(masks >> lo) & 0xFF]
    return out


@pytest.mark.parametrize(
    "board_name,a,b",
    [("standard", 3, 3), ("standard", 4, 3), ("diagonal", 3, 4), ("six", 3, 3), ("six", 4, 4), ("six", 5, 4), ("three", 3, 3)],
)
def test_index_round_trip_every_slot(board_name, a, b):
    """unrank then rank gives the slot back for every canonical slot; canonical slots are as many
    as the positions up to symmetry; every image of a position ranks to the same slot."""
    bi = board_index(board_name)
    slots = bi.slots(a, b)
    movers, opps, canonical = bi.unrank_many(a, b, np.arange(slots, dtype=np.int64))
    for s in range(0, slots, max(1, slots // 2000)):  # the plain-Python path on a sample
        assert bi.unrank(a, b, s) == (movers[s], opps[s])
        assert bi.is_canonical(a, b, s) == canonical[s]
    assert (np.bitwise_count(movers) == a).all() and (np.bitwise_count(opps) == b).all()
    assert not (movers & opps).any()
    ranked = bi.rank_many(movers, opps)
    assert np.array_equal(ranked[canonical], np.nonzero(canonical)[0])
    assert canonical.sum() == burnside_positions(bi.board, a, b)
    # each symmetric image of a non-canonical slot's position lands on one canonical slot
    assert canonical[ranked].all()
    for perm in bi.board.symmetry_array.astype(np.int64):
        img_m, img_o = permute_masks(movers, perm, bi.n), permute_masks(opps, perm, bi.n)
        assert np.array_equal(bi.rank_many(img_m, img_o), ranked)


def test_permute_masks_moves_each_point():
    """The helper above, on single points and a mixed mask (so the round trip does not rest on it
    blindly)."""
    n = 24
    rng = np.random.default_rng(5)
    perm = rng.permutation(n)
    singles = np.array([1 << p for p in range(n)], dtype=np.int64)
    assert permute_masks(singles, perm, n).tolist() == [1 << int(perm[p]) for p in range(n)]
    mask = np.array([(1 << 0) | (1 << 9) | (1 << 23)], dtype=np.int64)
    assert int(permute_masks(mask, perm, n)[0]) == (1 << int(perm[0])) | (1 << int(perm[9])) | (1 << int(perm[23]))


def test_colex_table_equals_the_search():
    """Unranking looks the r-th set of k among f free points up in a table built by Gosper's hack
    (``fill_subsets``); the binomial search it replaced (``colex_unrank``, still used where the
    table stops) must give the same set for every tabled (f, k), and the table must stop where
    its docstring says: f <= n - 3, k <= 12."""
    from math import comb

    from solver.index.kernels import colex_unrank

    ix = board_index("standard").tables
    rng = np.random.default_rng(3)
    tabled = 0
    for f in range(ix.subset_offset.shape[0]):
        for k in range(ix.subset_offset.shape[1]):
            off = int(ix.subset_offset[f, k])
            if off < 0:
                assert f > ix.n - 3 or k > min(f, 12)
                continue
            tabled += 1
            c = comb(f, k)
            ranks = range(c) if c <= 3000 else rng.integers(0, c, size=3000)
            for r in ranks:
                assert int(ix.subsets[off + int(r)]) == colex_unrank(int(r), f, k, ix.binom), (f, k, r)
    assert tabled == sum(min(f, 12) + 1 for f in range(ix.n - 2))


def test_slots_per_position_within_bounds():
    bi = board_index("standard")
    assert bi.slots(3, 3) / burnside_positions(bi.board, 3, 3) <= 1.25
    assert bi.slots(6, 6) / burnside_positions(bi.board, 6, 6) <= 1.05


def test_symmetries_that_are_no_group_are_refused_in_one_line():
    """Burnside's count is whole only over a group: a board given a set of symmetries that is
    not one (three of the standard board's 16, taken so that some count comes out fractional)
    raises a RulesError naming the board, under ``python -O`` too (no assert)."""
    import dataclasses
    from itertools import combinations

    from solver.errors import RulesError
    from solver.rules.boards import BOARDS

    board = BOARDS["standard"]
    for subset in combinations(board.symmetries, 3):
        bad = dataclasses.replace(board, symmetries=tuple(subset))
        for a in range(4):
            try:
                positions_up_to_symmetry(bad, a, 0)
            except RulesError as e:
                assert "symmetries of the standard board do not form a group" in str(e)
                return
    raise AssertionError("no subset of three symmetries gave a fractional count")
