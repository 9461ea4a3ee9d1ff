"""Solving one subspace and its twin: the steps around the kernels.

1. initialise each half: terminal losses; removal outcomes where a removal can leave two men;
2. find the positions a removal may win, backwards from the losses of the smaller subspaces, and
   settle their removal outcomes; schedule all known outcomes by level;
3. propagate level by level: decided positions of one half decide predecessors in the other
   (counts and the remaining removal outcomes are computed when first needed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numba
import numpy as np

from ..errors import DepthOverflow
from ..index import BoardIndex
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from .kernels import codes, frontier, initialise, propagate, removals, schedule
from .held import SolvedValues
from ..tiers import fewer_men_needed, removal_depth
from ..values import NO_VALUES

BLOCK = 1 << 18  # frontier entries per propagation block
DECISION_RANGES = 1024  # about this many slot ranges share out a block's decisions among threads
SORT_PARTS = 16  # parts of a block counted and scattered in parallel
PARALLEL_DECISIONS = 1 << 14  # fewer predecessors in a block are decided on one thread
# Working memory per slot of the pair: value 2, count 1, removals 2, two frontier bitmaps 1/8 +
# 1/8, and at most 4 more for the schedule of removal outcomes (one uint32 per scheduled slot).
WORKING_BYTES_PER_SLOT = 2 + 1 + 2 + 0.25
SCHEDULE_BYTES_PER_SLOT = 4
PHASES = ("initialise", "candidates", "removals", "schedule", "predecessors", "sorting", "decisions")


@dataclass
class SubspaceResult:
    mover: int
    opponent: int
    values: np.ndarray  # uint16 per slot, see solver.values
    positions: int
    win: int
    draw: int
    loss: int
    max_win: int  # -1 when there is none
    max_loss: int
    seconds: float  # wall time of the pair's solve (both halves), compilation excluded
    cpu_seconds: float  # CPU time of the same, all threads
    held_bytes: int = 0  # working arrays of the pair while solving (smaller subspaces excluded)
    phases: dict[str, float] = field(default_factory=dict)  # wall seconds of each step (see PHASES)

    @property
    def max_plies(self) -> int:
        return max(self.max_win, self.max_loss)


def solve_pair(
    rules: RuleSet,
    index: BoardIndex,
    a: int,
    b: int,
    solved: Callable[[int, int], np.ndarray],
    progress: Callable[[int], None] | None = None,
) -> list[SubspaceResult]:
    """Solve (a, b) and (b, a) together; ``solved(x, y)`` returns the values of a smaller subspace."""
    g, ix = game_tables(rules), index.tables
    halves = [(a, b)] if a == b else [(a, b), (b, a)]
    value, count, removal, fewer = {}, {}, {}, {}
    for h in halves:
        x, y = h
        need = fewer_men_needed(rules, x, y)
        # (y - k, x) after moves that remove k men: 1, or up to 3 under per-mill (``most_removals``)
        fewer[h] = tuple(solved(y - k, x) if (y - k, x) in need else NO_VALUES for k in (1, 2, 3))
    t0, c0 = time.perf_counter(), time.process_time()  # smaller subspaces are loaded: from here on it is solving
    phases = dict.fromkeys(PHASES, 0.0)
    clock = [t0]

    def lap(phase: str) -> None:
        now = time.perf_counter()
        phases[phase] += now - clock[0]
        clock[0] = now

    for h in halves:
        x, y = h
        size = index.slots(x, y)
        value[h] = np.zeros(size, dtype=np.uint16)
        count[h] = np.zeros(size, dtype=np.uint8)
        removal[h] = np.zeros(size, dtype=np.uint16)
        most = rules.most_removals(x)
        step = max(codes.CHUNK * 16, size // 64 // codes.CHUNK * codes.CHUNK)
        for lo in range(0, size, step):
            hi = min(size, lo + step)
            initialise.init_subspace(
                x, y, value[h][lo:hi], count[h][lo:hi], removal[h][lo:hi], lo, g, ix, most, *fewer[h]
            )
            if progress:
                progress(hi - lo)
        lap("initialise")
        # Positions whose removals may win: found backwards from the losses they remove into.
        # Where a move removes one man at most, the pass settles their codes itself; otherwise
        # it marks candidates whose codes are computed one by one, forwards.
        settle = settled_when_found(rules, x)
        for removed, smaller in zip((1, 2, 3), fewer[h]):
            if smaller is not NO_VALUES:
                removals.mark_removal_candidates(x, y, value[h], count[h], removal[h], y - removed, smaller, settle, g, ix)
        lap("candidates")
        if not settle:
            removals.resolve_candidates(x, y, value[h], count[h], removal[h], g, ix, *fewer[h])
        lap("removals")

    order, start, cur, ncur, nxt, deferred, ndef = {}, {}, {}, {}, {}, {}, {}
    last_scheduled = 0
    for h in halves:
        top = int(schedule.max_removal_level(removal[h]))
        last_scheduled = max(last_scheduled, top)
        order[h], start[h] = schedule.schedule(removal[h], top)
        cur[h] = frontier.new_bitmap(value[h].shape[0])
        nxt[h] = frontier.new_bitmap(value[h].shape[0])
        ncur[h] = schedule.level_zero(value[h], cur[h])
        deferred[h] = np.empty((1024, 2), dtype=np.int64)
        ndef[h] = 0
    lap("schedule")

    block = np.empty(BLOCK, dtype=np.uint32)  # frontier slots read back from the bitmap
    # Decisions are made in parallel, one thread per range of 2**shift slots (whole bitmap words).
    shift = {h: max(6, (value[h].shape[0] // DECISION_RANGES).bit_length()) for h in halves}
    ranges = {h: (value[h].shape[0] >> shift[h]) + 1 for h in halves}
    buckets = {h: (np.zeros(ranges[h] + 1, dtype=np.int64), np.zeros(ranges[h], dtype=np.int64)) for h in halves}
    hist = {h: np.zeros((SORT_PARTS, ranges[h]), dtype=np.int64) for h in halves}
    level = 0
    while True:
        for h in halves:
            ncur[h] = schedule.take_scheduled(level, order[h], start[h], value[h], count[h], cur[h], ncur[h])
            ncur[h], ndef[h] = schedule.take_deferred(level, deferred[h], ndef[h], value[h], count[h], cur[h], ncur[h])
            if progress:
                progress(int(ncur[h]))
        if level >= last_scheduled and all(ncur[h] == 0 and ndef[h] == 0 for h in halves):
            break
        if level + 1 > codes.MAX_LEVEL:
            raise DepthOverflow(f"subspace {a}-{b}: a depth beyond {codes.MAX_LEVEL} plies does not fit the format")
        nnext = {h: 0 for h in halves}
        for h in halves:
            other = (h[1], h[0])
            front_a, front_b = h
            width = front_b * (g.n - front_a - front_b) + 1  # un-moves of one man, or the pass
            rows = min(BLOCK, max(64, int(ncur[h]) + 64))
            nrow = np.empty((rows + propagate.ROWS - 1) // propagate.ROWS, dtype=np.int64)
            preds = np.empty(nrow.shape[0] * propagate.ROWS * width, dtype=np.uint32)  # packed per work item
            flat = np.empty(preds.size, dtype=np.uint32)  # the block's predecessors, by slot range
            late = np.empty(preds.size, dtype=np.uint32)
            starts, nlate = buckets[other]
            word, left = 0, int(ncur[h])
            while left > 0:
                k, word = frontier.collect(cur[h], word, block[:rows])
                left -= k
                propagate.gather_predecessors(block, k, front_a, front_b, preds, nrow, g, ix)
                lap("predecessors")
                items = (k + propagate.ROWS - 1) // propagate.ROWS
                propagate.bucket_predecessors(preds, nrow, items, shift[other], flat, starts, hist[other])
                lap("sorting")
                apply = propagate.apply_predecessors if starts[-1] >= PARALLEL_DECISIONS else propagate.apply_predecessors_serial
                nnext[other] += apply(
                    level, flat, starts, value[other], count[other], removal[other], nxt[other],
                    other[0], other[1], late, nlate, g, ix, *fewer[other],
                )
                need = ndef[other] + int(nlate.sum())
                if need > deferred[other].shape[0]:
                    grown = np.empty((2 * need, 2), dtype=np.int64)
                    grown[: ndef[other]] = deferred[other][: ndef[other]]
                    deferred[other] = grown
                ndef[other] = propagate.append_late(late, starts, nlate, removal[other], deferred[other], ndef[other])
                lap("decisions")
        for h in halves:
            cur[h], nxt[h] = nxt[h], cur[h]
            ncur[h] = nnext[h]
        level += 1

    seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    held = sum(arr[h].nbytes for arr in (value, count, removal, order, cur, nxt) for h in halves) + block.nbytes
    results = []
    for h in halves:
        pos, win, draw, loss, max_win, max_loss = codes.tally(value[h])
        results.append(
            SubspaceResult(
                h[0], h[1], value[h], int(pos), int(win), int(draw), int(loss), int(max_win), int(max_loss), seconds, cpu_seconds, held,
                phases,
            )
        )
    return results


def settled_when_found(rules: RuleSet, men: int) -> bool:
    """Whether the removal candidates' pass settles their codes itself for a mover of ``men``:
    where each move removes one man at most and a mill does not win outright, a candidate's code
    is the quickest of the losses its legal removals reach."""
    return rules.most_removals(men) == 1 and rules.mill_wins == "off"


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) every engine kernel, once per process, so that the
    seconds measured afterwards are solving alone. The kernels' types do not depend on the board
    or the rule options, so the six board's pairs 3-3 and 3-4 (milliseconds) reach them all."""
    global _warm
    if _warm or numba.config.DISABLE_JIT:  # (plain Python: nothing to compile)
        return
    from ..index import board_index
    from ..rules.rulesets import get_rules

    rules, index = get_rules("six"), board_index("six")
    done = SolvedValues(depth=removal_depth(rules))
    for a, b in ((3, 3), (3, 4)):
        for r in solve_pair(rules, index, a, b, done):
            done.add(r.mover, r.opponent, r.values)
    # The forward pass over marked candidates, which these rules settle without (one slot, no
    # candidate: compiled, nothing done).
    one, mark = np.zeros(1, dtype=np.uint16), np.zeros(1, dtype=np.uint8)
    removals.resolve_candidates(3, 3, one, mark, one.copy(), game_tables(rules), index.tables, NO_VALUES, NO_VALUES, NO_VALUES)
    _warm = True
