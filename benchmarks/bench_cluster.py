"""A Dask cluster against one process: the same plan, the same database, the wall time of each.

    python benchmarks/bench_cluster.py --max-men 6                  # moving phase, local:2 vs one process
    python benchmarks/bench_cluster.py --whole-game --rules six     # a whole game
    python benchmarks/bench_cluster.py --max-men 6 --cluster local:1 --cluster local:2
    python benchmarks/bench_cluster.py --max-men 6 --threads 1     # each worker on one core

Solves into fresh temporary databases: once in this process (``solver.engine.run.solve`` or
``whole.solve_whole``, every core), then once per ``--cluster`` (``solver.engine.cluster``: a new
``LocalCluster``, its start and the workers' loading of compiled kernels included, as a user of
``morris solve --cluster`` waits for them). Prints each run's wall time, its speed-up against the
single process, and whether every subspace's checksum equals the single process's. Results go to
benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from solver.engine import pair, placing, run
from solver.engine.cluster import solve_on_cluster
from solver.engine.costs.bench import machine_line
from solver.engine.order import moving_jobs, whole_game_jobs
from solver.engine.run import solve
from solver.rules import make_rules
from solver.storage.database import Database

quiet = {"echo": lambda line: None}


def checksums(path: Path) -> dict[str, str]:
    with Database(path) as db:
        return {s.name: s.checksum for s in db.tiers()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="standard")
    p.add_argument("-o", "--option", action="append", default=[], help="NAME=VALUE (repeatable)")
    p.add_argument("--max-men", type=int, default=6)
    p.add_argument("--whole-game", action="store_true")
    p.add_argument("--cluster", action="append", default=[], help="a --cluster spec (repeatable) [default: local:2]")
    p.add_argument("--threads", type=int, default=None, help="numba threads per worker [default: every core]")
    args = p.parse_args()
    rules = make_rules(args.rules, args.option or None)
    jobs = whole_game_jobs(rules) if args.whole_game else moving_jobs(rules, args.max_men)
    what = "whole game" if args.whole_game else f"moving phase to {args.max_men} men"
    print(f"{machine_line()}\n{rules.describe()}, {what}: {len(jobs)} jobs")
    pair.warm_up()
    placing.warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.h5"
        t0 = time.perf_counter()
        if args.whole_game:
            rows = run.solve_whole(rules, one, progress=False, **quiet)
        else:
            rows = solve(rules, args.max_men, one, progress=False, **quiet)
        base = time.perf_counter() - t0
        positions = sum(r.stats["positions"] for r in rows)
        print(f"one process: {base:.1f} s wall, {positions:,} positions ({positions / base / 1e6:.2f} M/s)")
        want = checksums(one)
        for i, spec in enumerate(args.cluster or ["local:2"]):
            path = Path(tmp) / f"cluster{i}.h5"
            t0 = time.perf_counter()
            solve_on_cluster(rules, jobs, path, spec, threads=args.threads, **quiet)
            wall = time.perf_counter() - t0
            same = "identical" if checksums(path) == want else "DIFFERENT"
            print(f"--cluster {spec}: {wall:.1f} s wall, speed-up {base / wall:.2f}x; checksums {same}")


if __name__ == "__main__":  # (Dask's worker processes import this file again)
    main()
