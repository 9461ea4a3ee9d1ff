"""Solving one subspace and its twin: the steps around the kernels of ``engine_kernels``.

1. initialise each half: terminal losses; removal outcomes where a removal can leave two men;
2. find the positions a removal may win, backwards from the losses of the smaller subspaces, and
   settle their removal outcomes; schedule all known outcomes by level;
3. propagate level by level: decided positions of one half decide predecessors in the other
   (counts and the remaining removal outcomes are computed when first needed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import engine_kernels as ek
from .errors import MorrisError
from .game import tables
from .index import BoardIndex
from .rules import RuleSet

BLOCK = 1 << 15  # frontier entries per propagation block


@dataclass
class SubspaceResult:
    mover: int
    opponent: int
    values: np.ndarray  # uint16 per slot, see engine_kernels
    positions: int
    win: int
    draw: int
    loss: int
    max_win: int  # -1 when there is none
    max_loss: int
    seconds: float
    held_bytes: int = 0  # working arrays of the pair while solving (smaller subspaces excluded)

    @property
    def max_plies(self) -> int:
        return max(self.max_win, self.max_loss)


class DepthOverflow(MorrisError, OverflowError):
    """A depth too long for the uint16 values of the format."""

    exit_code = 1


def solve_pair(
    rules: RuleSet,
    index: BoardIndex,
    a: int,
    b: int,
    solved: Callable[[int, int], np.ndarray],
    progress: Callable[[int], None] | None = None,
) -> list[SubspaceResult]:
    """Solve (a, b) and (b, a) together; ``solved(x, y)`` returns the values of a smaller subspace."""
    t0 = time.perf_counter()
    n, adj, mills, point_mills, opts = tables(rules)
    idx = index.arrays()[1:]  # nsym, sym_img, mask_info, reps, rep_offset, binom
    per_mill = rules.double_mill == "per-mill"
    halves = [(a, b)] if a == b else [(a, b), (b, a)]
    dummy = np.zeros(1, dtype=np.uint16)
    value, count, ext, ext_in = {}, {}, {}, {}
    for h in halves:
        x, y = h
        size = index.slots(x, y)
        value[h] = np.zeros(size, dtype=np.uint16)
        count[h] = np.zeros(size, dtype=np.uint8)
        ext[h] = np.zeros(size, dtype=np.uint16)
        ext1 = solved(y - 1, x) if y - 1 >= 3 else dummy
        ext2 = solved(y - 2, x) if per_mill and y - 2 >= 3 else dummy
        ext_in[h] = (ext1, ext2)
        step = max(ek.CHUNK * 16, size // 64 // ek.CHUNK * ek.CHUNK)
        for lo in range(0, size, step):
            hi = min(size, lo + step)
            ek.init_subspace(
                x, y, value[h][lo:hi], count[h][lo:hi], ext[h][lo:hi], lo,
                n, adj, mills, point_mills, opts, *idx, ext1, ext2,
            )
            if progress:
                progress(hi - lo)
        # Positions whose removals may win: found backwards from the losses they remove into.
        for removed, smaller in ((1, ext1), (2, ext2)):
            if y - removed >= 3 and smaller is not dummy:
                ek.mark_removal_candidates(x, y, value[h], count[h], ext[h], y - removed, smaller, n, adj, mills, point_mills, opts, *idx)
        ek.resolve_candidates(x, y, value[h], count[h], ext[h], n, adj, mills, point_mills, opts, *idx, ext1, ext2)

    order, start, cur, ncur, nxt, deferred, ndef = {}, {}, {}, {}, {}, {}, {}
    last_scheduled = 0
    for h in halves:
        top = int(ek.max_ext_level(ext[h]))
        last_scheduled = max(last_scheduled, top)
        order[h], start[h] = ek.schedule(ext[h], top)
        cur[h] = np.empty(value[h].shape[0], dtype=np.uint32)
        nxt[h] = np.empty(value[h].shape[0], dtype=np.uint32)
        ncur[h] = ek.level_zero(value[h], cur[h])
        deferred[h] = np.empty((1024, 2), dtype=np.int64)
        ndef[h] = 0

    level = 0
    while True:
        for h in halves:
            ncur[h] = ek.take_scheduled(level, order[h], start[h], value[h], count[h], cur[h], ncur[h])
            ncur[h], ndef[h] = ek.take_deferred(level, deferred[h], ndef[h], value[h], count[h], cur[h], ncur[h])
            if progress:
                progress(int(ncur[h]))
        if level >= last_scheduled and all(ncur[h] == 0 and ndef[h] == 0 for h in halves):
            break
        if level + 1 > ek.MAX_LEVEL:
            raise DepthOverflow(f"subspace {a}-{b}: a depth beyond {ek.MAX_LEVEL} plies does not fit the format")
        nnext = {h: 0 for h in halves}
        for h in halves:
            other = (h[1], h[0])
            qa, qb = h
            width = qb * (n - qa - qb) + 1
            preds = np.empty((min(BLOCK, max(1, int(ncur[h]))), width), dtype=np.int64)
            npreds = np.empty(preds.shape[0], dtype=np.int64)
            for lo in range(0, int(ncur[h]), BLOCK):
                block = cur[h][lo : min(int(ncur[h]), lo + BLOCK)]
                k = block.shape[0]
                ek.gather_predecessors(
                    block, k, qa, qb, value[h], preds, npreds, value[other], count[other], ext[other],
                    n, adj, mills, point_mills, opts, *idx,
                )
                need = ndef[other] + int(npreds[:k].sum())
                if need > deferred[other].shape[0]:
                    grown = np.empty((2 * need, 2), dtype=np.int64)
                    grown[: ndef[other]] = deferred[other][: ndef[other]]
                    deferred[other] = grown
                nnext[other], ndef[other] = ek.apply_predecessors(
                    block, k, value[h], preds, npreds,
                    value[other], count[other], ext[other], nxt[other], nnext[other],
                    other[0], other[1], deferred[other], ndef[other],
                    n, adj, mills, point_mills, opts, *idx, *ext_in[other],
                )
        for h in halves:
            cur[h], nxt[h] = nxt[h], cur[h]
            ncur[h] = nnext[h]
        level += 1

    seconds = time.perf_counter() - t0
    held = sum(arr[h].nbytes for arr in (value, count, ext, order, cur, nxt) for h in halves)
    results = []
    for h in halves:
        pos, win, draw, loss, max_win, max_loss = ek.tally(value[h])
        results.append(
            SubspaceResult(
                h[0], h[1], value[h], int(pos), int(win), int(draw), int(loss), int(max_win), int(max_loss), seconds, held
            )
        )
    return results
