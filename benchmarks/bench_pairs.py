"""Moving-phase pairs re-solved from a solved database, timed, and checked against published checksums.

    python benchmarks/bench_pairs.py --db data/standard.h5 --checksums tests/data/checksums/standard-9.json 3-8 3-9 4-9

Each pair (a-b: both halves, or one where a = b) is solved by ``solve_pair`` from the smaller
subspaces stored in ``--db`` (nothing is written), after the kernels are compiled; prints its wall
and CPU seconds with the steps' times, positions per second, and whether each half's checksum
equals the one published. Run it from two work trees (``benchmarks/ab.sh``) to compare commits.
Not a test.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from solver.engine import pair
from solver.index import board_index
from solver.storage.database import Database
from solver.storage.files import checksum


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pairs", nargs="+", help="a-b")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--checksums", type=Path, required=True)
    args = p.parse_args()
    published = json.loads(args.checksums.read_text())
    pair.warm_up()
    with Database(args.db) as db:
        rules = db.rules
        index = board_index(rules.board)
        for name in args.pairs:
            a, b = (int(x) for x in name.split("-"))
            t0, c0 = time.perf_counter(), time.process_time()
            results = pair.solve_pair(rules, index, a, b, lambda x, y: db.values(x, y))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            same = all(checksum(r.values) == published[f"{r.mover}-{r.opponent}"] for r in results)
            positions = sum(r.positions for r in results)
            steps = ", ".join(f"{k} {v:.1f}" for k, v in results[0].phases.items())
            print(
                f"{name}: {positions:,} positions, {wall:.1f} s wall (solving {results[0].seconds:.1f} s), {cpu:.1f} CPU-s, "
                f"{positions / results[0].seconds / 1e6:.2f} M/s; checksums {'equal' if same else 'DIFFER'}; {steps}",
                flush=True,
            )


if __name__ == "__main__":
    main()
