"""Solver throughput: positions per second, peak memory and bytes per position.

    python benchmarks/bench_solve.py chain --max-men 5      # standard 3-3 ... 5-5, timed together
    python benchmarks/bench_solve.py pair 6 6 --db data/standard.h5   # one pair, its inputs present

Positions are counted up to symmetry (canonical slots). Times exclude numba compilation: the
kernels are compiled (or loaded from numba's cache) on a tiny subspace first. Results go to
benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from pathlib import Path

import numba
import numpy as np

from solver.engine import solve_pair
from solver.index import board_index
from solver.rules import make_rules
from solver.solve import pairs_up_to
from solver.storage import Database


def warm_up(rules) -> None:
    solve_pair(rules, board_index(rules.board), 3, 3, lambda x, y: None)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_pairs(rules, pairs, solved) -> list:
    index = board_index(rules.board)
    rows = []
    for a, b in pairs:
        t = time.perf_counter()
        c = time.process_time()
        results = solve_pair(rules, index, a, b, solved)
        wall = time.perf_counter() - t
        cpu = time.process_time() - c
        for r in results:
            solved.cache[(r.mover, r.opponent)] = r.values
        positions = sum(r.positions for r in results)
        rows.append((f"{a}-{b}" + ("" if a == b else f" + {b}-{a}"), positions, wall, cpu, results[0].held_bytes))
        print(f"{rows[-1][0]:>10}  {positions:>12,} pos  {wall:7.2f} s wall  {cpu:7.2f} s cpu  "
              f"{positions / wall / 1e6:6.2f} M pos/s  {results[0].held_bytes / positions:5.2f} B/pos held", flush=True)
    return rows


class Solved:
    """Values of smaller subspaces: from this run, else from a database."""

    def __init__(self, db: Database | None):
        self.db = db
        self.cache: dict = {}

    def __call__(self, x: int, y: int) -> np.ndarray:
        if (x, y) not in self.cache:
            self.cache[(x, y)] = self.db.values(x, y)
        return self.cache[(x, y)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["chain", "pair"])
    p.add_argument("a", nargs="?", type=int)
    p.add_argument("b", nargs="?", type=int)
    p.add_argument("--max-men", type=int, default=5)
    p.add_argument("--rules", default="standard")
    p.add_argument("--db", type=Path, help="database holding the subspaces a pair removes into")
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args()
    if args.threads:
        numba.set_num_threads(args.threads)
    rules = make_rules(args.rules)
    print(f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{numba.get_num_threads()} threads, numba {numba.__version__}, {time.strftime('%Y-%m-%d')}")
    warm_up(rules)
    if args.what == "chain":
        pairs = pairs_up_to(args.max_men)
        solved = Solved(None)
    else:
        pairs = [(args.a, args.b)]
        solved = Solved(Database(args.db, rules))
    rss0 = peak_rss_mib()
    t = time.perf_counter()
    c = time.process_time()
    rows = run_pairs(rules, pairs, solved)
    wall = time.perf_counter() - t
    cpu = time.process_time() - c
    positions = sum(r[1] for r in rows)
    print(f"total: {positions:,} positions in {wall:.1f} s wall, {cpu:.1f} s cpu: "
          f"{positions / wall / 1e6:.2f} M positions/s; peak memory {peak_rss_mib():.0f} MiB "
          f"(before solving {rss0:.0f} MiB); most bytes/position held by a pair "
          f"{max(r[4] / r[1] for r in rows):.2f}")


if __name__ == "__main__":
    main()
