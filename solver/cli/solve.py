"""``morris solve`` and ``morris bench``: the engine from the command line."""

from __future__ import annotations

import time

import click

from .common import db_option, echo_json, format_table, get_rules, json_option, quiet_option, rules_options, threads_option

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
@quiet_option
@json_option("a JSON object per finished or skipped pair, then a summary; no progress bars")
def solve(rules_name, options, max_men, db_path, threads, quiet, as_json):
    """Solve the moving phase (no men in hand) up to --max-men men a side.

    Subspaces already in the database are skipped, so a rerun after an interruption resumes.
    """
    from ..database.storage import default_path
    from ..engine.plan import check_solvable, use_threads
    from ..engine.run import solve as run_solve

    rules = get_rules(rules_name, options)
    if max_men is None:
        max_men = min(DEFAULT_MAX_MEN, rules.men, rules.board_data.n // 2)
    check_solvable(rules, max_men)
    use_threads(threads)
    db_path = db_path or default_path(rules)

    def on_pair(rows):
        if as_json:
            echo_json({"event": "pair", "skipped": rows[0].skipped, "subspaces": [r.stats for r in rows]})

    t0 = time.perf_counter()
    rows = run_solve(
        rules, max_men, db_path, threads=threads, progress=not (quiet or as_json),
        echo=(lambda line: None) if as_json else click.echo, on_pair=on_pair,
    )
    new = [r for r in rows if not r.skipped]
    positions = sum(r.stats["positions"] for r in new)
    secs = time.perf_counter() - t0
    if as_json:
        echo_json(
            {
                "event": "summary", "database": str(db_path), "rules": rules.to_dict(), "solved": len(new),
                "skipped": len(rows) - len(new), "positions_solved": positions, "seconds": round(secs, 3),
            }
        )
        return
    table = [dict(r.stats, status="skipped" if r.skipped else "solved") for r in rows]
    click.echo(format_table(table, extra=("seconds", "status")))
    click.echo(
        f"{len(new)} subspaces solved, {len(rows) - len(new)} skipped; {positions:,} positions in {secs:.1f} s"
        + (f" ({positions / secs / 1e6:.2f} M positions/s)" if new and secs > 0 else "")
    )


@click.command()
@rules_options
@click.option("--max-men", type=int, default=5, show_default=True, help="benchmark the chain up to N men a side")
@threads_option
@json_option("a JSON object per pair, then a summary")
def bench(rules_name, options, max_men, threads, as_json):
    """Solve the chain 3-3 ... N-N in memory (nothing is written) and report positions per
    second, CPU time, peak memory and bytes per position. Compilation is excluded."""
    from ..engine.bench import machine_line, run_bench
    from ..engine.plan import check_solvable, pairs_up_to, use_threads

    rules = get_rules(rules_name, options)
    check_solvable(rules, max_men)
    use_threads(threads)
    if as_json:
        report = run_bench(rules, pairs_up_to(max_men), on_row=lambda row: echo_json(dict(row.to_dict(), event="pair")))
        echo_json(dict(report.to_dict(), event="summary", rules=rules.to_dict(), machine=machine_line()))
        return
    click.echo(f"{rules.describe()} up to {max_men} men; {machine_line()}")
    report = run_bench(rules, pairs_up_to(max_men), on_row=lambda row: click.echo(str(row)))
    click.echo(str(report))
