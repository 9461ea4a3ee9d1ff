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
from ..tiers import fewer_men_needed
from ..values import NO_VALUES
from .held import SolvedValues
from .kernels import codes, frontier, propagate, pull, pull_flying, removals, schedule
from .kernels import initialise as initialise_kernels

BLOCK = 1 << 18  # frontier entries per propagation block
DECISION_RANGES = 1024  # about this many slot ranges share out a block's decisions among threads
SORT_PARTS = 16  # parts of a block counted and scattered in parallel
PARALLEL_DECISIONS = 1 << 14  # fewer predecessors in a block are decided on one thread
# Working memory per slot of the pair: value 2, count 1, removals 2, two frontier bitmaps 1/8 +
# 1/8, and at most 4 more for the schedule of removal outcomes (one uint32 per scheduled slot).
WORKING_BYTES_PER_SLOT = 2 + 1 + 2 + 0.25
SCHEDULE_BYTES_PER_SLOT = 4
# A level's decisions are pulled (``kernels.pull``) instead of pushed where the push would list
# more predecessors than the pull looks at successors of open positions, times the advantage.
# Measured level by level on 9-men pairs, each level pushed and pulled: a flying
# side's half pulled in its twin's order (``kernels.pull_flying``) costs half the push per
# successor (3-9's first level: 8.9 s against 13.9 s at 0.77:1); the other half of such a pair
# pays from 1:1 on; between sliding sides a pulled successor costs about 1.6x a pushed
# predecessor (4-9 and 5-8: pulled 1.5x-1.7x slower at 1:1, 2.2x-5x faster from 3.5:1), so they
# pull from 2:1 on. "always" and "never" force one way (for the tests).
PULL = "auto"
PULL_ADVANTAGE = {"flying half": 0.5, "flying pair": 1.0, "sliding": 2.0}
# A flying side's half is pulled in its twin's order (its successors in cache, its own slots
# ranked) where at least this share of it is open; in its own order (open slots found by a scan,
# each position's successors read from afar) where fewer are.
TWIN_ORDER_OPEN = 0.05
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


@dataclass
class Half:
    """One subspace (x, y) of the pair while it is solved: its working arrays and frontiers."""

    x: int
    y: int
    fewer: tuple  # values of the solved subspaces after 1, 2 and 3 removals (NO_VALUES: none)
    value: np.ndarray  # uint16 per slot: the answer (see kernels.codes)
    count: np.ndarray  # uint8 per slot: successors in the twin not yet known to be wins
    removal: np.ndarray  # uint16 per slot: what moves with a removal give
    order: np.ndarray | None = None  # slots with a removal outcome, by its level (``schedule``)
    start: np.ndarray | None = None  # where each level starts in ``order``
    cur: np.ndarray | None = None  # the frontier bitmap of this level
    nxt: np.ndarray | None = None  # and of the next
    ncur: int = 0
    nnext: int = 0
    deferred: np.ndarray | None = None  # (slot, level) of losses that wait for a removal's level
    ndef: int = 0
    open: int = 0  # positions not in the frontier of any level yet (an upper bound of the undecided)
    shift: int = 0  # decisions: one bucket (thread's share) per 2**shift slots
    starts: np.ndarray | None = None  # where each bucket's predecessors start
    nlate: np.ndarray | None = None  # losses each bucket found that must wait
    hist: np.ndarray | None = None  # per part and bucket, while sorting

    @property
    def key(self) -> tuple[int, int]:
        return (self.x, self.y)


@dataclass
class PairSolve:
    """The state of one pair's solve, shared by its steps."""

    rules: RuleSet
    g: object  # GameTables
    ix: object  # IndexTables
    name: str
    halves: dict[tuple[int, int], Half]
    progress: Callable[[int], None] | None
    phases: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    clock: float = field(default_factory=time.perf_counter)
    block: np.ndarray = field(default_factory=lambda: np.empty(BLOCK, dtype=np.uint32))  # frontier slots read back
    compiling: list = field(default_factory=lambda: [0.0, 0.0])  # wall and CPU seconds loading the pull's kernels

    def lap(self, phase: str) -> None:
        """Charge the wall time since the last lap to ``phase``."""
        now = time.perf_counter()
        self.phases[phase] += now - self.clock
        self.clock = now

    def advance(self, n: int) -> None:
        if self.progress:
            self.progress(n)

    def twin(self, h: Half) -> Half:
        return self.halves[(h.y, h.x)]


def solve_pair(
    rules: RuleSet,
    index: BoardIndex,
    a: int,
    b: int,
    solved: Callable[[int, int], np.ndarray],
    progress: Callable[[int], None] | None = None,
) -> list[SubspaceResult]:
    """Solve (a, b) and (b, a) together; ``solved(x, y)`` returns the values of a smaller subspace."""
    inputs = {h: _smaller(rules, *h, solved) for h in ([(a, b)] if a == b else [(a, b), (b, a)])}
    t0, c0 = time.perf_counter(), time.process_time()  # smaller subspaces are loaded: from here on it is solving
    s = PairSolve(rules, game_tables(rules), index.tables, f"{a}-{b}", {}, progress, clock=t0)
    for (x, y), fewer in inputs.items():
        s.halves[(x, y)] = h = _new_half(index, x, y, fewer)
        initialise(s, h)
        find_removal_wins(s, h)
    schedule_levels(s)
    propagate_levels(s)
    return results(s, time.perf_counter() - t0 - s.compiling[0], time.process_time() - c0 - s.compiling[1])


def _smaller(rules, x, y, solved) -> tuple:
    """(y - k, x) after moves that remove k men: 1, or up to 3 under per-mill (``most_removals``)."""
    need = fewer_men_needed(rules, x, y)
    return tuple(solved(y - k, x) if (y - k, x) in need else NO_VALUES for k in (1, 2, 3))


def _new_half(index, x, y, fewer) -> Half:
    size = index.slots(x, y)
    return Half(x, y, fewer, np.zeros(size, dtype=np.uint16), np.zeros(size, dtype=np.uint8), np.zeros(size, dtype=np.uint16))


def initialise(s: PairSolve, h: Half) -> None:
    """Step 1: terminal losses, and removal outcomes where a removal can leave two men, in chunks
    (the progress bar moves once per chunk)."""
    size = h.value.shape[0]
    most = s.rules.most_removals(h.x)
    step = max(codes.CHUNK * 16, size // 64 // codes.CHUNK * codes.CHUNK)
    for lo in range(0, size, step):
        hi = min(size, lo + step)
        initialise_kernels.init_subspace(
            h.x, h.y, h.value[lo:hi], h.count[lo:hi], h.removal[lo:hi], lo, s.g, s.ix, most, h.fewer
        )
        s.advance(hi - lo)
    s.lap("initialise")


def find_removal_wins(s: PairSolve, h: Half) -> None:
    """Step 2: the positions whose removals may win, found backwards from the losses they remove
    into. Where a move removes one man at most, the pass settles their codes itself; otherwise it
    marks candidates whose codes are computed one by one, forwards."""
    settle = settled_when_found(s.rules, h.x)
    for removed, smaller in zip((1, 2, 3), h.fewer):
        if smaller is not NO_VALUES:
            removals.mark_removal_candidates(h.x, h.y, h.value, h.count, h.removal, h.y - removed, smaller, settle, s.g, s.ix)
    s.lap("candidates")
    if not settle:
        removals.resolve_candidates(h.x, h.y, h.value, h.count, h.removal, s.g, s.ix, h.fewer)
    s.lap("removals")


def schedule_levels(s: PairSolve) -> None:
    """Step 3: every known removal outcome sorted by its level; the losses at level 0 are the
    first frontier; the buckets the decisions are shared out by."""
    for h in s.halves.values():
        h.order, h.start = schedule.schedule(h.removal, int(schedule.max_removal_level(h.removal)))
        h.cur = frontier.new_bitmap(h.value.shape[0])
        h.nxt = frontier.new_bitmap(h.value.shape[0])
        h.ncur = schedule.level_zero(h.value, h.cur)
        h.open = int(pull.count_open(h.value)) + h.ncur  # each position enters one level's frontier, once
        h.deferred = np.empty((1024, 2), dtype=np.int64)
        # Decisions are made in parallel, one thread per range of 2**shift slots (whole bitmap words).
        h.shift = max(6, (h.value.shape[0] // DECISION_RANGES).bit_length())
        ranges = (h.value.shape[0] >> h.shift) + 1
        h.starts, h.nlate = np.zeros(ranges + 1, dtype=np.int64), np.zeros(ranges, dtype=np.int64)
        h.hist = np.zeros((SORT_PARTS, ranges), dtype=np.int64)
    s.lap("schedule")


def propagate_levels(s: PairSolve) -> None:
    """Step 4: level by level, the decided positions of each half decide their predecessors in
    the twin, until no level has anything left to decide or schedule."""
    last_scheduled = max(h.start.shape[0] - 3 for h in s.halves.values())  # the top removal level
    level = 0
    while True:
        for h in s.halves.values():
            h.ncur = schedule.take_scheduled(level, h.order, h.start, h.value, h.count, h.cur, h.ncur)
            h.ncur, h.ndef = schedule.take_deferred(level, h.deferred, h.ndef, h.value, h.count, h.cur, h.ncur)
            h.open -= int(h.ncur)
            s.advance(int(h.ncur))
        if level >= last_scheduled and all(h.ncur == 0 and h.ndef == 0 for h in s.halves.values()):
            return
        if level + 1 > codes.MAX_LEVEL:
            raise DepthOverflow(f"subspace {s.name}: a depth beyond {codes.MAX_LEVEL} plies does not fit the format")
        for h in s.halves.values():
            h.nnext = 0
        for h in s.halves.values():
            decide_predecessors(s, h, s.twin(h), level)
        for h in s.halves.values():
            h.cur, h.nxt = h.nxt, h.cur
            h.ncur = h.nnext
        level += 1


def decide_predecessors(s: PairSolve, h: Half, other: Half, level: int) -> None:
    """One level's frontier of ``h``, a block at a time: gather its predecessors (in ``other``),
    bucket them by slot range, decide them; losses that wait for a removal's later level are
    deferred. Or, where that costs less, pull the decisions from ``other``'s open positions."""
    if h.ncur and _pull_pays(s, h, other):
        pull_decisions(s, h, other, level)
        return
    width = h.y * (s.g.n - h.x - h.y) + 1  # un-moves of one man, or the pass
    rows = min(BLOCK, max(64, int(h.ncur) + 64))
    nrow = np.empty((rows + propagate.ROWS - 1) // propagate.ROWS, dtype=np.int64)
    preds = np.empty(nrow.shape[0] * propagate.ROWS * width, dtype=np.uint32)  # packed per work item
    flat = np.empty(preds.size, dtype=np.uint32)  # the block's predecessors, by slot range
    late = np.empty(preds.size, dtype=np.uint32)
    word, left = 0, int(h.ncur)
    while left > 0:
        k, word = frontier.collect(h.cur, word, s.block[:rows])
        left -= k
        propagate.gather_predecessors(s.block, k, h.x, h.y, preds, nrow, s.g, s.ix)
        s.lap("predecessors")
        items = (k + propagate.ROWS - 1) // propagate.ROWS
        propagate.bucket_predecessors(preds, nrow, items, other.shift, flat, other.starts, other.hist)
        s.lap("sorting")
        apply = propagate.apply_predecessors if other.starts[-1] >= PARALLEL_DECISIONS else propagate.apply_predecessors_serial
        other.nnext += apply(
            level, flat, other.starts, other.value, other.count, other.removal, other.nxt,
            other.x, other.y, late, other.nlate, s.g, s.ix, other.fewer,
        )
        need = other.ndef + int(other.nlate.sum())
        if need > other.deferred.shape[0]:
            grown = np.empty((2 * need, 2), dtype=np.int64)
            grown[: other.ndef] = other.deferred[: other.ndef]
            other.deferred = grown
        other.ndef = propagate.append_late(late, other.starts, other.nlate, other.removal, other.deferred, other.ndef)
        s.lap("decisions")


def _pull_pays(s: PairSolve, h: Half, other: Half) -> bool:
    """Whether pulling ``other``'s decisions costs less than pushing ``h``'s frontier."""
    if PULL != "auto":
        return PULL == "always" and pull.usable(s.g.opts) and _load_pull(s)
    if not pull.usable(s.g.opts):
        return False
    free = s.g.n - h.x - h.y
    flies = s.rules.flying == "at-3" and 3 in (h.x, h.y)

    def moves_per_position(men: int) -> float:  # a flying side's un-moves, or a sliding side's
        return men * free if men == 3 and flies else men * 2.0

    pushed = h.ncur * moves_per_position(h.y)
    if pushed < other.value.shape[0] * 0.25:  # (the pull reads every slot of ``other``)
        return False
    pulled = other.open * moves_per_position(other.x)
    kind = "sliding" if not flies else "flying half" if _by_twin(s, other) else "flying pair"
    return pulled * PULL_ADVANTAGE[kind] < pushed and _load_pull(s)


def _by_twin(s: PairSolve, other: Half) -> bool:
    """Whether ``other`` is pulled in its twin's order (``kernels.pull_flying``)."""
    return other.x == 3 and s.rules.flying == "at-3" and other.open >= TWIN_ORDER_OPEN * other.value.shape[0]


def pull_decisions(s: PairSolve, h: Half, other: Half, level: int) -> None:
    """``decide_predecessors`` by ``kernels.pull`` (or ``pull_flying``): ``h``'s frontier is only
    cleared; the late losses it marks are deferred as the push defers them."""
    h.cur[:] = 0
    late = frontier.new_bitmap(other.value.shape[0])
    if _by_twin(s, other):
        decided, nlate = pull_flying.pull_level_by_twin(
            level, other.y, other.value, other.count, other.removal, other.nxt, late, h.value, s.g, s.ix, other.fewer
        )
    else:
        decided, nlate = pull.pull_level(
            level, other.x, other.y, other.value, other.count, other.removal, other.nxt, late, other.shift, h.value, s.g,
            s.ix, other.fewer,
        )
    other.nnext += decided
    word = 0
    while nlate and word < late.shape[0]:
        k, word = frontier.collect(late, word, s.block)
        slots = s.block[:k].astype(np.int64)
        need = other.ndef + k
        if need > other.deferred.shape[0]:
            grown = np.empty((2 * need, 2), dtype=np.int64)
            grown[: other.ndef] = other.deferred[: other.ndef]
            other.deferred = grown
        other.deferred[other.ndef : need, 0] = slots
        other.deferred[other.ndef : need, 1] = other.removal[slots]
        other.ndef = need
    s.lap("decisions")


def results(s: PairSolve, seconds: float, cpu_seconds: float) -> list[SubspaceResult]:
    """Step 5: each half's values and tallies."""
    held = s.block.nbytes + sum(
        arr.nbytes for h in s.halves.values() for arr in (h.value, h.count, h.removal, h.order, h.cur, h.nxt)
    )
    out = []
    for h in s.halves.values():
        pos, win, draw, loss, max_win, max_loss = codes.tally(h.value)
        out.append(
            SubspaceResult(
                h.x, h.y, h.value, int(pos), int(win), int(draw), int(loss), int(max_win), int(max_loss), seconds, cpu_seconds,
                held, s.phases,
            )
        )
    return out


def settled_when_found(rules: RuleSet, men: int) -> bool:
    """Whether the removal candidates' pass settles their codes itself for a mover of ``men``:
    where each move removes one man at most and a mill does not win outright, a candidate's code
    is the quickest of the losses its legal removals reach."""
    return rules.most_removals(men) == 1 and rules.mill_wins == "off"


def _load_pull(s: PairSolve) -> bool:
    """The pull's kernels loaded (or compiled) on the first pair that may take them, their time
    not counted as solving. True, for use in a condition."""
    if not _pull_warm:
        t0, c0 = time.perf_counter(), time.process_time()
        _warm_pull(s.g, s.ix)
        s.compiling[0] += time.perf_counter() - t0
        s.compiling[1] += time.process_time() - c0
        s.clock += time.perf_counter() - t0  # (nor charged to a step)
    return True


_pull_warm = False


def _warm_pull(g, ix) -> None:
    """Compile (or load from numba's cache) the pull's kernels, once per process, where a pair
    first takes them (``_pull_pays``), so that a process that never pulls never loads them. Slots
    holding no position: nothing is decided."""
    global _pull_warm
    if _pull_warm or numba.config.DISABLE_JIT:
        return
    dup, bits, one = np.full(1, codes.DUP, dtype=np.uint16), frontier.new_bitmap(1), np.zeros(1, dtype=np.uint16)
    pull.count_open(dup)
    pull.pull_level(
        0, 3, 3, dup, np.zeros(1, dtype=np.uint8), one, bits, bits.copy(), 6, one, g, ix, (NO_VALUES,) * 3
    )
    # (3, 3) whole, every slot decided (DUP): the kernel visits each and decides nothing
    slots = int((ix.rep_offset[4] - ix.rep_offset[3]) * ix.binom[ix.n - 3, 3])
    dups, bits = np.full(slots, codes.DUP, dtype=np.uint16), frontier.new_bitmap(slots)
    pull_flying.pull_level_by_twin(
        0, 3, dups, np.zeros(slots, dtype=np.uint8), dups, bits, bits.copy(), dups, g, ix, (NO_VALUES,) * 3
    )
    _pull_warm = True


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) every engine kernel, once per process, so that the
    seconds measured afterwards are solving alone. The kernels' types do not depend on the board
    or the rule options, so the six board's pairs 3-3 and 3-4 (milliseconds) reach them all: as
    they are, with flying (the flying removals) and with two removals a move; and the pull's."""
    global _warm
    if _warm or numba.config.DISABLE_JIT:  # (plain Python: nothing to compile)
        return
    from ..index import board_index
    from ..rules.rulesets import get_rules, with_options

    rules, index = get_rules("six"), board_index("six")
    for options in ({}, {"flying": "at-3"}, {"flying": "at-3", "double-mill": "per-mill"}):
        done = SolvedValues()
        for a, b in ((3, 3), (3, 4)):
            for r in solve_pair(with_options(rules, options), index, a, b, done):
                done.add(r.mover, r.opponent, r.values)
    _warm_pull(game_tables(rules), index.tables)
    # The forward pass over marked candidates, which these rules settle without (one slot, no
    # candidate: compiled, nothing done).
    one, mark = np.zeros(1, dtype=np.uint16), np.zeros(1, dtype=np.uint8)
    removals.resolve_candidates(3, 3, one, mark, one.copy(), game_tables(rules), index.tables, (NO_VALUES,) * 3)
    _warm = True
