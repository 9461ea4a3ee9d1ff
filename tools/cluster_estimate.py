"""On paper: a whole game solved on N machines, from the plan's sizes and this machine's rates.

    python tools/cluster_estimate.py                         # standard, lasker, morabaraba
    python tools/cluster_estimate.py --rules standard --machines 1 4 16 --cores 16 --memory 64

Builds the task graph ``morris solve --whole-game --cluster`` submits (``solver.engine.cluster``:
one job per moving-phase pair and per group of tiers with men in hand, each after the jobs that
write what it reads) without solving anything, and gives each job:

- its peak memory on a worker: the process, the job's own arrays and the tiers it reads
  (``estimate.plan_run`` for a pair alone, ``estimate_placing.group_working_bytes`` for a group);
- its CPU-seconds at the rates measured on this project's 2-core workstation:
  the moving phase at ``--moving-rate`` positions per CPU-second (the standard 9-men run: 8.9 G
  positions in 12,387 CPU-s), the placing phase at ``--placing-rate`` (the placing tiers of the
  standard board with 5 men: 25.0 M positions in 18.2 CPU-s) and, where moves cycle inside a group
  (Lasker), ``--cycling-rate`` (Lasker with 4 men a side: 2.78 M positions in such groups in 4.5 CPU-s).

Then it schedules the graph on N machines (one job at a time per machine, every core on it: the
``--nthreads 1`` workers of the README), each job as soon as its inputs are done and a machine is
free, longest first among those ready; a job's wall time is its CPU-seconds / (cores x
``--efficiency``). Prints per rule set: jobs, positions, CPU-hours, the largest job's memory (a
worker smaller than that cannot run it), and the wall time for each N with the critical path (the
longest chain of jobs, which no number of machines shortens). Not a test: an estimate.
"""

from __future__ import annotations

import argparse
import heapq

from solver.engine.costs.moving import PROCESS_BYTES, VALUE_BYTES, plan_run
from solver.engine.costs.placing import group_working_bytes
from solver.engine.order import Job, whole_game_jobs
from solver.index import board_index
from solver.index.counting import subspace_positions
from solver.rules import make_rules

GIB = 1 << 30


def job_costs(rules, jobs: list[Job], moving_rate: float, placing_rate: float, cycling_rate: float) -> dict[str, tuple[float, int, int]]:
    """(CPU-seconds, peak bytes, positions) per job."""
    index = board_index(rules.board)
    base = PROCESS_BYTES + (1 << index.n) * 4
    out = {}
    for j in jobs:
        positions = sum(subspace_positions(rules.board, t[0], t[1]) for t in j.writes)
        if j.pair is not None:
            peak = plan_run(rules, [j.pair]).pairs[0].peak_bytes
            cpu = positions / moving_rate
        else:
            inputs = sum(index.slots(t[0], t[1]) * VALUE_BYTES for t in j.reads)
            peak = base + group_working_bytes(rules, index, j.group) + inputs
            cpu = positions / (cycling_rate if j.group.cycles else placing_rate)
        out[j.name] = (cpu, peak, positions)
    return out


def schedule(jobs: list[Job], seconds: dict[str, float], machines: int) -> float:
    """The wall time of a list schedule of the job graph on ``machines`` machines."""
    writer = {t: j.name for j in jobs for t in j.writes}
    deps = {j.name: {writer[t] for t in j.reads if t in writer} for j in jobs}
    users: dict[str, list[str]] = {j.name: [] for j in jobs}
    for name, ds in deps.items():
        for d in ds:
            users[d].append(name)
    left = {name: len(ds) for name, ds in deps.items()}
    ready = [(-seconds[n], n) for n, k in left.items() if k == 0]
    heapq.heapify(ready)
    running: list[tuple[float, str]] = []
    now, free = 0.0, machines
    while ready or running:
        while ready and free:
            _, n = heapq.heappop(ready)
            heapq.heappush(running, (now + seconds[n], n))
            free -= 1
        now, n = heapq.heappop(running)
        free += 1
        for u in users[n]:
            left[u] -= 1
            if left[u] == 0:
                heapq.heappush(ready, (-seconds[u], u))
    return now


def critical_path(jobs: list[Job], seconds: dict[str, float]) -> float:
    writer = {t: j.name for j in jobs for t in j.writes}
    finish: dict[str, float] = {}
    for j in jobs:  # (jobs come in dependency order)
        finish[j.name] = seconds[j.name] + max((finish[writer[t]] for t in j.reads if t in writer), default=0.0)
    return max(finish.values())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", action="append", default=[], help="rule set (repeatable) [default: standard, lasker, morabaraba]")
    p.add_argument("--machines", type=int, nargs="+", default=[1, 4, 16])
    p.add_argument("--cores", type=int, default=16)
    p.add_argument("--memory", type=float, default=64, help="GiB per machine")
    p.add_argument(
        "--efficiency", type=float, default=0.6,
        help="CPU-seconds of a 2-thread run / those of the same run on --cores threads (the 16-core device: 0.63 on the chain to 5 men)",
    )
    p.add_argument("--moving-rate", type=float, default=0.72e6)
    p.add_argument("--placing-rate", type=float, default=1.3e6)
    p.add_argument("--cycling-rate", type=float, default=0.6e6)
    args = p.parse_args()
    print(
        f"machines of {args.cores} cores and {args.memory:g} GiB; per CPU-second: moving {args.moving_rate / 1e6:.2f} M, "
        f"placing {args.placing_rate / 1e6:.2f} M, cycling groups {args.cycling_rate / 1e6:.2f} M positions; "
        f"efficiency {args.efficiency:g} per core"
    )
    for name in args.rules or ["standard", "lasker", "morabaraba"]:
        rules = make_rules(name)
        jobs = whole_game_jobs(rules)
        costs = job_costs(rules, jobs, args.moving_rate, args.placing_rate, args.cycling_rate)
        wall = {n: c[0] / (args.cores * args.efficiency) for n, c in costs.items()}
        cpu_h = sum(c[0] for c in costs.values()) / 3600
        positions = sum(c[2] for c in costs.values())
        big = max(costs, key=lambda n: costs[n][1])
        too_big = sum(1 for c in costs.values() if c[1] > args.memory * GIB)
        print(
            f"\n{rules.describe()}: {len(jobs)} jobs, {positions / 1e9:.1f} G positions, {cpu_h:,.0f} CPU-hours; "
            f"largest job {big}: {costs[big][1] / GIB:.1f} GiB"
            + (f"; {too_big} jobs need more than {args.memory:g} GiB" if too_big else "")
        )
        print(f"  critical path {critical_path(jobs, wall) / 3600:.1f} h")
        for m in args.machines:
            print(f"  {m:>3} machines: {schedule(jobs, wall, m) / 3600:,.1f} h")


if __name__ == "__main__":
    main()
