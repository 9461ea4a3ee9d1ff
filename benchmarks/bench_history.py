"""The history rule's engine (``solver.history``) on a moving phase, beside the plain engine on
the same subspaces: states, time per step, states per second and peak memory. Not a test; the
forward check (``verify_moving``) runs after the solve and must find nothing wrong.

    python benchmarks/bench_history.py --rules viking -o reclose=same-man --max-men 5

Each group is solved as ``morris solve`` does it (one at a time, with what its removals read);
the peak resident memory is the process's (``ru_maxrss``), the plain engine's solve included.
"""

from __future__ import annotations

import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import click

from solver.engine.run import solve
from solver.history.solve import solve_moving, verify_moving
from solver.rules import make_rules


@click.command()
@click.option("--rules", "name", default="viking")
@click.option("-o", "options", multiple=True)
@click.option("--max-men", default=5)
def main(name, options, max_men):
    rules = make_rules(name, list(options))
    subs = [(max_men, max_men)]
    solve_moving(rules, [(3, 3)])  # compile the kernels outside the timing
    total = {"states": 0, "slots": 0}
    t0, c0 = time.perf_counter(), time.process_time()

    def report(group, halves):
        states, slots = sum(h.states for h in halves), sum(h.slots for h in halves)
        total["states"] += states
        total["slots"] += slots
        tm = halves[0].timing
        click.echo(f"{' and '.join(f'{h.a}-{h.b}' for h in halves):10s} {states:>13,} states {states / slots:5.2f}x the slots; "
                   f"index {tm['index_s']:6.1f} s, judged {tm['init_s']:6.1f} s, {tm['levels']:3d} levels {tm['levels_s']:6.1f} s")

    moving = solve_moving(rules, subs, report)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    click.echo(f"history: {total['states']:,} states ({total['states'] / total['slots']:.2f}x the {total['slots']:,} slots) in "
               f"{wall:.1f} s wall, {cpu:.1f} s CPU: {total['states'] / wall / 1e6:.2f} M states/s, "
               f"{total['states'] / cpu / 1e6:.2f} M per CPU-second")
    t1, c1 = time.perf_counter(), time.process_time()
    bad = sum(verify_moving(rules, moving).values())
    click.echo(f"forward check: {bad} wrong, {time.perf_counter() - t1:.1f} s wall, {time.process_time() - c1:.1f} s CPU")
    if bad:
        raise SystemExit("the forward check found wrong values")
    del moving
    plain = replace(rules, reclose="allowed")
    with tempfile.TemporaryDirectory() as tmp:
        solve(plain, 3, Path(tmp) / "warm.h5", progress=False, echo=lambda s: None)
        t2, c2 = time.perf_counter(), time.process_time()
        solve(plain, max_men, Path(tmp) / "plain.h5", progress=False, echo=lambda s: None)
        pw, pc = time.perf_counter() - t2, time.process_time() - c2
    click.echo(f"plain engine, the same subspaces: {total['slots']:,} slots in {pw:.1f} s wall, {pc:.1f} s CPU "
               f"({total['slots'] / pc / 1e6:.2f} M slots per CPU-second)")
    click.echo(f"peak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
