"""Ranks without numba: the slots of ``kernels.rank_position`` computed with numpy from the
board's orbit minima kept on disk (``cache``), for a lookup that should not load the kernels.

A position (M, O) of subspace (a, b) goes to slot ``rep * C(n - a, b) + colex``, where Mc is the
smallest image of M under the board's symmetries, ``rep`` its rank among the orbit minima of a
men (``reps``), Oc the smallest image of O under the symmetries that take M to Mc, and ``colex``
the rank of Oc among the b-sets of the points outside Mc (``kernels`` explains the scheme). The
images are one matrix product: bit p of a mask goes to point ``perm_g[p]`` under symmetry g.
"""

from __future__ import annotations

from math import comb

import numpy as np

from ..errors import DatabaseError
from ..rules.boards import Board
from . import cache

CHUNK = 1 << 15  # positions per step: (positions x points) matrices of a few MiB


class PlainIndex:
    """``rank_many`` of ``BoardIndex``, by numpy alone (the same slots; the tests check it)."""

    def __init__(self, board: Board, reps: np.ndarray, rep_offset: np.ndarray):
        self.board = board
        self.n = n = board.n
        perms = np.array(board.symmetries, dtype=np.int64)  # (symmetries, points)
        self.weights = (np.int64(1) << perms).T  # (points, symmetries)
        self.binom = np.array([[comb(i, j) for j in range(n + 2)] for i in range(n + 2)], dtype=np.int64)
        self.reps, self.rep_offset = reps, rep_offset
        self.points = np.arange(n, dtype=np.int64)

    def _bits(self, masks: np.ndarray) -> np.ndarray:
        return (masks[:, None] >> self.points) & 1  # (positions, points)

    def rank_many(self, movers, opponents) -> np.ndarray:
        movers = np.asarray(movers, dtype=np.int64)
        opponents = np.asarray(opponents, dtype=np.int64)
        out = np.empty(movers.shape[0], dtype=np.int64)
        for lo in range(0, movers.shape[0], CHUNK):
            out[lo : lo + CHUNK] = self._rank(movers[lo : lo + CHUNK], opponents[lo : lo + CHUNK])
        return out

    def _rank(self, movers: np.ndarray, opponents: np.ndarray) -> np.ndarray:
        bits_m, bits_o = self._bits(movers), self._bits(opponents)
        img_m, img_o = bits_m @ self.weights, bits_o @ self.weights  # (positions, symmetries)
        mc = img_m.min(axis=1)
        oc = np.where(img_m == mc[:, None], img_o, np.iinfo(np.int64).max).min(axis=1)
        a, b = bits_m.sum(axis=1), bits_o.sum(axis=1)
        rep = np.empty_like(mc)
        for men in np.unique(a).tolist():
            sel = a == men
            minima = self.reps[self.rep_offset[men] : self.rep_offset[men + 1]]
            at = np.searchsorted(minima, mc[sel])
            if (at >= len(minima)).any() or (np.asarray(minima[np.minimum(at, len(minima) - 1)]) != mc[sel]).any():
                raise DatabaseError(f"the cached index tables of the {self.board.name} board are damaged: remove {cache.folder(self.board)}")
            rep[sel] = at
        # Colex rank of Oc among the points outside Mc: the k-th man of Oc (k from 1), with j free
        # points below it, adds C(j, k).
        free = 1 - self._bits(mc)
        below = np.cumsum(free, axis=1) - free
        bits_oc = self._bits(oc)
        k = np.cumsum(bits_oc, axis=1)
        colex = (bits_oc * self.binom[below, k]).sum(axis=1)
        return rep * self.binom[self.n - a, b] + colex


def plain_index(board: Board) -> PlainIndex | None:
    """The board's ranks without numba, or None when its orbit minima are not cached yet."""
    cached = cache.load(board)
    return None if cached is None else PlainIndex(board, *cached)
