"""Solver throughput: positions per second, CPU time, peak memory and bytes per position.

Used by ``morris bench`` and ``benchmarks/bench_solve.py``. Nothing is written to disk; the
values of smaller subspaces stay in memory (or come from a database for a single pair).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .engine import solve_pair
from .index import board_index
from .rules import RuleSet
from .storage import Database


@dataclass
class BenchRow:
    name: str
    positions: int
    wall: float
    cpu: float
    held_bytes: int

    @property
    def rate(self) -> float:
        return self.positions / self.wall if self.wall > 0 else 0.0


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Values:
    """Values of smaller subspaces: from this run, else from a database."""

    def __init__(self, db: Database | None):
        self.db = db
        self.cache: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, x: int, y: int) -> np.ndarray:
        if (x, y) not in self.cache:
            if self.db is None:
                raise KeyError(f"subspace {x}-{y} is needed but neither solved here nor in a database")
            self.cache[(x, y)] = self.db.values(x, y)
        return self.cache[(x, y)]


def warm_up(rules: RuleSet) -> None:
    """Compile (or load from numba's cache) the kernels, so that timings exclude it."""
    solve_pair(rules, board_index(rules.board), 3, 3, lambda x, y: None)


def bench_pairs(
    rules: RuleSet,
    pairs: list[tuple[int, int]],
    db: Database | None = None,
    echo: Callable[[str], None] = print,
) -> list[BenchRow]:
    index = board_index(rules.board)
    values = _Values(db)
    rows = []
    for a, b in pairs:
        t, c = time.perf_counter(), time.process_time()
        results = solve_pair(rules, index, a, b, values)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        for r in results:
            values.cache[(r.mover, r.opponent)] = r.values
        # Only the last two totals of men are needed for removals.
        for key in [k for k in values.cache if sum(k) < a + b - 2]:
            del values.cache[key]
        row = BenchRow(
            f"{a}-{b}" + ("" if a == b else f" + {b}-{a}"), sum(r.positions for r in results), wall, cpu, results[0].held_bytes
        )
        rows.append(row)
        echo(
            f"{row.name:>10}  {row.positions:>13,} pos  {wall:8.2f} s wall  {cpu:8.2f} s cpu  "
            f"{row.rate / 1e6:6.2f} M pos/s  {row.held_bytes / row.positions:5.2f} B/pos held"
        )
    return rows


def summary(rows: list[BenchRow], rss_before: float) -> str:
    positions = sum(r.positions for r in rows)
    wall = sum(r.wall for r in rows)
    cpu = sum(r.cpu for r in rows)
    return (
        f"total: {positions:,} positions in {wall:.1f} s wall, {cpu:.1f} s cpu: "
        f"{positions / wall / 1e6:.2f} M positions/s; peak memory {peak_rss_mib():.0f} MiB "
        f"(before solving {rss_before:.0f} MiB); most bytes/position held by a pair "
        f"{max(r.held_bytes / r.positions for r in rows):.2f}"
    )
