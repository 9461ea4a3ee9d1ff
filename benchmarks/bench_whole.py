"""Whole games: the placing phase's throughput beside the moving phase's.

    python benchmarks/bench_whole.py six                      # Six Men's Morris, whole
    python benchmarks/bench_whole.py standard -o men=5        # the standard board, 5 men a side
    python benchmarks/bench_whole.py standard -o men=6 --db data/whole/standard_men-6.h5

Solves the whole game (``solver.engine.run.solve_whole``) into a temporary database, or into
``--db`` (tiers already there are skipped and not timed), and prints per phase: tiers, positions
(up to symmetry), wall and CPU seconds, positions per second; then the peak resident memory of the
process and the bytes per position on disk. Compilation is excluded (kernels are warmed up
first). Results go to benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from solver.engine import pair, placing, run
from solver.engine.costs.bench import machine_line
from solver.jit import use_threads
from solver.query import game_value_line
from solver.rules import make_rules
from solver.storage.database import Database
from solver.tiers import tier_name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rules")
    p.add_argument("-o", "--option", action="append", default=[], help="NAME=VALUE (repeatable)")
    p.add_argument("--db", type=Path, help="database to solve into [default: a temporary one]")
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args()
    use_threads(args.threads)
    rules = make_rules(args.rules, args.option or None)
    print(machine_line())
    pair.warm_up()
    placing.warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "whole.h5"
        t0 = time.perf_counter()
        rows = run.solve_whole(rules, path, progress=False, echo=lambda line: None)
        wall = time.perf_counter() - t0
        with Database(path) as db:
            disk = {s.name: s.bytes_on_disk for s in db.tiers()}
        line = game_value_line(path, rules)
    print(f"{rules.describe()}: whole game in {wall:.1f} s wall; {line}")
    for phase, in_hand in (("moving", False), ("placing", True)):
        done = [r.stats for r in rows if not r.skipped and bool(r.stats["mover_hand"] or r.stats["opponent_hand"]) == in_hand]
        # a group's seconds are stored with each of its tiers: count each group once
        groups = {(s["seconds"], s["cpu_seconds"], tuple(sorted((s["mover"], s["opponent"])))) for s in done}
        secs = sum(g[0] for g in groups)
        cpu = sum(g[1] for g in groups)
        positions = sum(s["positions"] for s in done)
        names = [tier_name((s["mover"], s["opponent"], s["mover_hand"], s["opponent_hand"])) for s in done]
        nbytes = sum(disk[n] for n in names)
        rate = f"{positions / secs / 1e6:.2f} M positions/s" if secs else "-"
        print(
            f"  {phase:8} {len(done):4} tiers  {positions:>14,} positions  {secs:8.1f} s  {cpu:8.1f} CPU-s  {rate}"
            f"  {nbytes / max(1, positions):.3f} bytes/position on disk"
        )
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
