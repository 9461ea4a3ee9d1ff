"""The placing verify's tier walk beside the solver's placement pass on the same tier of a
solved whole-game database, in one process, alternating: each round solves the tier again with
``placement_pass`` (its values compared with the database's) and checks it with
``verify_tier_walk`` (it must find no mismatch). Kernel time only: no reading, no checksum
(``morris verify --json`` gives a check's whole time). Not a test.

    python benchmarks/bench_placing_verify.py --db data/standard.h5 6-6-1-0 --threads 2 --rounds 2
    python benchmarks/bench_placing_verify.py --db /tmp/l6.h5 5-5-1-1 --verify-only --generic
"""

from __future__ import annotations

import time

import click
import numba
import numpy as np

from solver.engine.kernels import placements
from solver.index.compact import rank_tables
from solver.storage.database import Database
from solver.tiers import successor_kinds, successors
from solver.values import NO_VALUES
from solver.verify import placing_kernels as pk
from solver.verify.check import _TierCheck


@click.command()
@click.option("--db", "db_path", type=click.Path(exists=True, dir_okay=False), required=True)
@click.argument("tier")
@click.option("--threads", type=int, default=None)
@click.option("--rounds", default=2, show_default=True)
@click.option("--verify-only", is_flag=True, help="no solve (Lasker's cycling tiers: the placement pass is not their solve)")
@click.option("--generic", is_flag=True, help="each round also verifies by generate_moves' list (fast_ok False), alternating")
def main(db_path: str, tier: str, threads: int | None, rounds: int, verify_only: bool, generic: bool) -> None:
    if threads:
        numba.set_num_threads(threads)
    t = tuple(int(x) for x in tier.split("-"))
    a, b, ha, hb = t
    with Database(db_path) as db:
        tc = _TierCheck(db, None, [t], budget=None)
        values = tc.held(t)
        reached = set(successors(tc.rules, t))
        succ = tuple(tc.held(x) if x in reached else NO_VALUES for x in successor_kinds(t))
        ix, g, ranks = tc.ix, tc.g, rank_tables()
        items = pk.work_items(ix.n, a, b, int(tc.index.rep_count[b]), ix.binom)
        bad = np.full(16, -1, dtype=np.int64)
        out = np.empty_like(values)
        for fast_ok in (True, False):  # compile
            pk.verify_tier_walk(a, b, ha, hb, 0, min(items, 50), tc.nblocks, values, succ, g, ix, ranks, pk.TABLED_FROM, fast_ok, bad, 16)
        ways = [True, False] if generic else [True]
        for r in range(rounds):
            if not verify_only:
                t0, c0 = time.perf_counter(), time.process_time()
                placements.placement_pass(a, b, ha, hb, out, succ, g, ix, ranks)
                click.echo(f"round {r + 1} solve  {time.perf_counter() - t0:6.2f} s wall, {time.process_time() - c0:6.2f} s CPU; "
                           f"equal to the database: {bool(np.array_equal(out, values))}")
            for fast_ok in ways if r % 2 == 0 else ways[::-1]:
                t0, c0 = time.perf_counter(), time.process_time()
                wrong, missed = pk.verify_tier_walk(a, b, ha, hb, 0, items, tc.nblocks, values, succ, g, ix, ranks, pk.TABLED_FROM, fast_ok, bad, 16)
                click.echo(f"round {r + 1} verify{'' if fast_ok else ' (generic)'} {time.perf_counter() - t0:6.2f} s wall, "
                           f"{time.process_time() - c0:6.2f} s CPU; mismatches {int(wrong)}, missed {int(missed)}")


if __name__ == "__main__":
    main()
