"""Start-up cost of one lookup from the shell: ``morris query`` (or ``morris moves``) as a new
process, timed over many runs on a warm machine (files in the page cache, numba's and the index's
caches written by the first run, which is not counted).

    python benchmarks/bench_query.py --db /tmp/standard-4.h5            # 20 runs of morris query
    python benchmarks/bench_query.py --db /tmp/standard-4.h5 --command moves --runs 50
    python benchmarks/bench_query.py --rules standard --db /tmp/none.h5 --position "........................ w 9 9"
    git archive OLD | tar -x -C /tmp/old && python benchmarks/bench_query.py --db ... --source /tmp/old

Prints the wall seconds of each run (median, min, max) and the CPU seconds (user + system) of
each child process, and the machine. Build the database first, e.g. ``morris solve --db
/tmp/standard-4.h5`` (the standard moving phase up to 4 men); with ``--rules`` and no database at
``--db``, the shipped opening book of the rule set answers. Results go to
benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

POSITION = "W:b2,d3,d5,f2 B:c5,e3,e4,e5 w"  # the README's example (subspace 4-4)


def morris_command(source: Path | None) -> list[str]:
    script = shutil.which("morris")
    return [script] if script and source is None else [sys.executable, "-m", "solver"]


def run_once(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall, cpu) seconds of one child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", type=Path, help="a solved database (query); not needed for moves")
    p.add_argument("--rules", help="the rule set (query): where --db does not exist, its opening book answers")
    p.add_argument("--command", choices=["query", "moves"], default="query")
    p.add_argument("--position", default=POSITION)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--json", action="store_true", help="one JSON object with every run's figures")
    p.add_argument("--source", type=Path, help="run the solver package of this source tree (python -m solver)")
    args = p.parse_args()
    env = dict(os.environ)
    if args.source:
        env["PYTHONPATH"] = str(args.source.resolve())
    cmd = [*morris_command(args.source), args.command]
    if args.command == "query":
        if args.db is None:
            raise SystemExit("--db is needed for query")
        cmd += ["--db", str(args.db)] + (["--rules", args.rules] if args.rules else [])
    cmd.append(args.position)
    run_once(cmd, env)  # warm: page cache, numba's cache, the index cache
    runs = [run_once(cmd, env) for _ in range(args.runs)]
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    from solver.engine.costs.bench import machine_line

    summary = {
        "command": " ".join(cmd) + (f" (source {args.source})" if args.source else ""), "runs": args.runs, "machine": machine_line(), "load": os.getloadavg()[0],
        "wall_median": statistics.median(walls), "wall_min": min(walls), "wall_max": max(walls),
        "cpu_median": statistics.median(cpus), "cpu_min": min(cpus), "cpu_max": max(cpus),
    }
    if args.json:
        print(json.dumps(dict(summary, walls=walls, cpus=cpus)))
        return
    print(f"{summary['command']}\n{summary['machine']}; load average {summary['load']:.2f}")
    print(
        f"{args.runs} runs: wall median {summary['wall_median']:.3f} s (min {summary['wall_min']:.3f}, max "
        f"{summary['wall_max']:.3f}); CPU median {summary['cpu_median']:.3f} s (min {summary['cpu_min']:.3f}, "
        f"max {summary['cpu_max']:.3f})"
    )


if __name__ == "__main__":
    main()
