"""``morris solve`` and ``morris bench``: the engine from the command line."""

from __future__ import annotations

import re
import time

import click

from ..errors import PlanError, RulesError
from .common import (
    db_option,
    echo_json,
    format_table,
    get_rules,
    json_option,
    quiet_option,
    rules_options,
    threads_option,
)
from .progress import RunBar, wanted

DEFAULT_MAX_MEN = 4


@click.command()
@rules_options
@click.option(
    "--max-men",
    type=int,
    default=None,
    help=f"solve every subspace with both sides at N men or fewer [default: {DEFAULT_MAX_MEN}, or fewer where the rule set has fewer]",
)
@db_option
@threads_option
@click.option(
    "--whole-game", is_flag=True,
    help="solve the whole game: every tier with men in hand a game from the empty board reaches, and the moving phase they need",
)
@click.option("--extended", is_flag=True, help="with --whole-game: every other number of men in hand too (games that start with other hands)")
@click.option("--dry-run", is_flag=True, help="print the plan (positions, memory, disk, time per pair) and solve nothing")
@click.option(
    "--max-memory", type=str, default=None, metavar="SIZE",
    help="refuse a run whose peak memory exceeds SIZE, e.g. 16GiB [default: the machine's memory]",
)
@click.option(
    "--cluster", type=str, default=None, metavar="SPEC",
    help="solve on Dask: local[:N] (a local cluster of N worker processes, default 2) or a scheduler's "
    "address tcp://HOST:PORT (workers started with --nthreads 1 that see the database's path)",
)
@quiet_option
@json_option("a JSON object per finished or skipped pair, then a summary; no progress bars")
def solve(rules_name, options, max_men, whole_game, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json):
    """Solve the moving phase (no men in hand) up to --max-men men a side, or with --whole-game
    the whole game: the moving phase, then the placing phase (men in hand) tier by tier.

    Subspaces already in the database are skipped, so a rerun after an interruption resumes.
    With --cluster the same plan runs as a Dask task graph: pairs (and groups of tiers) with no
    path between them at the same time on different workers; --threads is then per worker.
    A run whose peak memory would not fit is refused before any work (see --dry-run). At a
    terminal, a bar per pair and one over the whole run (positions per second, time left).
    """
    from ..storage.files import default_path
    from ..engine.order import check_solvable
    from ..engine.run import solve as run_solve

    rules = get_rules(rules_name, options)
    if extended and not whole_game:
        raise RulesError("--extended goes with --whole-game")
    if whole_game:
        if max_men is not None:
            raise RulesError("--whole-game solves every tier the game needs: leave out --max-men")
        return solve_whole_game(rules, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json)
    if max_men is None:
        max_men = min(DEFAULT_MAX_MEN, rules.men, rules.board_data.n // 2)
    check_solvable(rules, max_men)
    check_cluster(cluster, threads)
    db_path = db_path or default_path(rules)
    limit = parse_size(max_memory) if max_memory else None
    bars = wanted(quiet, as_json)
    plan = make_plan(rules, max_men, db_path, limit, measure=dry_run, bars=bars)
    if dry_run:
        show_plan(plan, db_path, as_json)
    check_fits(plan)
    check_local_workers(cluster, [plan.peak.peak_bytes if plan.peak else 0], plan.memory_bytes)
    if dry_run:
        return

    t0 = time.perf_counter()
    with RunBar(sum(p.positions for p in plan.todo), "whole run", bars) as overall:

        def on_pair(rows):
            if as_json:
                echo_json({"event": "pair", "skipped": rows[0].skipped, "subspaces": [r.stats for r in rows]})
            if not rows[0].skipped:
                overall.advance(sum(r.stats["positions"] for r in rows))

        echo = (lambda line: None) if as_json else overall.echo
        if cluster:
            from ..engine.order import moving_jobs
            from ..engine.cluster import solve_on_cluster

            rows = solve_on_cluster(
                rules, moving_jobs(rules, max_men), db_path, cluster, threads, echo=echo, on_job=on_pair,
                job_bytes=plan.peak.peak_bytes if plan.peak else 0,
            )
        else:
            rows = run_solve(rules, max_men, db_path, threads=threads, progress=bars, echo=echo, on_pair=on_pair)
    report_rows(rows, time.perf_counter() - t0, db_path, rules, as_json, "subspaces", millions=True)


def check_cluster(cluster, threads) -> None:
    """Refuse a bad --cluster before any work; without one, set the kernels' threads here."""
    from ..jit import use_threads

    if cluster:
        from ..engine.cluster import parse_cluster

        parse_cluster(cluster)
    else:
        use_threads(threads)


def solve_whole_game(rules, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json):
    """``morris solve --whole-game``: the moving phase the game needs, then the placing phase."""
    from ..storage.files import default_path
    from ..query import game_value_line
    from ..engine.order import moving_men
    from ..engine.placing import solve_whole

    check_cluster(cluster, threads)
    db_path = db_path or default_path(rules)
    limit = parse_size(max_memory) if max_memory else None
    bars = wanted(quiet, as_json)
    top = moving_men(rules, extended)
    plan = make_plan(rules, top, db_path, limit, measure=dry_run, bars=bars) if top >= 3 else None
    placing = make_placing_plan(rules, extended, db_path, limit, plan)
    if dry_run:
        if plan is not None:
            show_plan(plan, db_path, as_json)
        show_placing_plan(placing, as_json)
    if plan is not None:
        check_fits(plan)
    check_placing_fits(placing)
    peaks = [plan.peak.peak_bytes if plan is not None and plan.peak else 0, placing.peak_bytes]
    check_local_workers(cluster, peaks, placing.memory_bytes)
    if dry_run:
        return
    t0 = time.perf_counter()

    def on_group(rows):
        if as_json:
            echo_json({"event": "tiers", "skipped": rows[0].skipped, "subspaces": [r.stats for r in rows]})

    if cluster:
        from ..engine.cluster import solve_on_cluster
        from ..engine.order import whole_game_jobs

        total = (sum(p.positions for p in plan.todo) if plan is not None else 0) + placing.to_dict()["positions_to_solve"]
        with RunBar(total, "whole game", bars) as overall:

            def on_job(rows):
                on_group(rows)
                if not rows[0].skipped:
                    overall.advance(sum(r.stats["positions"] for r in rows))

            rows = solve_on_cluster(
                rules, whole_game_jobs(rules, extended), db_path, cluster, threads,
                echo=(lambda line: None) if as_json else overall.echo, on_job=on_job, job_bytes=max(peaks),
            )
    else:
        rows = solve_whole(
            rules, db_path, extended, threads=threads, progress=bars,
            echo=(lambda line: None) if as_json else click.echo, on_group=on_group,
        )
    secs = time.perf_counter() - t0
    line = game_value_line(db_path, rules)
    report_rows(rows, secs, db_path, rules, as_json, "subspaces and tiers", game_value=line)
    if line and not as_json:
        click.echo(line)


def report_rows(rows, secs, db_path, rules, as_json, noun, millions=False, **extra) -> None:
    """A run's summary: one JSON object, or the table of its subspaces and a line of totals
    (the rate in M positions/s with ``millions``, else in positions/s)."""
    new = [r for r in rows if not r.skipped]
    positions = sum(r.stats["positions"] for r in new)
    if as_json:
        echo_json(
            {
                "event": "summary", "database": str(db_path), "rules": rules.to_dict(), "solved": len(new),
                "skipped": len(rows) - len(new), "positions_solved": positions, "seconds": round(secs, 3), **extra,
            }
        )
        return
    table = [dict(r.stats, status="skipped" if r.skipped else "solved") for r in rows]
    click.echo(format_table(table, extra=("seconds", "status")))
    rate = ""
    if new and secs > 0:
        rate = f" ({positions / secs / 1e6:.2f} M positions/s)" if millions else f" ({positions / secs:,.0f} positions/s)"
    click.echo(f"{len(new)} {noun} solved, {len(rows) - len(new)} skipped; {positions:,} positions in {secs:.1f} s{rate}")


def make_placing_plan(rules, extended, db_path, limit, moving_plan):
    from ..storage.database import Database
    from ..storage.files import exists
    from ..engine.costs.placing import plan_placing

    done = set()
    if exists(db_path):
        with Database(db_path, rules) as db:
            done = {s.tier for s in db.tiers()}
    speed = moving_plan.speed if moving_plan is not None else None
    return plan_placing(rules, extended, done, memory_bytes=limit, speed=speed)


def check_local_workers(cluster, peaks, memory_bytes) -> None:
    """``--cluster local:N`` runs up to N jobs at once on this machine: N of the largest must fit."""
    from ..engine.cluster import parse_cluster

    if not cluster or parse_cluster(cluster)[0] != "local":
        return
    workers = parse_cluster(cluster)[1]
    if workers > 1 and workers * max(peaks) > memory_bytes:
        raise PlanError(
            f"--cluster {cluster}: {workers} workers may each hold about {mib(max(peaks)):,} MiB at once, more than the "
            f"{mib(memory_bytes):,} MiB allowed (use fewer workers, or --max-memory)"
        )


def check_placing_fits(plan) -> None:
    if not plan.fits():
        raise PlanError(
            f"tiers {plan.peak_group} need about {mib(plan.peak_bytes):,} MiB at their peak, more than the "
            f"{mib(plan.memory_bytes):,} MiB allowed (--max-memory; see morris solve --whole-game --dry-run)"
        )


def show_placing_plan(plan, as_json) -> None:
    if as_json:
        for row in plan.rows:
            echo_json(dict(row, event="hands"))
        echo_json(plan.to_dict())
        return
    head = ("men in hand", "tiers", "positions", "slots", "peak MiB", "disk MiB", "est. s", "status")
    rows = [
        (
            str(r["hands"]), str(r["tiers"]), f"{r['positions']:,}", f"{r['slots']:,}", f"{mib(r['peak_bytes']):,}",
            f"{mib(r['disk_bytes']):,}", "-" if r["seconds"] is None else f"{r['seconds']:,.0f}",
            "done" if r["done"] else "to solve",
        )
        for r in plan.rows
    ]
    click.echo(f"placing phase: {plan.groups} groups of tiers{' (extended)' if plan.extended else ''}")
    echo_columns(head, rows)
    d = plan.to_dict()
    click.echo(
        f"placing total: {d['positions']:,} positions ({d['positions_to_solve']:,} to solve) in {d['tiers']} tiers; "
        f"peak memory {mib(d['peak_bytes']):,} MiB ({d['peak_group']}); disk at most {mib(d['disk_bytes']):,} MiB"
    )
    if d["seconds"] is not None:
        click.echo(f"estimated time: {d['seconds'] / 60:,.1f} min ({d['rate_source']})")


SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?(?:E\d+)?)\s*([KMGT]?)(?:I?B)?\s*$")


def parse_size(text: str) -> int:
    """Bytes in '16GiB', '16G', '512MiB', '2e9' (powers of 1024 for K, M, G, T)."""
    m = SIZE.match(text.upper())
    if not m or float(m.group(1)) <= 0:
        raise RulesError(f"--max-memory {text!r}: give a size such as 16GiB, 512MiB or 2e10")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))


def make_plan(rules, max_men, db_path, limit, measure, bars=False):
    """The plan of a run into ``db_path``: what is done already, and (``measure``) how fast this
    machine is: pairs in the database or a short run of the chain to 4 men give a rate in
    positions per second and, where the rules are those of the recorded reference run, this
    machine's speed against it (which times larger pairs far better than a rate does). ``bars``:
    a progress bar while the chain is timed."""
    from ..storage.database import Database
    from ..storage.files import exists
    from ..engine.costs.moving import measured_rate, plan_run, reference_factor
    from ..engine.order import pair_name, pairs_up_to

    done, rate, source, timed = set(), None, "not measured", {}
    if exists(db_path):
        with Database(db_path, rules) as db:
            done = {(s.mover, s.opponent) for s in db.subspaces()}
            timed = {pair_name(min(s.mover, s.opponent), max(s.mover, s.opponent)): s.seconds for s in db.subspaces()}
            if measure:
                rate, source = measured_rate(db)
    if measure and rate is None:
        from ..engine.costs.bench import run_bench
        from ..index.counting import subspace_positions

        small = min(4, rules.men, rules.board_data.n // 2)
        chain = pairs_up_to(small)
        total = sum(_pair_positions(rules, a, b, subspace_positions) for a, b in chain)
        with RunBar(total, f"timing this machine on the chain to {small} men", bars) as bar:
            report = run_bench(rules, chain, on_row=lambda row: bar.advance(row.positions))
        rate = report.to_dict()["positions_per_s"]
        source = f"measured now on the chain to {small} men (larger pairs run slower)"
        timed = {pair_name(a, b): row.wall for (a, b), row in zip(pairs_up_to(small), report.rows)}
    speed, speed_source = reference_factor(rules, timed) if measure else (None, "")
    return plan_run(
        rules, pairs_up_to(max_men), done, rate, source, memory_bytes=limit, speed=speed, speed_source=speed_source
    )


def _pair_positions(rules, a, b, count) -> int:
    """Positions of the pair a-b (both halves), up to symmetry."""
    return count(rules.board, a, b) + (0 if a == b else count(rules.board, b, a))


def check_fits(plan) -> None:
    if not plan.fits():
        peak = plan.peak
        raise PlanError(
            f"pair {peak.pair} needs about {mib(peak.peak_bytes):,} MiB at its peak, more than the "
            f"{mib(plan.memory_bytes):,} MiB allowed (--max-memory; see morris solve --dry-run)"
        )


def mib(n: int) -> int:
    return round(n / (1 << 20))


def echo_columns(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """A header and rows of strings, right-aligned in columns."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)] if rows else [len(h) for h in head]
    click.echo("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        click.echo("  ".join(x.rjust(w) for x, w in zip(r, widths)))


def show_plan(plan, db_path, as_json) -> None:
    if as_json:
        for p in plan.pairs:
            echo_json(p.to_dict())
        echo_json(dict(plan.to_dict(), database=str(db_path)))
        return
    head = ("pair", "positions", "slots", "working MiB", "inputs MiB", "peak MiB", "disk MiB", "est. s", "status")
    rows = [
        (
            p.pair, f"{p.positions:,}", f"{p.slots:,}", f"{mib(p.working_bytes):,}", f"{mib(p.input_bytes):,}",
            f"{mib(p.peak_bytes):,}", f"{mib(p.disk_bytes):,}", "-" if p.seconds is None else f"{p.seconds:,.0f}",
            "done" if p.done else "to solve",
        )
        for p in plan.pairs
    ]
    click.echo(f"plan: {plan.rules.describe()} into {db_path}")
    echo_columns(head, rows)
    d = plan.to_dict()
    click.echo(
        f"total: {d['positions']:,} positions ({d['positions_to_solve']:,} to solve); peak memory "
        f"{mib(d['peak_bytes']):,} MiB ({d['peak_pair']}) of {mib(d['memory_bytes']):,} MiB; disk at most "
        f"{mib(d['disk_bytes']):,} MiB"
    )
    if d["seconds"] is not None and d["reference_factor"]:
        rest = d["pairs_by_rate"]
        click.echo(
            f"estimated time: {d['seconds'] / 60:,.1f} min: the reference run's time per pair x {d['reference_factor']:.2f} "
            f"({d['reference_source']})"
            + (f"; {rest} pairs it lacks at {d['rate_positions_per_s'] / 1e6:.2f} M positions/s" if rest else "")
        )
    elif d["seconds"] is not None:
        click.echo(f"estimated time: {d['seconds'] / 60:,.1f} min at {d['rate_positions_per_s'] / 1e6:.2f} M positions/s ({d['rate_source']})")


@click.command()
@rules_options
@click.option("--max-men", type=int, default=5, show_default=True, help="benchmark the chain up to N men a side")
@threads_option
@quiet_option
@json_option("a JSON object per pair, then a summary; no progress bar")
def bench(rules_name, options, max_men, threads, quiet, as_json):
    """Solve the chain 3-3 ... N-N in memory (nothing is written) and report positions per
    second, CPU time, peak memory and bytes per position. Compilation is excluded. At a
    terminal, a bar over the whole chain (positions per second, time left)."""
    from ..engine.costs.bench import machine_line, run_bench
    from ..engine.order import check_solvable, pairs_up_to
    from ..jit import use_threads
    from ..index.counting import subspace_positions

    rules = get_rules(rules_name, options)
    check_solvable(rules, max_men)
    use_threads(threads)
    pairs = pairs_up_to(max_men)
    if as_json:
        report = run_bench(rules, pairs, on_row=lambda row: echo_json(dict(row.to_dict(), event="pair")))
        echo_json(dict(report.to_dict(), event="summary", rules=rules.to_dict(), machine=machine_line()))
        return
    click.echo(f"{rules.describe()} up to {max_men} men; {machine_line()}")
    total = sum(_pair_positions(rules, a, b, subspace_positions) for a, b in pairs)
    with RunBar(total, "chain", wanted(quiet)) as bar:

        def on_row(row):
            bar.echo(str(row))
            bar.advance(row.positions)

        report = run_bench(rules, pairs, on_row=on_row)
    click.echo(str(report))
