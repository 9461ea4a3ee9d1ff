"""``morris info`` and ``morris verify``: what a database holds, and whether it is right."""

from __future__ import annotations

import sys
import time

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
    from ..query import describe_game, game_value
    from ..storage.database import Database

    path, rules = database_and_rules(rules_name, options, db_path, history=True)
    with Database(path, rules) as db:
        rows = [
            {
                "mover": s.mover, "opponent": s.opponent, "mover_hand": s.mover_hand, "opponent_hand": s.opponent_hand,
                "positions": s.positions, "win": s.win, "draw": s.draw,
                "loss": s.loss, "max_win": s.max_win, "max_loss": s.max_loss, "max_plies": s.max_plies,
                "slots": s.slots, "bytes": s.bytes_on_disk, "seconds": s.seconds, "cpu_seconds": s.cpu_seconds, "checksum": s.checksum,
            }
            for s in db.tiers()
        ]
        for r, s in zip(rows, db.tiers()):
            if s.history is not None:  # the history rule: every state, and the side table's attrs
                r["states"] = int(s.history["states"])
                r["history"] = {k: v.item() if hasattr(v, "item") else v for k, v in s.history.items()}
        rules = db.rules
        ranks = _rank_distribution(db)
    start = game_value(path, rules)
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


def _rank_distribution(db) -> dict | None:
    """The draws of each rank, over the database and per tier (the attributes ``morris rank``
    stored with each tier's ranks); None where the database holds none."""
    import json

    from ..tiers import tier_name

    state = db.ranks_state()
    if state == "none":
        return None
    if state == "stale":
        return {"state": state}
    from ..ultra.secval import stored_secvals

    sv = stored_secvals(db)
    per_tier, total = {}, {}
    for s in db.tiers():
        hist = {int(r): int(n) for r, n in json.loads(db.rank_group(*s.tier).attrs["ranks"]).items()}
        per_tier[s.name] = {str(r): n for r, n in sorted(hist.items())}
        for r, n in hist.items():
            total[r] = total.get(r, 0) + n
    return {
        "state": state, "virt_win": sv.virt_win, "virt_loss": sv.virt_loss,
        "secvals": {tier_name(t): v for t, v in sv.values.items()},
        "distribution": [
            {"rank": r, "draws": n, "settles_in": [tier_name(t) for t in sv.tiers_worth(r)]} for r, n in sorted(total.items())
        ],
        "tiers": per_tier,
    }


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
@json_option("a JSON object per subspace, then the verdict; no progress bar")
def verify(db_path, rules_name, options, threads, quiet, subspaces, max_memory, dry_run, as_json):
    """Check every checksum, then every position: its stored value and plies must equal the
    best over its successors (a draw whose successors are all draws needs no computing). Exit
    status 1 on any mismatch. --subspace checks only the subspaces named (exit status 2 for a
    name that is malformed or not in the database)."""
    from ..verify.check import memory_plan, parse_subspaces
    from ..verify.check import verify as run_verify
    from .solve import parse_size

    parse_subspaces(subspaces)  # a malformed name fails before any work
    budget = parse_size(max_memory) if max_memory else None
    path, rules = database_and_rules(rules_name, options, db_path, history=True)
    if dry_run:
        return show_verify_plan(memory_plan(path, rules, subspaces or None, budget), as_json)
    t0 = time.perf_counter()
    on_check = (lambda c: echo_json(dict(c.to_dict(), event="subspace"))) if as_json else None
    checks = run_verify(
        path, threads=threads, progress=wanted(quiet, as_json), rules=rules, on_check=on_check,
        subspaces=subspaces or None, max_memory=budget,
    )
    failed = [c for c in checks if not c.ok]
    total = sum(c.positions for c in checks)
    secs = time.perf_counter() - t0
    if as_json:
        echo_json(
            {
                "event": "verdict", "ok": not failed, "database": str(path), "subspaces": len(checks),
                "failed": [c.name for c in failed], "positions": total, "seconds": round(secs, 3),
            }
        )
        if failed:
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
        for line in c.examples:
            click.echo(f"  {line}", err=True)
    if failed:
        click.echo(f"FAILED: {len(failed)} of {len(checks)} subspaces ({total:,} positions, {secs:.1f} s)", err=True)
        sys.exit(1)
    click.echo(f"OK: {len(checks)} subspaces, {total:,} positions, every checksum and value checked in {secs:.1f} s")


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
