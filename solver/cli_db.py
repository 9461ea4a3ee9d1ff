"""The database commands of ``morris``: solve, info (and query, verify)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from .cli import main, rules_options, get_rules

DEFAULT_MAX_MEN = 4


def _db_option(f):
    return click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="database file [default: data/<rule set>.h5]",
    )(f)


@main.command()
@rules_options
@click.option(
    "--max-men",
    type=int,
    default=None,
    help=f"solve every subspace with both sides at N men or fewer [default: {DEFAULT_MAX_MEN}, or fewer where the rule set has fewer]",
)
@_db_option
@click.option("--threads", type=click.IntRange(1, None), default=None, help="threads to use [default: every core]")
@click.option("--quiet", "-q", is_flag=True, help="no progress bars")
def solve(rules_name, options, max_men, db_path, threads, quiet):
    """Solve the moving phase (no men in hand) up to --max-men men a side.

    Subspaces already in the database are skipped, so a rerun after an interruption resumes.
    """
    from .solve import format_table
    from .solve import solve as run_solve
    from .storage import default_path

    rules = get_rules(rules_name, options)
    if max_men is None:
        max_men = min(DEFAULT_MAX_MEN, rules.men, rules.board_data.n // 2)
    db_path = db_path or default_path(rules)
    click.echo(f"solving {rules.describe()} up to {max_men} men into {db_path}")
    t0 = time.perf_counter()
    rows = run_solve(rules, max_men, db_path, threads=threads, progress=not quiet, echo=click.echo)
    table = [dict(r.stats, status="skipped" if r.skipped else "solved") for r in rows]
    click.echo(format_table(table, extra=("seconds", "status")))
    new = [r for r in rows if not r.skipped]
    positions = sum(r.stats["positions"] for r in new)
    secs = time.perf_counter() - t0
    click.echo(
        f"{len(new)} subspaces solved, {len(rows) - len(new)} skipped; {positions:,} positions in {secs:.1f} s"
        + (f" ({positions / secs / 1e6:.2f} M positions/s)" if new and secs > 0 else "")
    )


@main.command()
@_db_option
@rules_options
@click.option("--json", "as_json", is_flag=True, help="one JSON object")
def info(db_path, rules_name, options, as_json):
    """Statistics of each subspace of a database."""
    from .rules import RuleSet
    from .solve import format_table
    from .storage import Database, default_path

    path = db_path or default_path(get_rules(rules_name, options))
    with Database(path) as db:
        subs = db.subspaces()
        rows = []
        for s in subs:
            rows.append(
                {
                    "mover": s.mover,
                    "opponent": s.opponent,
                    "positions": s.positions,
                    "win": s.win,
                    "draw": s.draw,
                    "loss": s.loss,
                    "max_win": s.max_win,
                    "max_loss": s.max_loss,
                    "max_plies": s.max_plies,
                    "slots": s.slots,
                    "bytes": s.bytes_on_disk,
                    "seconds": s.seconds,
                }
            )
        rules: RuleSet = db.rules
    if as_json:
        click.echo(json.dumps({"rules": rules.to_dict(), "database": str(path), "subspaces": rows}))
        return
    click.echo(f"{path}: rules {rules.describe()}, {len(rows)} subspaces")
    click.echo(format_table(rows, extra=("slots", "bytes", "seconds")))
    click.echo(f"total: {sum(r['positions'] for r in rows):,} positions, {sum(r['bytes'] for r in rows):,} bytes")


@main.command()
@_db_option
@rules_options
@click.option("--threads", type=click.IntRange(1, None), default=None, help="threads to use [default: every core]")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
def verify(db_path, rules_name, options, threads, quiet):
    """Check every checksum, then every position: its stored value and plies must equal the
    best over its successors. Exit status 1 on any mismatch."""
    import sys

    from .storage import default_path
    from .verify import verify as run_verify

    path = db_path or default_path(get_rules(rules_name, options))
    t0 = time.perf_counter()
    checks = run_verify(path, threads=threads, progress=not quiet)
    width = max((len(c.name) for c in checks), default=8)
    click.echo(f"{'subspace':>{max(width, 8)}}  {'positions':>13}  checksum  {'mismatches':>10}")
    for c in checks:
        status = "missing " + c.missing if c.missing else "unreadable" if c.error else f"{c.mismatches:>10,}"
        click.echo(f"{c.name:>{max(width, 8)}}  {c.positions:>13,}  {'ok' if c.checksum_ok else 'BAD':>8}  {status}")
    failed = [c for c in checks if not c.ok]
    for c in failed:
        if c.error:
            click.echo(f"  {c.error}", err=True)
        for line in c.examples:
            click.echo(f"  {line}", err=True)
    total = sum(c.positions for c in checks)
    secs = time.perf_counter() - t0
    if failed:
        click.echo(f"FAILED: {len(failed)} of {len(checks)} subspaces ({total:,} positions, {secs:.1f} s)", err=True)
        sys.exit(1)
    click.echo(f"OK: {len(checks)} subspaces, {total:,} positions, every checksum and value checked in {secs:.1f} s")


@main.command()
@rules_options
@click.option("--max-men", type=int, default=5, show_default=True, help="benchmark the chain up to N men a side")
@click.option("--threads", type=click.IntRange(1, None), default=None, help="threads to use [default: every core]")
def bench(rules_name, options, max_men, threads):
    """Solve the chain 3-3 ... N-N in memory (nothing is written) and report positions per
    second, CPU time, peak memory and bytes per position. Compilation is excluded."""
    import os
    import platform

    import numba

    from .bench import bench_pairs, peak_rss_mib, summary, warm_up
    from .solve import check_solvable, pairs_up_to, use_threads

    rules = get_rules(rules_name, options)
    check_solvable(rules, max_men)
    use_threads(threads)
    click.echo(
        f"{rules.describe()} up to {max_men} men; {platform.machine()}, {os.cpu_count()} cores, "
        f"{numba.get_num_threads()} threads, numba {numba.__version__}"
    )
    warm_up(rules)
    rss0 = peak_rss_mib()
    rows = bench_pairs(rules, pairs_up_to(max_men), echo=click.echo)
    click.echo(summary(rows, rss0))
