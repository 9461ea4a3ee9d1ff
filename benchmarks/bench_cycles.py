"""The cycling groups of a whole-game database (Lasker's rule) solved again in memory, three ways,
alternating: the placement pass and ``moves_pass`` then counts and un-moves ("fast"), the general
``tier_pass`` then the same ("general"), and the explicit successor graph ("explicit"). Prints
each way's wall and CPU time and positions per second (memory is the dry run's plan, not measured
here). Not a test, but each way's values are compared with the database's: a difference stops it.

    python benchmarks/bench_cycles.py --rules lasker -o men=5 --db /tmp/l5.h5 [--rounds 2]

The database is solved first (``morris solve --whole-game``) if it is not there.
"""

from __future__ import annotations

import time
from pathlib import Path

import click
import numpy as np

from solver.engine import placing
from solver.engine.held import TierValues
from solver.engine.order import placing_groups
from solver.engine.run import solve_whole
from solver.index import board_index
from solver.index.counting import subspace_positions
from solver.rules import make_rules
from solver.storage.database import Database

WAYS = {"fast": ("implicit", True), "general": ("implicit", False), "explicit": ("explicit", True)}


@click.command()
@click.option("--rules", "name", default="lasker")
@click.option("-o", "options", multiple=True)
@click.option("--db", "path", type=click.Path(path_type=Path), required=True)
@click.option("--rounds", default=2)
@click.option("--ways", default="fast,general,explicit")
def main(name, options, path, rounds, ways):
    rules = make_rules(name, list(options))
    if not path.exists():
        solve_whole(rules, path, progress=False, echo=lambda s: None)
    index = board_index(rules.board)
    groups = [g for g in placing_groups(rules) if g.cycles]
    positions = sum(subspace_positions(rules.board, t[0], t[1]) for g in groups for t in g.tiers)
    with Database(path, rules) as db:
        held = TierValues(db)
        for g in groups:  # read every input once, and compile
            placing.solve_group(rules, index, g, held)
        for r in range(rounds):
            for way in ways.split(","):
                placing.CYCLES, placing.FAST_CYCLES = WAYS[way]
                t0, c0 = time.perf_counter(), time.process_time()
                for g in groups:
                    for res in placing.solve_group(rules, index, g, held):
                        if not np.array_equal(res.values, db.values(*res.tier)):
                            raise SystemExit(f"{way}: tier {res.tier} differs from the database")
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                click.echo(f"round {r + 1} {way:8s} {len(groups)} groups, {positions:,} positions: {wall:.2f} s wall, {cpu:.2f} s CPU, {positions / wall / 1e6:.2f} M positions/s")


if __name__ == "__main__":
    main()
