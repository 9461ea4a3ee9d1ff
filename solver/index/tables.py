"""A board's index tables, built once per board and handed to the kernels as ``IndexTables``."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..rules.boards import BOARDS, Board
from . import cache
from . import kernels as k


class IndexTables(NamedTuple):
    """What the index kernels need (numba passes a named tuple as one value)."""

    n: int  # points
    nsym: int  # symmetries
    sym_img: np.ndarray  # sym_img[g, byte, v]: image under g of the byte v at that byte position
    mask_info: np.ndarray  # per mask: rep << SYM_BITS | symmetric << 4 | g0 (see kernels)
    reps: np.ndarray  # orbit minima, by popcount then increasing
    rep_offset: np.ndarray  # rep_offset[a]: index in reps of the first a-men minimum
    binom: np.ndarray  # binom[i, j] = C(i, j)
    deposit: np.ndarray  # deposit[f, c]: the low bits of c spread onto the set bits of the byte f
    subset_offset: np.ndarray  # subset_offset[f, k]: where the k-sets of f points start in subsets; -1: not tabled
    subsets: np.ndarray  # the k-sets of f points in colex order (kernels.fill_subsets)
    stabiliser: np.ndarray  # stabiliser[i]: the symmetries fixing reps[i], one bit each


def deposits() -> np.ndarray:
    """deposit[f, c]: bit i of c moved to the i-th set bit of f (a byte-wide "parallel deposit"),
    so that unranking spreads a set of free points onto the board by one lookup per byte."""
    out = np.zeros((256, 256), dtype=np.uint8)
    for f in range(256):
        points = [p for p in range(8) if f >> p & 1]
        for c in range(1 << len(points)):
            out[f, c] = sum(1 << p for i, p in enumerate(points) if c >> i & 1)
    return out


TABLED_MEN = 12  # the most men a side has under any rule set (docs/rules.md: men=3 ... 12)


def colex_tables(n: int, binom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(subset_offset, subsets) for the sets of k <= 12 men among the f <= n - 3 points left free
    by a mover of at least 3 men: every subspace of the moving phase. About 15 MB for 24 points;
    the placing phase's sparser boards unrank without it."""
    offset = np.full((n + 1, n + 1), -1, dtype=np.int64)
    total = 0
    for f in range(max(0, n - 2)):
        for men in range(min(f, TABLED_MEN) + 1):
            offset[f, men] = total
            total += int(binom[f, men])
    subsets = np.zeros(total, dtype=np.uint32)
    k.fill_subsets(offset, subsets)
    return offset, subsets


def binomials(n: int) -> np.ndarray:
    c = np.zeros((n + 2, n + 2), dtype=np.int64)
    for i in range(n + 2):
        c[i, 0] = 1
        for j in range(1, i + 1):
            c[i, j] = c[i - 1, j - 1] + c[i - 1, j]
    return c


def _symmetry_images(board: Board) -> np.ndarray:
    perms = board.symmetry_array.astype(np.int64)
    sym_img = np.zeros((len(perms), 3, 256), dtype=np.int64)
    for g, perm in enumerate(perms):
        for byte in range(3):
            for v in range(256):
                out = 0
                for bit in range(8):
                    p = byte * 8 + bit
                    if v >> bit & 1 and p < board.n:
                        out |= 1 << int(perm[p])
                sym_img[g, byte, v] = out
    return sym_img


class BoardIndex:
    """Index tables of one board, shared by every subspace on it (built once, ~1 s for 24 points)."""

    def __init__(self, board: Board):
        self.board = board
        n = self.n = board.n
        sym_img = _symmetry_images(board)
        mask_info = np.zeros(1 << n, dtype=np.int32)
        self.rep_count = np.zeros(n + 1, dtype=np.int64)
        k.build_mask_info(n, sym_img.shape[0], sym_img, self.rep_count, mask_info)
        rep_offset = np.zeros(n + 2, dtype=np.int64)
        rep_offset[1:] = np.cumsum(self.rep_count)
        reps = np.zeros(int(rep_offset[-1]), dtype=np.int64)
        k.fill_reps(n, mask_info, rep_offset, reps)
        stabiliser = np.zeros(reps.shape[0], dtype=np.uint16)
        k.fill_stabilisers(sym_img.shape[0], sym_img, reps, stabiliser)
        binom = binomials(n)
        self.tables = IndexTables(
            n, sym_img.shape[0], sym_img, mask_info, reps, rep_offset, binom, deposits(), *colex_tables(n, binom), stabiliser
        )
        cache.save(board, reps, rep_offset)  # for lookups that rank without numba (index.plain)

    def slots(self, a: int, b: int) -> int:
        return int(self.rep_count[a]) * int(self.tables.binom[self.n - a, b])

    def rank(self, mover: int, opponent: int) -> int:
        return int(k.rank_position(mover, opponent, self.tables))

    def unrank(self, a: int, b: int, slot: int) -> tuple[int, int]:
        m, o = k.unrank_position(a, b, slot, self.tables)
        return int(m), int(o)

    def is_canonical(self, a: int, b: int, slot: int) -> bool:
        m, o = k.unrank_position(a, b, slot, self.tables)
        return bool(k.is_canonical_pair(m, o, self.tables))

    def rank_many(self, movers: np.ndarray, opponents: np.ndarray) -> np.ndarray:
        # (contiguous: a column of a 2-d array would compile the kernel for another layout)
        return k.rank_many(np.ascontiguousarray(movers, dtype=np.int64), np.ascontiguousarray(opponents, dtype=np.int64), self.tables)

    def unrank_many(self, a: int, b: int, slots: np.ndarray):
        """(movers, opponents, canonical) of ``slots`` of subspace (a, b)."""
        return k.unrank_many(a, b, np.asarray(slots, dtype=np.int64), self.tables)


@lru_cache(maxsize=None)
def board_index(board_name: str) -> BoardIndex:
    return BoardIndex(BOARDS[board_name])
