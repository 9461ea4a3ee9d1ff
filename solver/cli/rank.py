"""``morris rank``: the draw ranks of a whole game (ultra-strong play), stored in its database."""

from __future__ import annotations

import time

import click

from .common import database_and_rules, db_option, echo_json, json_option, rules_options


@click.command()
@db_option
@rules_options
@click.option("--max-memory", type=str, default=None, metavar="SIZE",
              help="refuse a database whose ranking would need more (e.g. 8GiB) [default: this machine's memory]")
@click.option("--dry-run", is_flag=True, help="print each group's memory and the peak, rank nothing")
@click.option("--explicit", is_flag=True, help="rank over the explicit draw graph (1 KiB a draw), as under Lasker's rule")
@click.option("--fresh", is_flag=True, help="rank every tier again, even those a killed run finished")
@json_option("one JSON object: the draws, the time, the distribution of ranks (with --dry-run: the plan)")
def rank(db_path, rules_name, options, max_memory, dry_run, explicit, fresh, as_json):
    """Rank the draws of a database solved with --whole-game, as Gévay and Danner's Malom does
    (its sector values, then its multi-valued retrograde analysis over the draws), and store the
    ranks beside the strong values, which stay as they are. morris query then shows each drawing
    move's rank and the tier where the draw settles, and morris play --strength ultra and morris
    serve --strength ultra play the best-ranked draw. The ranks are computed without a graph,
    group by group in the order the game was solved, each tier written as it is finished, so a
    killed run resumes from the tiers it finished; where tiers with men in hand cycle (Lasker's
    rule) from a graph of the draws held in memory. A run whose largest group (or graph) would
    not fit is refused before any work."""
    from ..solve import rank_draws, rank_plan
    from ..storage.sizes import parse_size

    limit = parse_size(max_memory) if max_memory else None
    path, rules = database_and_rules(rules_name, options, db_path)
    if dry_run:
        return rank_plan(path, rules, limit, explicit, show=lambda est: show_plan(est, path, as_json))
    t0 = time.perf_counter()
    summary = rank_draws(path, rules, limit, explicit, fresh, echo=(lambda s: None) if as_json else click.echo)
    secs = time.perf_counter() - t0
    out = summary.to_dict()
    if as_json:
        echo_json({**out, "total_seconds": round(secs, 3)})
        return
    sv = summary.secvals
    click.echo(f"wrote the ranks of {summary.tiers} tiers ({summary.draws:,} draws) to {path} in {secs:.1f} s")
    click.echo(f"sector values from {min(sv.values.values())} to {max(sv.values.values())} (a win {sv.virt_win}, a loss {sv.virt_loss})")
    click.echo(f"{'rank':>5}  {'draws':>12}  settles in")
    for row in out["ranks"]:
        click.echo(f"{row['rank']:>5}  {row['draws']:>12,}  {' or '.join(row['settles_in'])}")


def show_plan(est, path, as_json) -> None:
    """``--dry-run``: each group's slots, the slots of the tiers it reads and its bytes (the
    graph-free path), or the draw graph's estimate; then the peak."""
    from ..engine.costs.plan import mib
    from ..tiers import group_name
    from ..ultra.store import BASE_BYTES, gib

    if as_json:
        groups = [{"tiers": group_name(g["tiers"]), "slots": g["slots"], "lower_slots": g["lower_slots"], "bytes": g["bytes"]}
                  for g in est.groups or []]
        echo_json({"database": str(path), "method": "implicit" if est.implicit else "explicit graph", "draws": est.draws,
                   "slots": est.slots, "groups": groups, "peak_bytes": est.bytes,
                   "total_group_bytes": sum(g["bytes"] for g in groups)})
        return
    if not est.implicit:
        click.echo(f"{path}: {est.draws:,} draws over the explicit draw graph (--explicit, or tiers with men in hand "
                   f"cycle: Lasker's rule), about {gib(est.bytes)}")
        return
    click.echo(f"{'group':<24} {'slots':>15} {'read slots':>15} {'peak MiB':>10}")
    for g in est.groups:
        click.echo(f"{group_name(g['tiers']):<24} {g['slots']:>15,} {g['lower_slots']:>15,} {mib(g['bytes']):>10,}")
    big = est.largest()
    click.echo(
        f"{len(est.groups)} groups, {est.slots:,} slots, {est.draws:,} draws; all groups together "
        f"{gib(sum(g['bytes'] for g in est.groups))}, one at a time: the peak is the largest, "
        f"{group_name(big['tiers'])}, {gib(big['bytes'])}, plus {gib(BASE_BYTES)}: about {gib(est.bytes)}"
    )
