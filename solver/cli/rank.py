"""``morris rank``: the draw ranks of a whole game (ultra-strong play), stored in its database."""

from __future__ import annotations

import time

import click

from .common import database_and_rules, db_option, echo_json, json_option, rules_options


@click.command()
@db_option
@rules_options
@click.option("--max-memory", type=str, default=None, metavar="SIZE",
              help="refuse a database whose draw graph would need more (e.g. 8GiB) [default: this machine's memory]")
@json_option("one JSON object: the draws, the time, the distribution of ranks")
def rank(db_path, rules_name, options, max_memory, as_json):
    """Rank the draws of a database solved with --whole-game, as Gévay and Danner's Malom does
    (its sector values, then its multi-valued retrograde analysis over the draws), and store the
    ranks beside the strong values, which stay as they are. morris query then shows each drawing
    move's rank and the tier where the draw settles, and morris play --strength ultra and morris
    serve --strength ultra play the best-ranked draw. The graph of draws is held in memory: a
    database too big for it is refused before any work (the standard game's 9 men are)."""
    from ..storage.database import Database
    from ..storage.lock import writer_lock
    from ..ultra.store import check_rankable, gib, rank_database
    from .solve import parse_size

    limit = parse_size(max_memory) if max_memory else None
    path, rules = database_and_rules(rules_name, options, db_path)
    with Database(path, rules) as db:  # a missing or mismatched file fails here
        est = check_rankable(db, limit)
    t0 = time.perf_counter()
    echo = (lambda s: None) if as_json else click.echo
    echo(f"ranking the {est.draws:,} draws of {path} (about {gib(est.bytes)} of memory)")
    with writer_lock(path):
        summary = rank_database(path, limit, echo)
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
