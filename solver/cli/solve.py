"""``morris solve`` and ``morris bench``: the engine from the command line.

The commands read their options, call the engine (``engine.costs.plan`` plans a run and refuses
one that does not fit, ``engine.run`` and ``engine.cluster`` solve it, ``engine.costs.bench``
times the chain) and print: the plan's tables, progress bars, a summary or JSON lines."""

from __future__ import annotations

import re
import time
from functools import partial

import click

from ..errors import RulesError
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
@click.option(
    "--stop-after", type=click.FloatRange(0, None), default=None, metavar="SECONDS",
    help="begin no pair or group once SECONDS have passed: the run stops between two (the summary says "
    "stopped) and the same command goes on from there",
)
@quiet_option
@json_option("a JSON object per finished or skipped pair, then a summary; no progress bars")
def solve(rules_name, options, max_men, whole_game, extended, db_path, threads, dry_run, max_memory, cluster, stop_after, quiet, as_json):
    """Solve the moving phase (no men in hand) up to --max-men men a side, or with --whole-game
    the whole game: the moving phase, then the placing phase (men in hand) tier by tier.

    Subspaces already in the database are skipped, so a rerun after an interruption resumes.
    With --cluster the same plan runs as a Dask task graph: pairs (and groups of tiers) with no
    path between them at the same time on different workers; --threads is then per worker.
    A run whose peak memory would not fit is refused before any work (see --dry-run). At a
    terminal, a bar per pair and one over the whole run (positions per second, time left).
    """
    from ..engine.costs.plan import capped_men, check_cluster, check_fits, plan_solve
    from ..engine.order import check_solvable
    from ..engine.run import Deadline
    from ..engine.run import solve as run_solve
    from ..storage.files import default_path

    rules = get_rules(rules_name, options, history=True)
    if extended and not whole_game:
        raise RulesError("--extended goes with --whole-game")
    if stop_after is not None and (cluster or rules.reclose != "allowed"):
        raise RulesError(f"--stop-after does not go with {'--cluster' if cluster else 'the history rule (option reclose)'} yet")
    deadline = None if stop_after is None else Deadline(stop_after)
    if rules.reclose != "allowed":
        return solve_history_rule(rules, max_men, whole_game, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json)
    if whole_game:
        if max_men is not None:
            raise RulesError("--whole-game solves every tier the game needs: leave out --max-men")
        return solve_whole_game(rules, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json, deadline)
    if max_men is None:
        max_men = capped_men(rules, DEFAULT_MAX_MEN)
    check_solvable(rules, max_men)
    check_cluster(cluster, threads)
    db_path = db_path or default_path(rules)
    limit = parse_size(max_memory) if max_memory else None
    bars = wanted(quiet, as_json)
    plan = plan_solve(
        rules, max_men, db_path, limit, measure=dry_run, progress_bar=partial(RunBar, enabled=bars), cluster=cluster,
        check=not dry_run,
    )
    if dry_run:
        show_plan(plan, db_path, as_json)
        check_fits(plan, cluster)
        return

    t0 = time.perf_counter()
    with RunBar(plan.positions_to_solve, "whole run", bars) as overall:

        def on_pair(rows):
            if as_json:
                echo_json(job_event("pair", rows))
            if not rows[0].skipped:
                overall.advance(sum(r.stats["positions"] for r in rows))

        echo = (lambda line: None) if as_json else overall.echo
        if cluster:
            from ..engine.cluster import solve_on_cluster
            from ..engine.order import moving_jobs

            rows = solve_on_cluster(
                rules, moving_jobs(rules, max_men), db_path, cluster, threads, echo=echo, on_job=on_pair,
                job_bytes=plan.peak_bytes,
            )
        else:
            rows = run_solve(rules, max_men, db_path, threads=threads, progress=bars, echo=echo, on_pair=on_pair, deadline=deadline)
    report_rows(rows, time.perf_counter() - t0, db_path, rules, as_json, "subspaces", millions=True, **stopped(deadline))


def stopped(deadline) -> dict:
    """The summary's ``stopped`` (whether --stop-after left work for a rerun), where it was given."""
    return {} if deadline is None else {"stopped": deadline.stopped}


def solve_whole_game(rules, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json, deadline=None):
    """``morris solve --whole-game``: the moving phase the game needs, then the placing phase."""
    from ..engine.costs.plan import check_cluster, check_fits, plan_whole_game
    from ..engine.run import solve_whole
    from ..query import game_value_line
    from ..storage.files import default_path

    check_cluster(cluster, threads)
    db_path = db_path or default_path(rules)
    limit = parse_size(max_memory) if max_memory else None
    bars = wanted(quiet, as_json)
    plan = plan_whole_game(
        rules, extended, db_path, limit, measure=dry_run, progress_bar=partial(RunBar, enabled=bars), cluster=cluster,
        check=not dry_run,
    )
    if dry_run:
        if plan.moving is not None:
            show_plan(plan.moving, db_path, as_json)
        show_placing_plan(plan.placing, as_json)
        check_fits(plan, cluster)
        return
    t0 = time.perf_counter()

    def on_group(rows):
        if as_json:
            echo_json(job_event("tiers", rows))

    if cluster:
        from ..engine.cluster import solve_on_cluster
        from ..engine.order import whole_game_jobs

        with RunBar(plan.positions_to_solve, "whole game", bars) as overall:

            def on_job(rows):
                on_group(rows)
                if not rows[0].skipped:
                    overall.advance(sum(r.stats["positions"] for r in rows))

            rows = solve_on_cluster(
                rules, whole_game_jobs(rules, extended), db_path, cluster, threads,
                echo=(lambda line: None) if as_json else overall.echo, on_job=on_job, job_bytes=plan.peak_bytes,
            )
    else:
        rows = solve_whole(
            rules, db_path, extended, threads=threads, progress=bars,
            echo=(lambda line: None) if as_json else click.echo, on_group=on_group, hold_bytes=plan.placing.hold_bytes,
            deadline=deadline,
        )
    secs = time.perf_counter() - t0
    line = None if deadline is not None and deadline.stopped else game_value_line(db_path, rules)
    report_rows(rows, secs, db_path, rules, as_json, "subspaces and tiers", game_value=line, **stopped(deadline))
    if line and not as_json:
        click.echo(line)


def solve_history_rule(rules, max_men, whole_game, extended, db_path, threads, dry_run, max_memory, cluster, quiet, as_json):
    """``morris solve -o reclose=...``: the history rule's engine (``history.run``), in memory."""
    from ..engine.costs.plan import capped_men, mib
    from ..history.run import check_memory, moving_subspaces, solve_history
    from ..history.solve import closure
    from ..history.tables import check_supported
    from ..query import game_value_line
    from ..storage.files import default_path

    check_supported(rules)
    for given, flag in ((extended, "--extended"), (cluster, "--cluster")):
        if given:
            raise RulesError(f"{flag} does not go with the history rule (option reclose) yet")
    if whole_game and max_men is not None:
        raise RulesError("--whole-game solves every tier the game needs: leave out --max-men")
    if not whole_game and max_men is None:
        max_men = capped_men(rules, DEFAULT_MAX_MEN)
    db_path = db_path or default_path(rules)
    subs = moving_subspaces(rules, max_men, whole_game)
    if dry_run:
        from ..machine import machine_memory
        from ..history.checkpoint import SAVE_STATE
        from ..history.plan import plan as history_plan
        from ..history.run import estimate_bytes, estimate_seconds

        groups = history_plan(rules, subs)  # (sampled once for the memory and the time)
        (need, states, largest), allowed = estimate_bytes(rules, subs, groups), parse_size(max_memory) if max_memory else machine_memory()
        plan = {
            "event": "plan", "rules": rules.to_dict(), "database": str(db_path), "subspaces": len(closure(rules, subs)),
            "states": round(states), "peak_bytes": need, "memory_bytes": allowed,
            # a long group's levels saved beside the database (twice that while a save replaces the last)
            "checkpoint_bytes": round(SAVE_STATE * largest),
        }
        plan.update(estimate_seconds(rules, groups, whole_game, db_path))
        if as_json:
            echo_json(plan)
        else:
            click.echo(
                f"plan: {rules.describe()} (the history rule) into {db_path}: {plan['subspaces']} moving subspaces"
                + (" and the placing phase (plain positions)" if whole_game else "")
                + f"; about {plan['states']:,} states (estimated from a sample), one group at a time with what "
                f"its removals read: about {mib(need):,} MiB at the peak, of {mib(allowed):,} MiB allowed; "
                f"a long group's levels saved beside the database: up to about {mib(2 * plan['checkpoint_bytes']):,} MiB of disk while a save is made"
            )
            if "seconds" in plan:
                click.echo(
                    f"estimated time: {plan['seconds'] / 60:,.1f} min left to solve"
                    + (f" ({plan['moving_seconds'] / 60:,.1f} min for the moving phase's states, {plan['placing_seconds'] / 60:,.1f} min "
                       "for the placing phase)" if whole_game else "")
                    + f": {plan['rate_source']}"
                )
        check_memory(rules, subs, parse_size(max_memory) if max_memory else None, groups)
        return
    t0 = time.perf_counter()

    def on_group(rows):
        if as_json:
            echo_json(job_event("pair" if rows[0].stats["mover_hand"] == rows[0].stats["opponent_hand"] == 0 else "tiers", rows))

    rows = solve_history(
        rules, db_path, max_men, whole_game, threads, parse_size(max_memory) if max_memory else None,
        progress=wanted(quiet, as_json), echo=(lambda line: None) if as_json else click.echo, on_group=on_group,
    )
    for r in rows:
        r.stats.setdefault("states", r.stats["positions"])  # (a tier with men in hand: plain positions)
    line = game_value_line(db_path, rules) if whole_game else None
    noun = "subspaces and tiers" if whole_game else "subspaces"
    report_rows(rows, time.perf_counter() - t0, db_path, rules, as_json, noun, columns=("states", "seconds", "status"), **({"game_value": line} if whole_game else {}))
    if line and not as_json:
        click.echo(line)


def job_event(kind: str, rows) -> dict:
    """``--json``'s line for a finished pair or group (``kind``): its subspaces' statistics and
    the process's peak memory so far, so that a run killed later (with the ``time`` that would
    have reported its peak) still tells the peak of the work it finished."""
    from ..machine import peak_rss

    return {"event": kind, "skipped": rows[0].skipped, "subspaces": [r.stats for r in rows], "peak_rss_bytes": peak_rss()}


SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?(?:E\d+)?)\s*([KMGT]?)(?:I?B)?\s*$")


def parse_size(text: str) -> int:
    """Bytes in '16GiB', '16G', '512MiB', '2e9' (powers of 1024 for K, M, G, T)."""
    m = SIZE.match(text.upper())
    if not m or float(m.group(1)) <= 0:
        raise RulesError(f"--max-memory {text!r}: give a size such as 16GiB, 512MiB or 2e10")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))


def report_rows(rows, secs, db_path, rules, as_json, noun, millions=False, columns=("seconds", "status"), **extra) -> None:
    """A run's summary: one JSON object, or the table of its subspaces (``columns`` after the
    values) and a line of totals (the rate in M positions/s with ``millions``, else in positions/s)."""
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
    click.echo(format_table(table, extra=columns))
    rate = ""
    if new and secs > 0:
        rate = f" ({positions / secs / 1e6:.2f} M positions/s)" if millions else f" ({positions / secs:,.0f} positions/s)"
    left = "; stopped by --stop-after, the same command goes on" if extra.get("stopped") else ""
    click.echo(f"{len(new)} {noun} solved, {len(rows) - len(new)} skipped; {positions:,} positions in {secs:.1f} s{rate}{left}")


def show_plan(plan, db_path, as_json) -> None:
    """The moving phase's plan (``morris solve --dry-run``): a table of its pairs and the totals, or JSON lines."""
    from ..engine.costs.plan import disk_words, mib

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
        f"{mib(d['peak_bytes']):,} MiB ({d['peak_pair'] or 'nothing to solve'}) of {mib(d['memory_bytes']):,} MiB; "
        + disk_words(d["disk_bytes"], d["positions"])
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


def show_placing_plan(plan, as_json) -> None:
    """The placing phase's plan (``--whole-game --dry-run``): a table by men in hand and the totals, or JSON lines."""
    from ..engine.costs.plan import disk_words, mib

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
        f"peak memory {mib(d['peak_bytes']):,} MiB ({d['peak_group'] or 'nothing to solve'}); " + disk_words(d["disk_bytes"], d["positions"])
    )
    if d["seconds"] is not None:
        click.echo(f"estimated time: {d['seconds'] / 60:,.1f} min ({d['rate_source']})")


def echo_columns(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """A header and rows of strings, right-aligned in columns."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)] if rows else [len(h) for h in head]
    click.echo("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        click.echo("  ".join(x.rjust(w) for x, w in zip(r, widths)))


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
    from ..engine.costs.bench import chain_positions, machine_line, run_bench
    from ..engine.order import check_solvable, pairs_up_to
    from ..jit import use_threads

    rules = get_rules(rules_name, options)
    check_solvable(rules, max_men)
    use_threads(threads)
    pairs = pairs_up_to(max_men)
    if as_json:
        report = run_bench(rules, pairs, on_row=lambda row: echo_json(dict(row.to_dict(), event="pair")))
        echo_json(dict(report.to_dict(), event="summary", rules=rules.to_dict(), machine=machine_line()))
        return
    click.echo(f"{rules.describe()} up to {max_men} men; {machine_line()}")
    with RunBar(chain_positions(rules, pairs), "chain", wanted(quiet)) as bar:

        def on_row(row):
            bar.echo(str(row))
            bar.advance(row.positions)

        report = run_bench(rules, pairs, on_row=on_row)
    click.echo(str(report))
