"""Solver throughput: positions per second, peak memory and bytes per position.

    python benchmarks/bench_solve.py chain --max-men 5      # standard 3-3 ... 5-5, timed together
    python benchmarks/bench_solve.py pair 6 6 --db data/standard.h5   # one pair, its inputs present

``morris bench`` runs the same chain measurement. Positions are counted up to symmetry (canonical
slots). Times exclude numba compilation: the kernels are compiled (or loaded from numba's cache)
on 3-3 first. Results go to benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numba

from solver.bench import bench_pairs, peak_rss_mib, summary, warm_up
from solver.rules import make_rules
from solver.solve import pairs_up_to
from solver.storage import Database


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
    print(
        f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{numba.get_num_threads()} threads, numba {numba.__version__}, {time.strftime('%Y-%m-%d')}"
    )
    warm_up(rules)
    rss0 = peak_rss_mib()
    if args.what == "chain":
        rows = bench_pairs(rules, pairs_up_to(args.max_men))
    else:
        rows = bench_pairs(rules, [(args.a, args.b)], db=Database(args.db, rules))
    print(summary(rows, rss0))


if __name__ == "__main__":
    main()
