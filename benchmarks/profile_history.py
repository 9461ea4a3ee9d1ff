"""Per-state cost of the pieces of the history engine's level step (``solver.history.kernels``),
on random slots of one symmetric subspace (the group's index built, no values solved): reading
the slot's states, generating its moves, counting its distinct successors inside the group
(``count_slot``, every state of the slot at once, a state's share of it), listing its
predecessors (``predecessors``), and ``predecessors`` again on
the same state (its tables then in cache: what the first call waits for memory is the difference).
One thread. Not a test.

    python benchmarks/profile_history.py --rules viking -o reclose=same-man --men 5
"""

from __future__ import annotations

import time

import click
import numba as nb
import numpy as np

from solver.history import kernels as k
from solver.history.layout import Store
from solver.history.states import C0, scratch, slot_states, subspace_index
from solver.history.tables import history_tables, plain_rules
from solver.index.tables import board_index
from solver.rules import make_rules
from solver.rules.movegen import generate_moves
from solver.rules.tables import game_tables

PIECES = ("slot_states", "generate_moves", "count_slot", "predecessors", "predecessors twice")
COUNT_SLOT = 2


@nb.njit
def run(piece, sample, a, info, counts, bfirst, part0, ht, ix, g, value, count):
    rows, kids, xbans, ylist, cands, mx, my, qs, qparts, qm, _, facts, lists, tmp, own2, un = k.level_scratch()
    syms, bans, pends, codes = scratch()
    syms2, bans2, pends2, own = scratch()
    states = 0
    total = 0
    c0 = info[a, a, C0]
    for s in sample:
        n = counts[c0 + s]
        if n == 0:
            continue
        m, o = slot_states(a, a, s, n, ht, ix, bans2, pends2, syms2, own)
        if piece == COUNT_SLOT:
            states += n
            total += k.count_slot(m, o, rows, kids, facts, lists, tmp, own2, syms2, info, counts, bfirst, value, count, ht, ix, g,
                                  syms, bans, pends, codes)
            t = k.first_state(a, a, s, info, counts, bfirst)
            for j in range(n):
                total += count[t + j]
                count[t + j] = k.UNKNOWN
            continue
        for j in range(n):
            states += 1
            ban, pend = own[j] >> k.CODE_BITS, own[j] & k.PEND_MASK
            if piece == 1:
                total += generate_moves(m, o, 0, 0, g, rows)
            elif piece >= 3:
                for _ in range(piece - 2):
                    total += k.predecessors(m, o, ban, pend, info, counts, bfirst, part0, ht, ix, g, syms, bans, pends,
                                            codes, xbans, ylist, cands, mx, my, qs, qparts, qm, un)
    return states, total


@click.command()
@click.option("--rules", "name", default="viking")
@click.option("-o", "options", multiple=True, default=("reclose=same-man",))
@click.option("--men", default=5, help="the subspace men-men (symmetric: its own twin)")
@click.option("--sample", default=200_000)
def main(name, options, men, sample):
    rules = make_rules(name, list(options))
    ht, g = history_tables(rules), game_tables(plain_rules(rules))
    bix = board_index(rules.board)
    ix = bix.tables
    slots = bix.slots(men, men)
    counts, bfirst = subspace_index(men, men, slots, ht, ix)
    st = Store.allocate([(men, men, slots)])
    st.counts_of(men, men)[:] = counts
    st.block_first_of(men, men)[:] = bfirst
    st.allocate_values(np.uint16)
    value = np.full(len(st.values), k.PENDING, np.uint16)
    count = np.full(len(st.values), k.UNKNOWN, np.uint8)
    part0 = np.full((13, 13), -1, np.int64)
    part0[men, men] = 0
    print(f"{rules.describe()} {men}-{men}: {int(counts.sum(dtype=np.int64)):,} states in {slots:,} slots")
    picked = np.random.default_rng(1).integers(0, slots, sample).astype(np.int64)
    base = None
    for piece, label in enumerate(PIECES):
        args = (men, st.info, st.counts, st.block_first, part0, ht, ix, g, value, count)
        run(piece, picked[:100], *args)  # compile
        t = time.process_time()
        states, total = run(piece, picked, *args)
        ns = (time.process_time() - t) / states * 1e9
        base = ns if base is None else base
        extra = "" if piece == 0 else f" (+{ns - base:,.0f})"
        print(f"{label:>20}: {ns:,.0f} ns a state{extra}, {total / states:.1f} a state")


if __name__ == "__main__":
    main()
