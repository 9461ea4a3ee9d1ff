"""``morris solve`` and ``morris bench``: the engine from the command line.

The commands read their options, call the front door (``solver.solve``: it chooses the engine,
plans a run and refuses one that does not fit, compiles the kernels, solves; ``engine.costs.bench``
times the chain) and print: the plan's tables, progress bars, a summary or JSON lines."""

from __future__ import annotations

from functools import partial

import click

from ..solve import DEFAULT_MAX_MEN
from ..storage.sizes import parse_size
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
    from .. import solve as front

    rules = get_rules(rules_name, options, history=True)
    request = front.SolveRequest(
        rules, db_path, max_men, whole_game, extended, threads, parse_size(max_memory) if max_memory else None, cluster, stop_after,
    )
    history = request.engine == front.HISTORY
    bars = wanted(quiet, as_json)
    if dry_run:
        return front.dry_run(request, partial(show_any_plan, request, as_json), progress_bar=partial(RunBar, enabled=bars))
    plan = None if history else front.plan(request)  # (refuses a run that does not fit, before any work)
    compiled = front.compile_kernels(request, plan)
    if not as_json and (compiled.compiled or compiled.seconds):
        click.echo(compiled.line())
    # one bar over the run where its positions are known ahead: the moving phase, or any run on a cluster
    overall_bar = plan is not None and (not whole_game or bool(cluster))
    with RunBar(plan.positions_to_solve if overall_bar else 0, "whole game" if whole_game else "whole run", bars and overall_bar) as overall:

        def on_job(rows):
            if as_json:
                moving = rows[0].stats.get("mover_hand", 0) == rows[0].stats.get("opponent_hand", 0) == 0
                echo_json(job_event("pair" if (moving if history else not whole_game) else "tiers", rows))
            if not rows[0].skipped:
                overall.advance(sum(r.stats["positions"] for r in rows))

        echo = (lambda line: None) if as_json else overall.echo
        result = front.solve(request, progress=bars, echo=echo, on_job=on_job, compiled=compiled, checked_plan=plan)
    report(result, as_json)


def report(result, as_json: bool) -> None:
    """The summary of a run (``solve.SolveResult``): a table and a line, or a JSON object."""
    r = result.request
    extra = {} if result.stopped is None else {"stopped": result.stopped}
    if r.whole_game:
        extra["game_value"] = result.game_value
    # (--json: ``seconds`` the whole run's, compiling included, as before; ``solve_seconds`` the
    # solving alone, which the text's rate is over)
    compiled = result.compiled.seconds if result.compiled else 0.0
    if as_json:
        extra["seconds"] = round(compiled + result.seconds, 3)
    extra.update(compile_seconds=round(compiled, 3), kernels_compiled=bool(result.compiled and result.compiled.compiled),
                 solve_seconds=round(result.seconds, 3))
    noun = "subspaces and tiers" if r.whole_game else "subspaces"
    if r.engine == "history":
        report_rows(result.rows, result.seconds, r.db_path, r.rules, as_json, noun, columns=("states", "seconds", "status"), **extra)
    else:
        report_rows(result.rows, result.seconds, r.db_path, r.rules, as_json, noun, millions=not r.whole_game, **extra)
    if result.game_value and not as_json:
        click.echo(result.game_value)


def show_any_plan(request, as_json: bool, plan) -> None:
    """``--dry-run``: the history rule's plan, the whole game's, or the moving phase's."""
    from ..solve import HistoryPlan

    if isinstance(plan, HistoryPlan):
        show_history_plan(plan, as_json)
    elif request.whole_game:
        if plan.moving is not None:
            show_plan(plan.moving, request.db_path, as_json)
        show_placing_plan(plan.placing, as_json)
    else:
        show_plan(plan, request.db_path, as_json)


def show_history_plan(hplan, as_json: bool) -> None:
    """The history rule's plan (``solve.HistoryPlan``): its JSON object, or two lines."""
    from ..engine.costs.plan import mib

    plan, rules, whole_game = hplan.data, hplan.request.rules, hplan.request.whole_game
    if as_json:
        echo_json(plan)
        return
    click.echo(
        f"plan: {rules.describe()} (the history rule) into {plan['database']}: {plan['subspaces']} moving subspaces"
        + (" and the placing phase (plain positions)" if whole_game else "")
        + f"; about {plan['states']:,} states (estimated from a sample), one group at a time with what "
        f"its removals read: about {mib(plan['peak_bytes']):,} MiB at the peak, of {mib(plan['memory_bytes']):,} MiB allowed; "
        f"a long group's levels saved beside the database: up to about {mib(2 * plan['checkpoint_bytes']):,} MiB of disk while a save is made"
    )
    if "seconds" in plan:
        click.echo(
            f"estimated time: {plan['seconds'] / 60:,.1f} min left to solve"
            + (f" ({plan['moving_seconds'] / 60:,.1f} min for the moving phase's states, {plan['placing_seconds'] / 60:,.1f} min "
               "for the placing phase)" if whole_game else "")
            + f": {plan['rate_source']}"
        )


def job_event(kind: str, rows) -> dict:
    """``--json``'s line for a finished pair or group (``kind``): its subspaces' statistics and
    the process's peak memory so far, so that a run killed later (with the ``time`` that would
    have reported its peak) still tells the peak of the work it finished."""
    from ..machine import peak_rss

    return {"event": kind, "skipped": rows[0].skipped, "subspaces": [r.stats for r in rows], "peak_rss_bytes": peak_rss()}


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
