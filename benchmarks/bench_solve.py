"""Solver throughput: positions per second, peak memory and bytes per position.

    python benchmarks/bench_solve.py chain --max-men 5      # standard 3-3 ... 5-5, timed together
    python benchmarks/bench_solve.py pair 6 6 --db data/standard.h5   # one pair, its inputs present

A thin script over ``solver.engine.costs.bench``, which ``morris bench`` runs too. Positions are counted
up to symmetry (canonical slots); under each pair, the wall seconds of each step of its solve
(initialise, candidates, removals, schedule, predecessors, sorting, decisions). Times exclude numba
compilation (the kernels are compiled, or loaded from numba's cache, first). Results go to
benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from solver.engine.costs.bench import machine_line, run_bench
from solver.engine.order import pairs_up_to
from solver.jit import use_threads
from solver.rules import make_rules
from solver.storage.database import Database


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
    use_threads(args.threads)
    rules = make_rules(args.rules)
    print(machine_line())

    def show(row) -> None:
        print(row)
        print(row.phases_line())

    if args.what == "chain":
        report = run_bench(rules, pairs_up_to(args.max_men), on_row=show)
    else:
        report = run_bench(rules, [(args.a, args.b)], db=Database(args.db, rules), on_row=show)
    print(report)


if __name__ == "__main__":
    main()
