"""``morris info`` and ``morris verify``: what a database holds, and whether it is right."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from .common import (
    database_and_rules,
    db_option,
    echo_json,
    format_table,
    json_option,
    quiet_option,
    rules_options,
    threads_option,
)
from .progress import wanted


@click.command()
@db_option
@rules_options
@json_option("one JSON object")
def info(db_path, rules_name, options, as_json):
    """Statistics of each subspace of a database (the tiers with men in hand named a-b-ha-hb),
    and the game's value where the database holds the whole game: the start position's value and
    plies, and each first move's; where it holds draw ranks (morris rank), the draws of each rank."""
    from ..info import database_info
    from ..query import describe_game

    path, rules = database_and_rules(rules_name, options, db_path, history=True)
    held = database_info(path, rules)
    rows, rules, ranks, start = held.rows, held.rules, held.ranks, held.start
    game = None
    if start is not None:
        game = {
            "position": start.board_string, "value": start.probe.value, "plies": start.probe.plies,
            "moves": [{"move": m.notation, "value": m.value, "plies": m.plies} for m in start.moves],
        }
    if as_json:
        echo_json({"rules": rules.to_dict(), "database": str(path), "subspaces": rows, "game": game, "ranks": ranks})
        return
    placing = sum(1 for r in rows if r["mover_hand"] or r["opponent_hand"])
    click.echo(
        f"{path}: rules {rules.describe()}, {len(rows) - placing} subspaces"
        + (f" and {placing} tiers with men in hand" if placing else "")
    )
    history = any("states" in r for r in rows)
    if history:  # (a tier with men in hand holds plain positions only)
        rows = [dict(r, states=r.get("states", r["positions"])) for r in rows]
    click.echo(format_table(rows, extra=("states",) * history + ("slots", "bytes", "seconds")))
    states = f"{sum(r['states'] for r in rows):,} states (the history rule: positions and the states with a ban), " if history else ""
    click.echo(f"total: {sum(r['positions'] for r in rows):,} positions, {states}{sum(r['bytes'] for r in rows):,} bytes")
    if game is not None:
        click.echo(describe_game(start))
        click.echo("first moves: " + ", ".join(str(m) for m in start.moves))
    if ranks is not None and ranks["state"] == "stale":
        click.echo("draw ranks: stale (computed over other tiers than the database holds now; run morris rank again)")
    elif ranks is not None:
        click.echo(f"draw ranks (morris rank; Malom's sector values, a win {ranks['virt_win']}, a loss {ranks['virt_loss']}):")
        click.echo(f"{'rank':>6}  {'draws':>14}  settles in")
        for row in ranks["distribution"]:
            click.echo(f"{row['rank']:>6}  {row['draws']:>14,}  {' or '.join(row['settles_in'])}")


@click.command()
@db_option
@rules_options
@threads_option
@quiet_option
@click.option(
    "--subspace",
    "subspaces",
    multiple=True,
    metavar="A-B",
    help="check only this subspace: A men to move, B men of the other side (repeatable) [default: all]",
)
@click.option(
    "--max-memory", type=str, default=None, metavar="SIZE",
    help="hold at most SIZE (e.g. 8GiB) of solved values between checks; those read again furthest "
    "ahead are read back when needed [default: half this machine's memory]",
)
@click.option("--dry-run", is_flag=True, help="print the memory plan (values held at most, bytes read) and check nothing")
@click.option(
    "--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="append each check to this JSON-lines log as it finishes; run again, a logged pass stands where "
    "the values it and its reads hold now give the logged checksums (the rest is checked again); totals at the end",
)
@click.option("--phase", type=click.Choice(["all", "moving", "placing"]), default="all", show_default=True,
              help="with --log: the moving subspaces only, or the tiers with men in hand only")
@click.option("--solved-only", is_flag=True,
              help="with --log: a database still being solved: check only what reads nothing it lacks (the rest later)")
@click.option("--ledger", "ledger_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="with --log: passed checks kept across databases (JSON lines): recorded, and taken where the "
              "values they read are the same")
@json_option("a JSON object per subspace, then the verdict; no progress bar")
def verify(db_path, rules_name, options, threads, quiet, subspaces, max_memory, dry_run, log_path, phase, solved_only,
           ledger_path, as_json):
    """Check every checksum, then every position: its stored value and plies must equal the
    best over its successors (a draw whose successors are all draws needs no computing); count
    each tier's positions, wins, draws, losses and longest values again and compare them with
    the stored ones; and, without --subspace, that the database holds every tier its game needs.
    Exit status 1 on any failure. --subspace checks only the subspaces named (exit status 2 for
    a name that is malformed or not in the database). --log: a verify that a rerun resumes."""
    from ..errors import OptionsError
    from ..verify.check import memory_plan, parse_subspaces
    from ..verify.check import verify as run_verify
    from ..storage.sizes import parse_size

    parse_subspaces(subspaces)  # a malformed name fails before any work
    if log_path is None and (phase != "all" or solved_only or ledger_path):
        raise OptionsError("--phase, --solved-only and --ledger go with --log")
    if log_path is not None and (subspaces or dry_run):
        raise OptionsError("--log checks the whole database: not with --subspace or --dry-run")
    budget = parse_size(max_memory) if max_memory else None
    path, rules = database_and_rules(rules_name, options, db_path, history=True)
    if dry_run:
        return show_verify_plan(memory_plan(path, rules, subspaces or None, budget), as_json)
    if log_path is not None:
        return verify_with_log(path, rules, log_path, threads, budget, phase, ledger_path, solved_only)
    t0 = time.perf_counter()
    on_check = (lambda c: echo_json(dict(c.to_dict(), event="subspace"))) if as_json else None
    checks = run_verify(
        path, threads=threads, progress=wanted(quiet, as_json), rules=rules, on_check=on_check,
        subspaces=subspaces or None, max_memory=budget,
    )
    missing = None if subspaces else missing_tiers_of(path, rules)
    failed = [c for c in checks if not c.ok]
    total = sum(c.positions for c in checks)  # (as each check counted them)
    secs = time.perf_counter() - t0
    if as_json:
        echo_json(
            {
                "event": "verdict", "ok": not failed and not missing, "database": str(path), "subspaces": len(checks),
                "failed": [c.name for c in failed], "positions": total, "seconds": round(secs, 3),
                "missing_tiers": missing and missing["tiers"],
            }
        )
        if failed or missing:
            sys.exit(1)
        return
    width = max(8, *(len(c.name) for c in checks)) if checks else 8
    click.echo(f"{'subspace':>{width}}  {'positions':>13}  checksum  {'mismatches':>10}  {'seconds':>7}  checked by")
    for c in checks:
        status = "missing " + c.missing if c.missing else "unreadable" if c.error else f"{c.mismatches:>10,}"
        line = f"{c.name:>{width}}  {c.positions:>13,}  {'ok' if c.checksum_ok else 'BAD':>8}  {status}"
        if c.method:
            line += f"  {c.seconds:7.2f}  {c.method}"
        click.echo(line)
    for c in failed:
        if c.error:
            click.echo(f"  {c.error}", err=True)
        for line in c.wrong_counts:
            click.echo(f"  {c.name} {line}", err=True)
        for line in c.examples:
            click.echo(f"  {line}", err=True)
    if missing:
        click.echo(missing["message"], err=True)
    if failed or missing:
        click.echo(f"FAILED: {len(failed)} of {len(checks)} subspaces ({total:,} positions, {secs:.1f} s)"
                   + (f", {len(missing['tiers'])} tiers missing" if missing else ""), err=True)
        sys.exit(1)
    whole = "" if subspaces else "; none missing that the game needs"
    click.echo(f"OK: {len(checks)} subspaces, {total:,} positions (counted from the values), every checksum, value and "
               f"count checked{whole} in {secs:.1f} s")


def missing_tiers_of(path, rules) -> dict | None:
    """The tiers the database's game needs and it lacks (``verify.complete``): their names and
    the message; None where it holds them all."""
    from ..storage.database import Database
    from ..tiers import tier_name
    from ..verify.complete import describe_missing, missing_tiers

    with Database(path, rules) as db:
        lacking, needed = missing_tiers(db.rules, db.tier_keys(), db.book_min_hand is not None)
    return {"tiers": [tier_name(t) for t in lacking], "message": describe_missing(lacking, needed)} if lacking else None


def verify_with_log(path, rules, log, threads, budget, phase, ledger, solved_only) -> None:
    """``morris verify --log``: ``verify.resume``; a line per check on stderr, the totals (one
    JSON object, with --json or without) on stdout."""
    from ..verify.resume import verify_logged

    totals = verify_logged(path, log, rules, threads, budget, phase, ledger, solved_only,
                           echo=lambda line: click.echo(line, err=True))
    echo_json(totals)
    if not totals["ok"]:
        sys.exit(1)


def show_verify_plan(plan: dict, as_json: bool) -> None:
    """``morris verify --dry-run``: per phase, the values held at most and the bytes read."""
    if as_json:
        echo_json(plan)
        return

    def gib(n: int) -> str:
        return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.1f} MiB"

    click.echo(f"{plan['database']}: {plan['subspaces']} subspaces, {plan['positions']:,} positions; "
               f"values held between checks within {gib(plan['budget_bytes'])} (--max-memory)")
    for p in plan["phases"]:
        click.echo(f"  {p['phase']}: {p['checks']} check{'s' if p['checks'] != 1 else ''}, at most {gib(p['peak_bytes'])} of values in memory "
                   f"(during {p['peak_check']}), {gib(p['read_bytes'])} read ({gib(p['once_bytes'])} if each were read once)")
    if plan.get("history_subspaces"):
        click.echo(f"  moving phase: {plan['history_subspaces']} subspaces under the history rule, each checked "
                   "with what its moves reach read for it alone")
    click.echo("  (beside the values: a byte a slot of the largest subspace for marks, the sweep's lists of "
               "positions that are not draws, and the process itself)")
