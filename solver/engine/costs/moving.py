"""What a run will cost before it starts: positions, memory, disk and time, pair by pair.

The memory of a pair is what ``pair.solve_pair`` allocates (its working arrays per slot, the
predecessor buffer) plus the solved subspaces held for it and for later pairs (``SolvedValues``
with ``keep_for``, simulated here the same way), plus the process itself and the board's index
tables. Working arrays are counted in full even where the operating system would leave pages of
them untouched, so the peak is an upper bound. Disk is at most 2 bytes a slot (values are stored
gzip-compressed, usually to well under that).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ...index import board_index
from ...index.counting import subspace_positions
from ...machine import machine_memory
from ...rules.rulesets import RuleSet, get_rules
from ...tiers import pair_name
from ..order import pair_inputs, pairs_up_to, still_needed
from ..pair import BLOCK, SCHEDULE_BYTES_PER_SLOT, WORKING_BYTES_PER_SLOT

# The process with its kernels compiled and the 24-point index tables built (measured: about
# 330 MiB of resident memory on Linux with numba 0.6x; the tables alone are 2^n * 4 bytes).
PROCESS_BYTES = 400 << 20
VALUE_BYTES = 2  # a stored value (uint16) per slot


@dataclass
class PairPlan:
    pair: str
    subspaces: list[dict]  # {"subspace", "positions", "slots"} per half
    positions: int
    slots: int
    working_bytes: int  # the pair's own arrays while it is solved
    input_bytes: int  # solved subspaces held in memory meanwhile (for this pair and later ones)
    peak_bytes: int  # process + index + working + inputs
    disk_bytes: int  # at most
    done: bool  # already in the database: skipped
    seconds: float | None = None  # estimated; None for a pair that is done

    def to_dict(self) -> dict:
        return dict(asdict(self), event="pair")


@dataclass
class RunPlan:
    rules: RuleSet
    pairs: list[PairPlan]
    memory_bytes: int  # what this machine has
    rate: float | None  # positions per second the time estimate assumes where no reference time does
    rate_source: str
    notes: list[str] = field(default_factory=list)
    speed: float | None = None  # this machine's seconds per second of the reference run
    speed_source: str = ""
    # this machine's alone, where ``speed`` also scales for another rule set (``borrowed_reference``)
    machine_speed: float | None = None
    by_rate: int = 0  # pairs to solve that the reference lacks, timed at ``rate``
    busy: str = ""  # where other work held the cores while this machine was timed, a clause saying so

    @property
    def todo(self) -> list[PairPlan]:
        return [p for p in self.pairs if not p.done]

    @property
    def peak(self) -> PairPlan | None:
        return max(self.todo, key=lambda p: p.peak_bytes, default=None)

    @property
    def peak_bytes(self) -> int:
        """The peak of the largest pair to solve (0 where nothing is left to solve)."""
        peak = self.peak
        return peak.peak_bytes if peak else 0

    @property
    def positions_to_solve(self) -> int:
        return sum(p.positions for p in self.todo)

    def fits(self) -> bool:
        peak = self.peak
        return peak is None or peak.peak_bytes <= self.memory_bytes

    def to_dict(self) -> dict:
        todo = self.todo
        peak = self.peak
        return {
            "event": "plan",
            "rules": self.rules.to_dict(),
            "subspaces": [s for p in self.pairs for s in p.subspaces],
            "positions": sum(p.positions for p in self.pairs),
            "positions_to_solve": self.positions_to_solve,
            "peak_bytes": self.peak_bytes,
            "peak_pair": peak.pair if peak else None,
            "memory_bytes": self.memory_bytes,
            "fits": self.fits(),
            "disk_bytes": sum(p.disk_bytes for p in self.pairs),
            "seconds": round(sum(p.seconds or 0 for p in todo), 1) if self.rate or self.speed else None,
            "rate_positions_per_s": round(self.rate) if self.rate else None,
            "rate_source": self.rate_source,
            "reference_factor": round(self.speed, 3) if self.speed else None,
            "reference_source": self.speed_source,
            "pairs_by_rate": self.by_rate,
        }


def plan_run(
    rules: RuleSet,
    pairs: list[tuple[int, int]],
    done: set[tuple[int, int]] = frozenset(),
    rate: float | None = None,
    rate_source: str = "no measured rate",
    memory_bytes: int | None = None,
    speed: float | None = None,
    speed_source: str = "",
    reference: dict[str, float] | None = None,
) -> RunPlan:
    """The cost of solving ``pairs`` in order; subspaces in ``done`` are in the database already.
    A pair's time is its time in the recorded reference run times ``speed`` (``reference_factor``),
    where the rules are the reference's and it has the pair (or its time in ``reference``, another
    rule set's borrowed from it: ``borrowed_reference``); otherwise its positions at ``rate``
    (positions per second)."""
    if reference is None:
        reference = reference_seconds(rules) if speed else {}
    index = board_index(rules.board)
    n = index.n
    base = PROCESS_BYTES + (1 << n) * 4
    held: set[tuple[int, int]] = set()
    out = []
    for i, (a, b) in enumerate(pairs):
        halves = [(a, b)] if a == b else [(a, b), (b, a)]
        subs = [
            {"subspace": f"{x}-{y}", "positions": subspace_positions(rules.board, x, y), "slots": index.slots(x, y)}
            for x, y in halves
        ]
        slots = sum(s["slots"] for s in subs)
        positions = sum(s["positions"] for s in subs)
        is_done = all(h in done for h in halves)
        if not is_done:
            held = (held & still_needed(rules, pairs[i:])) | set(pair_inputs(rules, a, b))
        width = max(y * (n - x - y) + 1 for x, y in halves)  # predecessors of one frontier position
        # per frontier block: the slots (uint32), predecessor rows (width uint32) and their counts
        # (int64), the predecessors sorted by slot range and the late losses (width uint32 each)
        buffers = BLOCK * (4 + 4 * width + 8 + 2 * 4 * width)
        working = int(slots * (WORKING_BYTES_PER_SLOT + SCHEDULE_BYTES_PER_SLOT)) + buffers
        inputs = sum(index.slots(x, y) * VALUE_BYTES for x, y in held)
        out.append(
            PairPlan(
                pair=pair_name(a, b), subspaces=subs, positions=positions, slots=slots,
                working_bytes=working, input_bytes=inputs, peak_bytes=base + working + inputs,
                disk_bytes=slots * VALUE_BYTES, done=is_done,
                seconds=None if is_done else _seconds(pair_name(a, b), positions, reference, speed, rate),
            )
        )
        if not is_done:
            held = (held | set(halves)) & still_needed(rules, pairs[i + 1 :])
    by_rate = sum(1 for p in out if not p.done and p.pair not in reference)
    return RunPlan(
        rules, out, memory_bytes or machine_memory(), rate, rate_source, speed=speed, speed_source=speed_source, by_rate=by_rate
    )


def _seconds(name, positions, reference, speed, rate) -> float | None:
    if name in reference:
        return round(reference[name] * speed, 1)
    return round(positions / rate, 1) if rate else None


def reference_seconds(rules: RuleSet) -> dict[str, float]:
    """Wall seconds per pair of the recorded reference run, for its rule set only."""
    from . import reference_run

    return dict(reference_run.SECONDS) if rules.describe() == reference_run.RULES else {}


def reference_factor(rules: RuleSet, seconds: dict[str, float]) -> tuple[float | None, str]:
    """How this machine compares with the reference run: the total of ``seconds`` (pair name ->
    wall seconds measured here) over the reference's total on the same pairs."""
    from . import reference_run

    ref = reference_seconds(rules)
    common = [name for name, t in seconds.items() if name in ref and t > 0 and ref[name] > 0]
    if not common:
        return None, ""
    factor = sum(seconds[n] for n in common) / sum(ref[n] for n in common)
    return factor, f"from {len(common)} pairs timed here; reference: {reference_run.HOST}"


def borrows_reference(rules: RuleSet) -> bool:
    """Whether a plan of ``rules`` takes its times from the reference run of another rule set
    (``borrowed_reference``): one the reference did not solve, on a board of as many points."""
    from . import reference_run

    return not reference_seconds(rules) and rules.board_data.n == get_rules(reference_run.RULES).board_data.n


def borrowed_reference(
    rules: RuleSet, timed: dict[str, float], standard_timed: dict[str, float], men: int
) -> tuple[float, float, str, dict[str, float], float] | None:
    """For a rule set on the reference's board that the reference run did not solve: (speed,
    this machine's speed alone, the speed's source, the reference's seconds per pair for this rule
    set's positions, the rate for the pairs it lacks), from the chain to ``men`` men timed here
    under these rules (``timed``) and under the reference's (``standard_timed``). The speed is this machine's against the reference times
    these rules' against the reference's on the chain; the pairs the reference lacks (more men)
    go at its rate per position on its pairs with the most men, scaled the same way. The small
    pairs of the chain measure mostly what every pair costs to set up, so the factor for the
    rules is a guide, not a measure of the large pairs. None where the chains share no pair."""
    from . import reference_run

    standard = get_rules(reference_run.RULES)
    machine, _ = reference_factor(standard, standard_timed)
    common = [n for n, t in timed.items() if t > 0 and standard_timed.get(n, 0) > 0]
    if machine is None or not common or not borrows_reference(rules):
        return None
    ratio = sum(timed[n] for n in common) / sum(standard_timed[n] for n in common)
    reference, top = {}, []
    for a, b in pairs_up_to(standard.men):
        name = pair_name(a, b)
        if name not in reference_run.SECONDS:
            continue
        halves = [(a, b)] if a == b else [(a, b), (b, a)]
        ours = sum(subspace_positions(rules.board, x, y) for x, y in halves)
        theirs = sum(subspace_positions(standard.board, x, y) for x, y in halves)
        reference[name] = reference_run.SECONDS[name] * ours / theirs
        if a + b >= 2 * standard.men - 1:
            top.append((theirs, reference_run.SECONDS[name]))
    speed = machine * ratio
    rate = sum(p for p, _ in top) / sum(t for _, t in top) / speed
    source = (
        f"the {reference_run.RULES} game's reference run x {machine:.2f} for this machine and x {ratio:.2f} for "
        f"these rules, both timed on the chain to {men} men; "
        f"reference: {reference_run.HOST}"
    )
    return speed, machine, source, reference, rate


def measured_rate(db) -> tuple[float | None, str]:
    """Positions per second of the largest pair the database holds with a stored solving time
    (larger pairs usually run slower: the estimate is then a lower bound on the time)."""
    timed = [s for s in db.subspaces() if s.seconds > 0]
    if not timed:
        return None, "no solved pair in the database to measure a rate on"
    top = max(timed, key=lambda s: (s.mover + s.opponent, s.slots))
    a, b = top.mover, top.opponent
    halves = [s for s in timed if {s.mover, s.opponent} == {a, b}]
    positions = sum(s.positions for s in halves)
    return positions / top.seconds, f"the rate of pair {pair_name(min(a, b), max(a, b))} in the database"
