"""Solver throughput: positions per second, CPU time, peak memory and bytes per position.

Used by ``morris bench`` and ``benchmarks/bench_solve.py``. Nothing is written to disk; the
values of smaller subspaces stay in memory (or come from a database for a single pair).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...index import board_index
from ...rules.rulesets import RuleSet
from ...storage.database import Database
from ...tiers import pair_name
from ..held import SolvedValues
from ..pair import solve_pair, warm_up


@dataclass
class BenchRow:
    name: str
    positions: int
    wall: float
    cpu: float
    held_bytes: int
    phases: dict[str, float]  # wall seconds per step of the solve (pair.PHASES)

    @property
    def rate(self) -> float:
        return self.positions / self.wall if self.wall > 0 else 0.0

    def to_dict(self) -> dict:
        return {
            "pair": self.name, "positions": self.positions, "wall_s": round(self.wall, 3), "cpu_s": round(self.cpu, 3),
            "positions_per_s": round(self.rate), "held_bytes_per_position": round(self.held_bytes / self.positions, 3),
            "phases_s": {k: round(v, 3) for k, v in self.phases.items()},
        }

    def __str__(self) -> str:
        return (
            f"{self.name:>12}  {self.positions:>13,} pos  {self.wall:8.2f} s wall  {self.cpu:8.2f} s cpu  "
            f"{self.rate / 1e6:6.2f} M pos/s  {self.held_bytes / self.positions:5.2f} B/pos held"
        )

    def phases_line(self) -> str:
        """Where the wall time went (``pair.PHASES``)."""
        return " " * 12 + ", ".join(f"{k} {v:.1f} s" for k, v in self.phases.items())


@dataclass
class BenchReport:
    rows: list[BenchRow]
    rss_before_mib: float  # peak RSS once the kernels were compiled, before solving
    rss_peak_mib: float

    def to_dict(self) -> dict:
        positions = sum(r.positions for r in self.rows)
        wall = sum(r.wall for r in self.rows)
        return {
            "positions": positions, "wall_s": round(wall, 3), "cpu_s": round(sum(r.cpu for r in self.rows), 3),
            "positions_per_s": round(positions / wall) if wall > 0 else 0,
            "peak_rss_mib": round(self.rss_peak_mib), "rss_before_mib": round(self.rss_before_mib),
            "max_held_bytes_per_position": round(max(r.held_bytes / r.positions for r in self.rows), 3),
        }

    def __str__(self) -> str:
        d = self.to_dict()
        return (
            f"total: {d['positions']:,} positions in {d['wall_s']:.1f} s wall, {d['cpu_s']:.1f} s cpu: "
            f"{d['positions_per_s'] / 1e6:.2f} M positions/s; peak memory {self.rss_peak_mib:.0f} MiB "
            f"(before solving {self.rss_before_mib:.0f} MiB); most bytes/position held by a pair "
            f"{d['max_held_bytes_per_position']:.2f}"
        )


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_bench(
    rules: RuleSet,
    pairs: list[tuple[int, int]],
    db: Database | None = None,
    on_row: Callable[[BenchRow], None] | None = None,
) -> BenchReport:
    """Solve ``pairs`` in memory, in order, timing each; the kernels are compiled first."""
    index = board_index(rules.board)
    values = SolvedValues(db.values if db is not None else None)
    warm_up()
    rss_before = peak_rss_mib()
    rows = []
    for i, (a, b) in enumerate(pairs):
        values.keep_for(rules, pairs[i:])
        t, c = time.perf_counter(), time.process_time()
        results = solve_pair(rules, index, a, b, values)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        values.keep_for(rules, pairs[i + 1 :], [(r.mover, r.opponent, r.values) for r in results])
        row = BenchRow(
            pair_name(a, b), sum(r.positions for r in results), wall, cpu, results[0].held_bytes,
            results[0].phases,
        )
        rows.append(row)
        if on_row:
            on_row(row)
    return BenchReport(rows, rss_before, peak_rss_mib())


def chain_positions(rules: RuleSet, pairs: list[tuple[int, int]]) -> int:
    """Positions of ``pairs`` (both halves of each), up to symmetry: the work of solving them."""
    from ...index.counting import subspace_positions

    return sum(
        subspace_positions(rules.board, a, b) + (0 if a == b else subspace_positions(rules.board, b, a)) for a, b in pairs
    )


def machine_line() -> str:
    import os
    import platform

    import numba

    return (
        f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{numba.get_num_threads()} threads, numba {numba.__version__}, {time.strftime('%Y-%m-%d')}"
    )
