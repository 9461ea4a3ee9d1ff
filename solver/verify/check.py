"""``morris verify``: checksums, then every position against the best over its successors.

The kernels (``kernels`` for the moving phase, ``placing_kernels`` for the tiers with men in
hand) do the work, with forward move generation and the index alone: nothing of the solver's
kernels. The moving phase is checked in one of three ways per subspace that give the same
verdict on every slot: the twin walk checks every position in full; the sweep and the marked walk
check in full all but the draws whose successors are all draws, which need nothing computed. The
sweep serves where few positions are wins, losses or draws next to one (the subspaces with many
men), the marked walk where more are (a side that flies), the twin walk where a removal leaves
the opponent two men and where most positions are wins or losses. The tiers with men in hand
come after them (by men in hand), each by the tier walk (every position in full) or the tier
sweep (the same shortcut as the sweep), picked the same way. A subspace is checked in chunks, so
that the progress bar moves; ``subspaces`` picks the ones to check (those they read are loaded
from the database all the same).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numba
import numpy as np

from ..errors import DatabaseError, SubspaceChoiceError
from ..index import board_index
from ..index.compact import rank_tables
from ..jit import use_threads
from ..machine import machine_memory
from ..rules.movegen import MAX_MOVES, OPT_FLY
from ..rules.notation import Position, format_position
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..storage.database import Database, SubspaceInfo
from ..storage.files import checksum, subspace_name
from ..tiers import (
    Tier,
    fewer_men_needed,
    parse_tier,
    successor_kinds,
    successors,
)
from ..values import DUP, NO_VALUES, describe
from . import LOGIC_VERSION
from . import placing_kernels as pk
from .counts import as_dict, count, differences, stored_counts
from .evidence import ReadBack, stored_states
from .held import HeldTiers, plan_reads
from .reads import moving_reads, read_tiers, reads_digest, tier_reads
from .kernels import (
    check_duplicates,
    expected_value,
    mark_predecessors,
    not_draws,
    sweep,
    verify_from_twin,
)

MAX_LISTED = 5
CHUNK_SLOTS = 4_000_000  # slots per kernel call: the progress bar moves once per chunk
BLOCKS_PER_THREAD = 4  # blocks of runs per thread in a call: slack for runs of unequal cost
SWEEP_SHARE = 0.25  # the sweep where it would check at most this share of the positions in full
REMOVAL_CANDIDATES = 4  # the marked walk where the removals' candidates are at most this many a position
SAMPLE_SOURCES = 4096  # successors whose candidates are counted to estimate them all
NO_MARKS = np.zeros(1, dtype=np.uint8)
# Below this many slots a subspace is checked on one thread: starting the threads of a parallel
# kernel costs more than its work there (on a loaded machine a kernel call waits for the
# scheduler to run every thread, tens of milliseconds each; a tier of the placing phase calls a
# handful).
SERIAL_SLOTS = 1 << 16
TWIN_WALK, MARKED_WALK, SWEEP = "twin walk", "marked walk", "sweep"  # the moving phase
TIER_WALK, TIER_SWEEP, TIER_DIRECT = "tier walk", "tier sweep", "tier direct"  # the tiers with men in hand


def parse_subspaces(names: Iterable[str]) -> list[tuple[int, int, int, int]]:
    """(mover, opponent, mover's hand, opponent's hand) of each name "A-B" or "A-B-HA-HB", in
    the order given, without repeats."""
    out: list[tuple[int, int, int, int]] = []
    for name in names:
        key = parse_tier(name)
        if key is None:
            raise SubspaceChoiceError(
                f"--subspace {name!r}: expected the men of the side to move and of the other side, like 8-8, "
                "then for a tier with men in hand the men in hand of each, like 3-4-2-1"
            )
        if key not in out:
            out.append(key)
    return out


@dataclass
class SubspaceCheck:
    name: str
    positions: int
    checksum_ok: bool
    mismatches: int = 0
    examples: list[str] = field(default_factory=list)
    missing: str | None = None  # a subspace it needs that the database lacks
    error: str | None = None  # data that cannot be read
    method: str | None = None  # TWIN_WALK, MARKED_WALK or SWEEP, once its positions were checked
    seconds: float = 0.0  # wall time of the check, reading the values included
    # What it counted in the values it read (``counts``; ``states``: the history rule's states),
    # and each count that the stored statistics get wrong. ``positions`` above is the count.
    counted: dict | None = None
    states: dict | None = None
    wrong_counts: list[str] = field(default_factory=list)
    # The evidence of the check (``evidence``): the checksum of the values it read, the digest
    # of the checksums of the tiers it read (``reads.reads_digest``) and the logic's version.
    values: str | None = None
    reads: str | None = None
    logic: int = LOGIC_VERSION

    @property
    def ok(self) -> bool:
        return (self.checksum_ok and self.mismatches == 0 and self.missing is None and self.error is None
                and not self.wrong_counts)

    def to_dict(self) -> dict:
        return {
            "subspace": self.name, "positions": self.positions, "checksum_ok": self.checksum_ok,
            "mismatches": self.mismatches, "missing": self.missing, "error": self.error,
            "examples": self.examples, "ok": self.ok, "method": self.method, "seconds": round(self.seconds, 3),
            "wrong_counts": self.wrong_counts, "counted": self.counted, "states": self.states,
            "values": self.values, "reads": self.reads, "logic": self.logic,
        }


def verify(
    db_path: Path,
    threads: int | None = None,
    progress: bool = True,
    rules: RuleSet | None = None,
    on_check: Callable[[SubspaceCheck], None] | None = None,
    subspaces: Iterable[str] | None = None,
    method: str | None = None,
    max_memory: int | None = None,
) -> list[SubspaceCheck]:
    """Check every subspace of the database, or those named in ``subspaces`` ("A-B"; a name
    that is malformed or not in the database raises SubspaceChoiceError before any work); with
    ``rules``, a database of another rule set is refused (MismatchError). ``on_check`` hears
    each subspace's check as it is done. ``method`` (TWIN_WALK, MARKED_WALK or SWEEP for the
    moving phase, TIER_WALK or TIER_DIRECT for the tiers with men in hand; for the tests and the
    benchmark) forces one way where it can serve; by default each subspace gets the one that
    should be fastest. ``max_memory`` (bytes; default half this machine's memory) bounds the
    solved values held between checks (``HeldTiers``); a check's own reads are held whatever
    their size."""
    chosen = None if subspaces is None else parse_subspaces(subspaces)
    use_threads(threads)
    checks: list[SubspaceCheck] = []
    with Database(db_path, rules) as db:
        subs = db.tiers()
        if chosen is not None:
            lacking = [subspace_name(*t) for t in chosen if not db.has(*t)]
            if lacking:
                held = ", ".join(s.name for s in subs) or "none"
                raise SubspaceChoiceError(f"--subspace {', '.join(lacking)}: not in {db_path} (it holds {held})")
            subs = [s for s in subs if s.tier in chosen]
        history = readback = None
        if db.rules.reclose != "allowed":  # the history rule: the verify's own check of the moving phase's states
            readback = ReadBack(db)
            from .history import HistoryCheck

            history = HistoryCheck(db)
        budget = verify_budget(max_memory)
        run = _Run(db, method if method in (TWIN_WALK, MARKED_WALK, SWEEP) else None, [s.tier for s in subs if not s.placing], budget)
        check_tier = _TierCheck(db, method if method in (TIER_WALK, TIER_SWEEP, TIER_DIRECT) else None, [s.tier for s in subs if s.placing], budget).check
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=sum(s.positions for s in subs), unit="pos", unit_scale=True, desc="verify")
        try:
            for s in subs:
                if bar:
                    bar.set_postfix_str(s.name)
                t0 = time.perf_counter()
                threads_now = numba.get_num_threads()
                if s.slots < SERIAL_SLOTS:
                    numba.set_num_threads(1)
                try:
                    if history is not None and not s.placing:
                        h = history.check(s)
                        check = SubspaceCheck(s.name, s.positions, h.checksum_ok, h.mismatches, h.examples, error=h.error,
                                              method=f"states ({h.states:,}), forward")
                        if bar:
                            bar.update(s.positions)
                    else:
                        check = (check_tier if s.placing else run.check)(s, bar.update if bar else None)
                    if history is not None and not s.placing:
                        _history_evidence(check, s, readback)
                finally:
                    numba.set_num_threads(threads_now)
                check.seconds = time.perf_counter() - t0
                checks.append(check)
                if on_check:
                    on_check(check)
        finally:
            if bar:
                bar.close()
    return checks


def verify_budget(max_memory: int | None) -> int:
    """The bytes of values held between checks: ``max_memory``, by default half this machine's
    memory (the rest for the checks' own arrays, and whatever else runs)."""
    return machine_memory() // 2 if max_memory is None else max_memory


def _history_evidence(check: SubspaceCheck, s: SubspaceInfo, readback: ReadBack) -> None:
    """Under the history rule, the counts and evidence of the check of moving subspace ``s``:
    its values and side table, and those of the subspaces its moves reach, read back a piece at
    a time (``evidence.ReadBack``: each once a run)."""
    try:
        read = readback(s.tier)
        present = {x.tier for x in readback.db.tiers()}
        check.counted, check.states, check.values = read.counted, read.states, read.fingerprint
        check.positions = read.counted["positions"]
        check.wrong_counts = differences(stored_counts(s), read.counted) + differences(
            stored_states(s), read.states, "states' ")
        check.reads = readback.reads_digest(readback.db.rules, s.tier, present)
    except DatabaseError as e:
        check.error = check.error or str(e)


def _opened(s: SubspaceInfo, v: np.ndarray, held: HeldTiers) -> SubspaceCheck:
    """The check of ``s`` begun on its values ``v`` as loaded: their checksum (computed once a
    run, ``HeldTiers.checksum``) against the stored one, their counts against the stored
    statistics."""
    values = held.checksum(s.tier)
    counted = as_dict(count(v))
    return SubspaceCheck(s.name, counted["positions"], values == s.checksum, counted=counted,
                         wrong_counts=differences(stored_counts(s), counted), values=values)


def _sealed(check: SubspaceCheck, held: HeldTiers, reads: list[Tier]) -> SubspaceCheck:
    """``check`` with the digest of the checksums of the tiers it read, as loaded."""
    check.reads = reads_digest({x: held.checksum(x) for x in reads})
    return check


def checkable(rules: RuleSet, tiers: list[Tier]) -> list[Tier]:
    """Of ``tiers`` (what a database holds, perhaps one still being solved), those whose checks
    read only tiers among them, in their order. The rest wait for a later verify: a tier whose
    twin was not yet written when its solve was cut off, say. (Under the history rule a moving
    subspace's check reads what its moves reach of ``verify.history.reached``: ``moving_reads``.)"""
    present = set(tiers)
    moving = [t for t in tiers if not (t[2] or t[3])]
    placing = [t for t in tiers if t[2] or t[3]]
    ready = {reads[0] for reads in moving_reads(rules, moving) + tier_reads(rules, placing) if present.issuperset(reads)}
    return [t for t in tiers if t in ready]


def value_bytes(rules: RuleSet) -> Callable[[Tier], int]:
    """The bytes of a tier's values in memory (2 a slot), without reading them."""
    index = board_index(rules.board)
    return lambda t: 2 * index.slots(t[0], t[1])


def _held(db: Database, reads: list[list[Tier]], budget: int | None) -> HeldTiers:
    """The values that the checks read (``reads``: each check's, in order), within ``budget``."""
    return HeldTiers(lambda t: db.values(*t), reads, budget, value_bytes(db.rules), checksum)


def memory_plan(db_path: Path, rules: RuleSet | None = None, subspaces: Iterable[str] | None = None,
                max_memory: int | None = None) -> dict:
    """``morris verify --dry-run``: ``plan_checks`` for the subspaces of the database (or those of
    ``subspaces``); nothing but the database's list of subspaces is read."""
    chosen = None if subspaces is None else parse_subspaces(subspaces)
    with Database(db_path, rules) as db:
        subs = [s for s in db.tiers() if chosen is None or s.tier in chosen]
        rules = db.rules
    plan = plan_checks(rules, [s.tier for s in subs], max_memory)
    return {"database": str(db_path), "subspaces": len(subs), "positions": sum(s.positions for s in subs), **plan}


def plan_checks(rules: RuleSet, tiers: list[Tier], max_memory: int | None = None) -> dict:
    """For each phase of the checks of ``tiers`` (in ``Database.tiers``' order) that ``HeldTiers``
    serves (the moving phase, unless the history rule checks it a subspace at a time, and the tiers
    with men in hand): the checks, the most bytes of values held at once and where, and the bytes
    read from the database (tiers read back included), within ``max_memory`` (as ``verify``)."""
    budget = verify_budget(max_memory)
    size = value_bytes(rules)
    out: dict = {"budget_bytes": budget, "phases": []}
    moving = [t for t in tiers if t[2] == t[3] == 0]
    placing = [t for t in tiers if t[2] or t[3]]
    phases = [("tiers with men in hand", placing, tier_reads(rules, placing))]
    if rules.reclose == "allowed":
        phases.insert(0, ("moving phase", moving, moving_reads(rules, moving)))
    elif moving:
        out["history_subspaces"] = len(moving)  # checked one at a time, with what its moves reach
    for name, order, reads in phases:
        if order:
            plan = plan_reads(reads, size, budget)
            plan["peak_check"] = subspace_name(*order[plan["peak_check"]])
            out["phases"].append({"phase": name, "checks": len(order), **plan})
    return out


class _Run:
    """What the checks of the moving phase share: its tables, the values of the subspaces that
    later checks still read and their slots that are not draws (``HeldTiers``), and the sweep's
    marks. ``order``: the subspaces (as tiers) in the order they are checked."""

    def __init__(self, db: Database, method: str | None, order: list[Tier], budget: int | None):
        self.db, self.rules, self.method = db, db.rules, method
        self.index = board_index(self.rules.board)
        # (under the history rule the tiers with men in hand are plain positions, and the moving
        # phase is checked by history.check: the plain moves)
        self.g, self.ix = game_tables(replace(self.rules, reclose="allowed")), self.index.tables
        self.position = {t: i for i, t in enumerate(order)}
        self.held = _held(db, moving_reads(self.rules, order), budget)
        self.marks = np.zeros(0, dtype=np.uint8)  # reused: fresh pages cost a fault each
        self.nblocks = BLOCKS_PER_THREAD * numba.get_num_threads()

    def values(self, a: int, b: int) -> np.ndarray:
        return self.held((a, b, 0, 0))

    def check(self, s: SubspaceInfo, advance: Callable[[int], None] | None) -> SubspaceCheck:
        progress = _Progress(s.positions, advance)
        try:
            return self._check(s, progress)
        finally:
            progress.finish()
            self.held.done(self.position[s.tier])
            if self.position[s.tier] == len(self.position) - 1:
                self.marks = np.zeros(0, dtype=np.uint8)  # the tiers with men in hand have their own

    def _check(self, s: SubspaceInfo, progress: _Progress) -> SubspaceCheck:
        a, b = s.mover, s.opponent
        index, g, ix, nblocks = self.index, self.g, self.ix, self.nblocks
        try:
            v = self.values(a, b)
        except DatabaseError as e:
            return SubspaceCheck(s.name, 0, False, error=str(e))
        check = _opened(s, v, self.held)
        fewer = fewer_men_needed(self.rules, a, b)
        lacking = [f"{x}-{y}" for x, y in [(b, a), *fewer] if not self.db.has(x, y)]
        if lacking:
            check.missing = ", ".join(lacking)
            return check
        try:
            twin = self.values(b, a)
            fewer1, fewer2, fewer3 = (self.values(b - k, a) if (b - k, a) in fewer else NO_VALUES for k in (1, 2, 3))
        except DatabaseError as e:
            check.error = f"a subspace it needs is unreadable: {e}"
            return check
        # The kernels index these by slot without bounds checks: their lengths come first.
        arrays = [((a, b), v), ((b, a), twin)] + [((b - k, a), f) for k, f in ((1, fewer1), (2, fewer2), (3, fewer3))]
        for (x, y), arr in arrays:
            if arr is not NO_VALUES and arr.shape != (index.slots(x, y),):
                check.error = f"subspace {x}-{y} holds {arr.size:,} values, not the {index.slots(x, y):,} slots of its index"
                return check

        bad = np.full(MAX_LISTED, -1, dtype=np.int64)
        method, sources = self._plan(s, [twin, fewer1, fewer2, fewer3])
        check.method = method
        if method != TWIN_WALK:
            if self.marks.size < v.size:
                self.marks = np.zeros(v.size, dtype=np.uint8)
            marks = self.marks[: v.size]
            marks[:] = 0
            for k, src in sources:
                if k > 0 or method == SWEEP:  # the marked walk marks the moves without removal run by run
                    mark_predecessors(a, b, k, src, nblocks, marks, g, ix, False)
        if method == SWEEP:
            runs = int(index.rep_count[a])
            for r0, r1 in _chunks(runs, int(ix.binom[ix.n - a, b])):
                check.mismatches += int(
                    sweep(a, b, r0, r1, nblocks, v, marks, twin, fewer1, fewer2, fewer3, g, ix, bad, MAX_LISTED)
                )
                progress(r1, runs)
        else:
            skip = method == MARKED_WALK
            check.mismatches = int(check_duplicates(a, b, 0, int(index.rep_count[a]), nblocks, v, ix, bad, MAX_LISTED))
            runs = int(index.rep_count[b])  # the twin's orbit minima, each a run of C(n - b, a) slots
            for r0, r1 in _chunks(runs, int(ix.binom[ix.n - b, a])):
                check.mismatches += int(
                    verify_from_twin(
                        a, b, r0, r1, nblocks, skip, marks if skip else NO_MARKS, v, twin, fewer1, fewer2, fewer3,
                        g, ix, rank_tables(), True, bad, MAX_LISTED,
                    )
                )
                progress(r1, runs)
        check.examples = self._examples(s, v, twin, fewer1, fewer2, fewer3, bad)
        return _sealed(check, self.held, read_tiers(self.rules, s.tier, set()))

    def _plan(self, s: SubspaceInfo, successors: list[np.ndarray]) -> tuple[str, list[tuple[int, np.ndarray]]]:
        """How to check (a, b), and for the sweep and the marked walk the sources of their
        candidates: (k, the canonical slots of (b - k, a) that hold no draw) for each k.

        The twin walk where a removal leaves the opponent two men (a loss that no subspace
        stores: only the walk of every position sees it) or most positions are wins or losses
        (all are checked in full then); else the sweep where it would check at most SWEEP_SHARE
        of the positions in full (the wins and losses, and the candidates); else the marked walk
        where the candidates of the moves with a removal stay below REMOVAL_CANDIDATES a
        position; the twin walk elsewhere. ``self.method`` forces one where it can serve."""
        a, b = s.mover, s.opponent
        if self.method == TWIN_WALK or b - self.rules.most_removals(a) < 3:
            return TWIN_WALK, []
        if self.method is None and 2 * (s.win + s.loss) > s.positions:
            return TWIN_WALK, []
        sources = []
        by_move = by_removal = 0.0
        for k, values in enumerate(successors):
            if values is NO_VALUES:
                continue
            src = self.held.derived((b - k, a, 0, 0), lambda v, x=b - k, y=a: not_draws(x, y, v, self.nblocks, self.ix))
            sample = np.ascontiguousarray(src[:: max(1, src.size // SAMPLE_SOURCES)])
            if sample.size:
                counted = mark_predecessors(a, b, k, sample, self.nblocks, NO_MARKS, self.g, self.ix, True)
                if k == 0:
                    by_move += int(counted) * src.size / sample.size
                else:
                    by_removal += int(counted) * src.size / sample.size
            sources.append((k, src))
        if self.method is not None:
            return self.method, sources
        if s.win + s.loss + by_move + by_removal <= SWEEP_SHARE * s.positions:
            return SWEEP, sources
        if by_removal <= REMOVAL_CANDIDATES * s.positions:
            return MARKED_WALK, sources
        return TWIN_WALK, []

    def _examples(self, s, v, twin, fewer1, fewer2, fewer3, bad) -> list[str]:
        """The mismatched slots in words, each recomputed with the direct ``expected_value``."""
        a, b = s.mover, s.opponent
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        out = []
        for slot in bad[bad >= 0]:
            m, o = self.index.unrank(a, b, int(slot))
            if self.index.is_canonical(a, b, int(slot)):
                want = expected_value(m, o, buf, twin, fewer1, fewer2, fewer3, b, self.g, self.ix)
            else:
                want = DUP
            pos = format_position(Position(m, o, "w"), self.rules.board_data)
            out.append(
                f"{s.name} slot {int(slot)} ({pos}): stored {describe(int(v[slot]))}, successors give {describe(int(want))}"
            )
        return out


class _Progress:
    """Moves the bar by a subspace's positions in proportion to the runs done."""

    def __init__(self, positions: int, advance: Callable[[int], None] | None):
        self.positions, self.advance, self.done = positions, advance, 0

    def __call__(self, runs_done: int, runs: int) -> None:
        if self.advance:
            step = self.positions * runs_done // runs - self.done
            self.advance(step)
            self.done += step

    def finish(self) -> None:
        self(1, 1)


def _chunks(runs: int, per_run: int):
    """(r0, r1): runs of ``per_run`` slots, about CHUNK_SLOTS slots a chunk."""
    step = max(1, CHUNK_SLOTS // max(1, per_run))
    for r0 in range(0, runs, step):
        yield r0, min(runs, r0 + step)


class _TierCheck:
    """The tiers with men in hand, by their own forward check (``placing_kernels``): every
    canonical slot against the best over the stored values of its successors, listed by the
    rules' move generation and ranked by the index (the twin's too, where Lasker's moves lead
    there), DUP in the other slots. The values of the tiers it reads are held while a tier later
    in ``order`` still reads them, within ``budget`` (``HeldTiers``)."""

    def __init__(self, db: Database, method: str | None, order: list[Tier], budget: int | None):
        self.db, self.rules, self.method = db, db.rules, method
        self.index = board_index(self.rules.board)
        # (under the history rule the tiers with men in hand are plain positions, and the moving
        # phase is checked by history.check: the plain moves)
        self.g, self.ix = game_tables(replace(self.rules, reclose="allowed")), self.index.tables
        self.nblocks = BLOCKS_PER_THREAD * numba.get_num_threads()
        self.position = {t: i for i, t in enumerate(order)}
        self.held = _held(db, tier_reads(self.rules, order), budget)
        self.marks = np.zeros(0, dtype=np.uint8)  # reused: fresh pages cost a fault each
        # the most men one move removes: one a mill through the point a man arrives on (none under mill-wins)
        mills_through = int(np.count_nonzero(self.g.point_mills, axis=1).max())
        per_mill = self.rules.double_mill == "per-mill"
        self.most_removed = 0 if self.rules.mill_wins == "on" else (mills_through if per_mill else 1)

    def check(self, s: SubspaceInfo, advance: Callable[[int], None] | None) -> SubspaceCheck:
        progress = _Progress(s.positions, advance)
        try:
            return self._check(s, progress)
        finally:
            progress.finish()
            self.held.done(self.position[s.tier])

    def _check(self, s: SubspaceInfo, progress: _Progress) -> SubspaceCheck:
        t = s.tier
        a, b, ha, hb = t
        try:
            v = self.held(t)
        except DatabaseError as e:
            return SubspaceCheck(s.name, 0, False, error=str(e))
        check = _opened(s, v, self.held)
        reached = set(successors(self.rules, t))
        lacking = [subspace_name(*x) for x in sorted(reached) if not self.db.has(*x)]
        if lacking:
            check.missing = ", ".join(lacking)
            return check
        kinds = successor_kinds(t)
        try:
            succ = tuple(self.held(x) if x in reached else NO_VALUES for x in kinds)
        except DatabaseError as e:
            check.error = f"a tier it needs is unreadable: {e}"
            return check
        # The kernels index these by slot without bounds checks: their lengths come first.
        for x, arr in [(t, v), *zip(kinds, succ)]:
            if arr is not NO_VALUES and arr.shape != (self.index.slots(x[0], x[1]),):
                check.error = (
                    f"tier {subspace_name(*x)} holds {arr.size:,} values, not the "
                    f"{self.index.slots(x[0], x[1]):,} slots of its index"
                )
                return check

        g, ix, nblocks = self.g, self.ix, self.nblocks
        bad = np.full(MAX_LISTED, -1, dtype=np.int64)
        missed = 0
        method = check.method = self._plan(s, kinds, succ)
        if method == TIER_DIRECT:
            check.mismatches, missed = (int(x) for x in pk.verify_tier_direct(a, b, ha, hb, v, succ, g, ix, bad, MAX_LISTED))
        elif method == TIER_SWEEP:
            if self.marks.size < v.size:
                self.marks = np.zeros(v.size, dtype=np.uint8)
            marks = self.marks[: v.size]
            marks[:] = 0
            for args in self._sources(t, kinds, succ):
                pk.mark_tier_predecessors(*args, nblocks, marks, g, ix, False)
            items = pk.sweep_items(ix.n, a, b, int(self.index.rep_count[a]), ix.binom)
            step = max(1, CHUNK_SLOTS // min(pk.PIECE, int(ix.binom[ix.n - a, b])))  # items of about CHUNK_SLOTS slots
            for i0 in range(0, items, step):
                i1 = min(items, i0 + step)
                wrong, lost = pk.sweep_tier(a, b, ha, hb, i0, i1, nblocks, v, marks, succ, g, ix, bad, MAX_LISTED)
                check.mismatches += int(wrong)
                missed += int(lost)
                progress(i1, items)
        else:
            check.mismatches = int(check_duplicates(a, b, 0, int(self.index.rep_count[a]), nblocks, v, ix, bad, MAX_LISTED))
            items = pk.work_items(ix.n, a, b, int(self.index.rep_count[b]), ix.binom)
            step = max(1, CHUNK_SLOTS // min(pk.PIECE, int(ix.binom[ix.n - b, a])))  # items of about CHUNK_SLOTS slots
            for i0 in range(0, items, step):
                i1 = min(items, i0 + step)
                wrong, lost = pk.verify_tier_walk(a, b, ha, hb, i0, i1, nblocks, v, succ, g, ix, rank_tables(), pk.TABLED_FROM, True, bad, MAX_LISTED)
                check.mismatches += int(wrong)
                missed += int(lost)
                progress(i1, items)
        if missed:
            unexpected = sorted({x for x in kinds if x not in reached and min(x) >= 0 and x[0] + x[2] >= 3})
            check.error = (
                f"{missed} successors lie in tiers that the tiers module does not list among the successors of "
                f"{s.name} ({', '.join(subspace_name(*x) for x in unexpected) or 'none'})"
            )
        check.examples = self._examples(s, v, succ, bad)
        return _sealed(check, self.held, read_tiers(self.rules, t, set()))

    def _plan(self, s: SubspaceInfo, kinds, succ) -> str:
        """How to check tier ``s``: TIER_DIRECT only where forced; the sweep where it can serve
        (no move leaves the opponent fewer than 3 men: such a win is stored nowhere, and only the
        check of every position sees it) and would check at most SWEEP_SHARE of the positions in
        full (the wins and losses, and the candidates); the walk elsewhere."""
        a, b, ha, hb = s.tier
        if self.method in (TIER_DIRECT, TIER_WALK):
            return self.method
        if b + hb - self.most_removed < 3:
            return TIER_WALK
        if self.method == TIER_SWEEP:
            return TIER_SWEEP
        share = SWEEP_SHARE * s.positions
        if s.win + s.loss > share:
            return TIER_WALK
        counted = 0.0
        for *how, src in self._sources(s.tier, kinds, succ):
            sample = np.ascontiguousarray(src[:: max(1, src.size // SAMPLE_SOURCES)])
            if sample.size:
                found = pk.mark_tier_predecessors(*how, sample, self.nblocks, NO_MARKS, self.g, self.ix, True)
                counted += int(found) * src.size / sample.size
        return TIER_SWEEP if s.win + s.loss + counted <= share else TIER_WALK

    def _sources(self, t, kinds, succ) -> list[tuple]:
        """``mark_tier_predecessors``' first arguments for each successor tier: the canonical
        slots that hold no draw, and how moves reach them."""
        a, b, ha, hb = t
        flies = bool(self.g.opts[OPT_FLY]) and a + ha == 3  # generate_moves: popcount(me) + hand_me == 3
        out = []
        for kind, (x, values) in enumerate(zip(kinds, succ)):
            if values is NO_VALUES:
                continue
            src = self.held.derived(x, lambda v, x=x: not_draws(x[0], x[1], v, self.nblocks, self.ix))
            out.append((x[0], x[1], kind % pk.MOVE, kind < pk.MOVE, flies, src))
        return out

    def _examples(self, s, v, succ, bad) -> list[str]:
        """The mismatched slots in words, each recomputed with the direct ``expected_in_tier``."""
        a, b, ha, hb = s.tier
        g, ix = self.g, self.ix
        out = []
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        for slot in bad[bad >= 0]:
            m, o = self.index.unrank(a, b, int(slot))
            if self.index.is_canonical(a, b, int(slot)):
                want = pk.expected_in_tier(m, o, ha, hb, buf, succ, g, ix)
            else:
                want = DUP
            pos = format_position(Position.from_mover("w", m, o, ha, hb), self.rules.board_data)
            out.append(
                f"{s.name} slot {int(slot)} ({pos}): stored {describe(int(v[slot]))}, successors give {describe(int(want))}"
            )
        return out
