"""The history rule's forward check (``history.verify.check_half``) timed on a subspace of any
size without solving anything: the subspace and those its moves reach are numbered as the solve
numbers them (``states.subspace_index``) and given random values, then the check runs over the
first ``--slots`` slots of the subspace. The work per state does not depend on the values, so
this gives the rate at 7 or 9 men, where nothing is solved yet. Not a test (the flags it sets
are meaningless); for A/B runs of two trees, alternating.

    python benchmarks/bench_history_check.py --rules viking -o reclose=same-man --subspace 7-7 --slots 20000000

Memory: a byte a slot and two bytes a state of every subspace numbered, twice while the parts are
copied into one store (7-7 with 6-7: 8.1 GiB at the peak; 9-9 with 8-9 about 12 GB).
"""

from __future__ import annotations

import resource
import time

import click
import numpy as np

from solver.history.groups import removal_targets
from solver.history.layout import HistorySubspace, Store
from solver.history.states import SLOTS, subspace_index
from solver.history.tables import history_tables, plain_rules
from solver.history.verify import check_half
from solver.index.tables import board_index
from solver.rules import make_rules
from solver.rules.tables import game_tables


@click.command()
@click.option("--rules", "name", default="viking")
@click.option("-o", "options", multiple=True)
@click.option("--subspace", required=True, help="A-B: the men of the side to move and of the other")
@click.option("--slots", type=int, default=10_000_000, show_default=True, help="the first slots of the subspace checked")
@click.option("--rounds", type=int, default=2, show_default=True)
def main(name, options, subspace, slots, rounds):
    rules = make_rules(name, list(options))
    a, b = (int(x) for x in subspace.split("-"))
    ht, bix = history_tables(rules), board_index(rules.board)
    ix = bix.tables
    rng = np.random.default_rng(1)
    reached = [(a, b), (b, a), *removal_targets(rules, a, b)]  # (its twin, and where its removals lead)
    t0 = time.perf_counter()
    parts = []
    for s in dict.fromkeys(reached):
        counts, block_first = subspace_index(*s, bix.slots(*s), ht, ix)
        values = rng.integers(0, 200, int(counts.sum()), dtype=np.uint16)
        parts.append(HistorySubspace(*s, bix.slots(*s), counts, block_first, values, rules))
    store = Store(parts)
    n = min(slots, bix.slots(a, b))
    info = store.info.copy()
    info[a, b, SLOTS] = n  # (the check walks the first n slots; the rest of the numbering is whole)
    states = int(store.counts_of(a, b)[:n].sum())
    click.echo(f"{subspace}: numbered {', '.join(f'{p.a}-{p.b}' for p in parts)} ({sum(p.states for p in parts):,} states) "
               f"in {time.perf_counter() - t0:.1f} s; checking {n:,} slots, {states:,} states ({states / n:.2f} a slot)")
    g = game_tables(plain_rules(rules))
    for r in range(rounds + 1):
        bad = np.zeros(store.states_of[a, b], dtype=np.bool_)
        err = np.zeros(3, np.int64)
        t1 = time.perf_counter()
        check_half(a, b, info, store.counts, store.block_first, store.values, ht, ix, g, bad, err)
        dt = time.perf_counter() - t1
        if err.any():
            raise SystemExit(f"successors missing: {err.tolist()}")
        label = "warm-up (compiles)" if r == 0 else f"round {r}"
        click.echo(f"{label}: {dt:.2f} s, {states / dt / 1e6:.2f} M states/s")
    click.echo(f"peak resident memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
