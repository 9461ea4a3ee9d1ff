"""The history rule's engine (``solver.history``) on a moving phase, beside the plain engine on
the same subspaces: states, time per step, states per second and peak memory. Not a test; the
forward check (``verify_moving``) runs after the solve and must find nothing wrong.

    python benchmarks/bench_history.py --rules viking -o reclose=same-man --max-men 5

Each group is solved as ``morris solve`` does it (one at a time, with what its removals read);
the peak resident memory is the process's (``ru_maxrss``), the plain engine's solve included.

With ``--db PATH`` the moving phase is solved as ``morris solve`` solves it instead (one group at
a time with its inputs read back from PATH, each half written there), and the peak is set beside
the plan's (``solver.history.plan``) for the largest group; no forward check, no plain engine.

    python benchmarks/bench_history.py --rules viking -o reclose=same-man --max-men 5 --db /tmp/b.h5

With ``--solve-only`` it stops after the solve and prints the SHA-256 of every state's value: run
in two worktrees, alternating, it compares the engine's speed with the values shown equal.

With ``--judge-parts N`` a group's states are judged N parts a run (``solve.JUDGE_PARTS``, the
runs between two chances to save): a small N against one run for the whole group (0) bounds what
the runs cost, many times over, on a small game.

    python benchmarks/bench_history.py --rules standard -o reclose=running-mill --max-men 5 --solve-only --judge-parts 16
"""

from __future__ import annotations

import hashlib
import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import click

from solver.engine.run import solve
from solver.history import solve as history_solve
from solver.history.check import verify_moving
from solver.history.solve import solve_moving
from solver.rules import make_rules


@click.command()
@click.option("--rules", "name", default="viking")
@click.option("-o", "options", multiple=True)
@click.option("--max-men", default=5)
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=None, help="solve as morris solve does, into this database")
@click.option("--solve-only", is_flag=True, help="the solve alone, its values' SHA-256 printed (for A/B runs of two trees)")
@click.option("--judge-parts", type=click.IntRange(min=0), default=None, help="parts judged a run (0: the whole group in one run)")
def main(name, options, max_men, db, solve_only, judge_parts):
    rules = make_rules(name, list(options))
    if judge_parts is not None:
        history_solve.JUDGE_PARTS = judge_parts or 2**62
        click.echo(f"judging {'the whole group in one run' if not judge_parts else f'{judge_parts:,} parts a run'}")
    if db is not None:
        return as_solve(rules, max_men, db)
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
    if solve_only:
        digest = hashlib.sha256()
        for key in sorted(moving):
            digest.update(moving[key].state_values.tobytes())
        click.echo(f"values sha256 {digest.hexdigest()[:16]}; peak resident memory "
                   f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
        return
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


def as_solve(rules, max_men, db):
    """``morris solve``'s way (``history.run.solve_history``), its peak against the plan's."""
    from solver.history.plan import plan
    from solver.history.run import moving_subspaces, solve_history

    subs = moving_subspaces(rules, max_men, False)
    groups = plan(rules, subs)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = solve_history(rules, db, max_men, progress=False, echo=click.echo)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    states = sum(r.stats["states"] for r in rows if not r.skipped)
    top = max(groups, key=lambda g: g.bytes)
    click.echo(f"history, as morris solve: {states:,} states solved in {wall:.1f} s wall, {cpu:.1f} s CPU")
    click.echo(f"peak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:,.0f} MiB; the plan's largest group "
               f"{' and '.join(f'{a}-{b}' for a, b in top.group)}: {top.bytes / 2**20:,.0f} MiB (solve {top.solve_bytes() / 2**20:,.0f}, "
               f"write {top.write_bytes / 2**20:,.0f}, with inputs in 2 bytes {top.bytes_wide / 2**20:,.0f})")


if __name__ == "__main__":
    main()
