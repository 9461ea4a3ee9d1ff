"""What the placing phase of a whole game will cost: positions, memory, disk and time, by men in hand.

A group's memory is what ``placing.solve_group`` allocates per slot (the values), plus for a group
where moves cycle (Lasker's rule) what the solved successors give and the count of its moves
inside the group per slot (``kernels.cycles``), and the summaries of one part of a tier at a time;
or, where the rules take the explicit graph (a blocked side passes), the summaries per slot, the
graph's pointers, the reversed graph and the level buckets per slot, and two numbers per internal
move. Plus the solved tiers held for it and later groups (``held.TierValues``, simulated the
same way). Disk is at most 2 bytes a slot.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from ...index import board_index
from ...index.counting import subspace_positions
from ...machine import machine_memory
from ...rules.rulesets import RuleSet
from ...tiers import needed_by
from ..held import over_budget
from ..kernels import cycles
from ..order import placing_groups
from ..placing import PART, implicit_cycles
from .moving import PROCESS_BYTES, VALUE_BYTES

PASS_BYTES_PER_SLOT = 2  # the values
SUMMARY_BYTES_PER_SLOT = 4 + 2 + 2  # nint, win_at, loss_at: where moves cycle
# ext and count beside the values, where moves cycle (``kernels.cycles``), and each block's lowest
# level and what the other threads schedule in it (two uint16 a block of ``cycles.BLOCK`` slots)
CYCLE_BYTES_PER_SLOT = 2 + 1 + 4 / cycles.BLOCK
GRAPH_BYTES_PER_SLOT = 8 + 8 + 8 + 1 + 2 * 16  # pointers, reversed pointers, fill, state, bucket entries
GRAPH_BYTES_PER_EDGE = 8 + 8  # a successor and a predecessor
# Positions per second of the placing phase on the machine of the recorded reference run
# (``reference_run.HOST``), reading and writing the tiers included: the whole 9-men game
# (2026-11-25, the placement pass) placed 17.8 G positions in
# 1,608 s on the Intel host (11.1 M/s; its kernels alone 16.7 M/s), which runs the moving
# pairs 1.2x slower than the reference host: 13 M/s there. ``speed`` scales it to this machine.
REFERENCE_RATE = 13.0e6
# A cycling group (Lasker's rule) costs more per position: its moves are judged beside its
# placements, then its levels run, and those grow dearer with the group: lasker -o men=5 ran at
# 11.0 M positions/s, men=6 (135 groups, 588 M positions) at 7.20 M (benchmarks/bench_cycles.py,
# 2026-11-27), against the placement pass's 17 M on the standard board's
# men=5 tiers (2026-11-26), on the same host. The larger groups' figure is taken; the 10-men
# groups, larger still, may run slower.
CYCLE_SLOWDOWN = 17.0 / 7.20


@dataclass
class PlacingPlan:
    rules: RuleSet
    extended: bool
    groups: int
    rows: list[dict]  # per total of men in hand: tiers, positions, slots, peak_bytes, disk_bytes, seconds, done
    memory_bytes: int
    peak_bytes: int
    peak_group: str | None
    rate: float
    rate_source: str
    hold_bytes: int | None = None  # what the run may hold for later groups (``held.TierValues``'s budget)
    notes: list[str] = field(default_factory=list)

    @property
    def positions_to_solve(self) -> int:
        return sum(r["positions_to_solve"] for r in self.rows)

    def fits(self) -> bool:
        return self.peak_bytes <= self.memory_bytes

    def to_dict(self) -> dict:
        todo = [r for r in self.rows if not r["done"]]
        return {
            "event": "placing plan",
            "extended": self.extended,
            "groups": self.groups,
            "tiers": sum(r["tiers"] for r in self.rows),
            "positions": sum(r["positions"] for r in self.rows),
            "positions_to_solve": self.positions_to_solve,
            "slots": sum(r["slots"] for r in self.rows),
            "peak_bytes": self.peak_bytes,
            "peak_group": self.peak_group,
            "memory_bytes": self.memory_bytes,
            "fits": self.fits(),
            "disk_bytes": sum(r["disk_bytes"] for r in self.rows),
            "seconds": round(sum(r["seconds"] or 0 for r in todo), 1),
            "rate_positions_per_s": round(self.rate),
            "rate_source": self.rate_source,
        }


def internal_moves(rules: RuleSet, n: int, t) -> int:
    """An upper bound on the moves of one position of tier t that stay in its group: each man
    slides to at most 4 neighbours (5 on the diagonal board), or flies to any empty point."""
    a, b, ha, hb = t
    if rules.flying == "at-3" and a + ha == 3:
        return a * (n - a - b)
    return a * (5 if rules.board == "diagonal" else 4) + 1


def group_working_bytes(rules: RuleSet, index, g) -> int:
    """What solving group ``g`` allocates beyond the tiers it reads."""
    slots = sum(index.slots(t[0], t[1]) for t in g.tiers)
    working = slots * PASS_BYTES_PER_SLOT
    if g.cycles and implicit_cycles(rules):
        part = min(PART, max(index.slots(t[0], t[1]) for t in g.tiers))
        working += int(slots * CYCLE_BYTES_PER_SLOT) + part * SUMMARY_BYTES_PER_SLOT
    elif g.cycles:
        edges = sum(index.slots(t[0], t[1]) * internal_moves(rules, index.n, t) for t in g.tiers)
        working += slots * (SUMMARY_BYTES_PER_SLOT + GRAPH_BYTES_PER_SLOT) + edges * GRAPH_BYTES_PER_EDGE
    return working


def plan_placing(
    rules: RuleSet,
    extended: bool = False,
    done: set = frozenset(),
    memory_bytes: int | None = None,
    speed: float | None = None,
) -> PlacingPlan:
    """The cost of the placing groups of a whole game (``order.placing_groups``); tiers in
    ``done`` are in the database already. Time: positions at ``REFERENCE_RATE`` times ``speed``
    (this machine's seconds per second of the reference run), or at the reference rate as it is."""
    index = board_index(rules.board)
    n = index.n
    groups = placing_groups(rules, extended)
    base = PROCESS_BYTES + (1 << n) * 4
    rate = REFERENCE_RATE / speed if speed else REFERENCE_RATE
    source = (
        f"{REFERENCE_RATE / 1e6:.1f} M positions/s on the reference machine"
        + (f" x {speed:.2f} for this one" if speed else " (this machine not timed)")
    )
    held: set = set()
    rows: dict[int, dict] = {}
    peak, peak_group = base, None
    memory = memory_bytes or machine_memory()
    reads = [set(needed_by(rules, g)) for g in groups]
    tier_bytes = {t: index.slots(t[0], t[1]) * VALUE_BYTES for r in reads for t in r}
    readers: dict = {}  # tier -> the indices of the groups that read it, in order
    for i, r in enumerate(reads):
        for t in r:
            readers.setdefault(t, []).append(i)
    todo = [i for i, g in enumerate(groups) if not all(t in done for t in g.tiers)]
    # the tiers held for later groups stay within what the largest group leaves (``hold_bytes``)
    work = [group_working_bytes(rules, index, g) for g in groups]
    alone = max((work[i] + sum(tier_bytes[t] for t in reads[i]) for i in todo), default=0)
    hold = max(0, memory - base - alone)
    for i, g in enumerate(groups):
        slots = sum(index.slots(t[0], t[1]) for t in g.tiers)
        positions = sum(subspace_positions(rules.board, t[0], t[1]) for t in g.tiers)
        is_done = all(t in done for t in g.tiers)
        if not is_done:
            held = {t for t in held if readers[t][-1] >= i} | reads[i]
        working = work[i]
        inputs = sum(tier_bytes[t] for t in held)
        if not is_done and base + working + inputs > peak:
            peak, peak_group = base + working + inputs, g.name
        hands = g.tiers[0][2] + g.tiers[0][3]
        row = rows.setdefault(
            hands,
            {"hands": hands, "tiers": 0, "positions": 0, "positions_to_solve": 0, "slots": 0, "peak_bytes": base,
             "disk_bytes": 0, "seconds": 0.0, "done": True},
        )
        row["tiers"] += len(g.tiers)
        row["positions"] += positions
        row["slots"] += slots
        row["disk_bytes"] += slots * VALUE_BYTES
        if not is_done:
            row["done"] = False
            row["positions_to_solve"] += positions
            row["peak_bytes"] = max(row["peak_bytes"], base + working + inputs)
            row["seconds"] = round(row["seconds"] + positions / rate * (CYCLE_SLOWDOWN if g.cycles else 1.0), 1)
        if not is_done:  # as ``held.TierValues.keep_for`` after the group
            first = {t: _next_reader(readers[t], i + 1) - (i + 1) for t in held | set(g.tiers) if t in readers}
            held = {t for t, f in first.items() if f >= 0}
            held -= set(over_budget({t: tier_bytes[t] for t in held}, first, hold))
    return PlacingPlan(
        rules, extended, len(groups), [rows[h] for h in sorted(rows)], memory, peak, peak_group, rate, source,
        hold_bytes=hold,
    )


def _next_reader(indices: list[int], i: int) -> int:
    """The first of the sorted ``indices`` from ``i`` on, or -1 where none is."""
    k = bisect_left(indices, i)
    return indices[k] if k < len(indices) else -1

