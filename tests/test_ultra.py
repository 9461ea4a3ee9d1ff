"""Draw ranks (``solver.ultra``): Malom's sector values, and its multi-valued retrograde analysis
checked against computations of the same definition by other routes, on small whole games.

- ranks by fixpoints, one threshold x at a time: "the side to move can force a rank of at least
  x" is a least fixpoint where play that goes round for ever in the tier falls short of x (its
  own tier's value is below x) and a greatest one where it does not; the rank is the largest x it
  holds for. Nothing of Malom's queue order, counts or frames is used.
- ranks and depths by negamax over the explicit graph, in Malom's own stored terms (key1 relative
  to the tier, key2, its corr and undo_negate written out again here), iterated to a fixpoint.
- the graph's edges against tests/reference.py's move generator, for a sample of draws.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from reference import MoveGen

from solver.index import board_index
from solver.rules import make_rules
from solver.storage.database import Database
from solver.tiers import groups_in_order
from solver.ultra import NO_RANK, better, database_stats, draw_graph, move_value, rank_draws, rank_draws_plain, sector_values

# Six Men's Morris with 4 men and flying: twins (3-4 and 4-3) full of draws, so ranks spread over
# several tiers' values. Three Men's Morris and the standard board with 3 men: no twins, every
# draw settles in 3-3, and a tier with men in hand shares 3-3's value 0.
FLYING4 = ("six", ("men=4", "flying=at-3"))
THREE = ("three", ())
STD3 = ("standard", ("men=3",))


@pytest.fixture(scope="module")
def ranked(solved_whole):
    """{game: (database, rules, graph, ranks)}, built once."""
    out = {}
    for rule_set, options in (FLYING4, THREE, STD3):
        db = Database(solved_whole(rule_set, options).path)
        rules = db.rules
        secvals = sector_values(rules, database_stats(db))
        g = draw_graph(db, rules)
        out[(rule_set, options)] = (db, rules, g, rank_draws(g, rules, secvals))
    return out


def test_sector_values_follow_malom_by_hand():
    """A hand-worked run of Analyzer.cpp's calc_sec_vals: sorted by share, ties by kind, values
    assigned outward from the middle with twins paired, cycling symmetric tiers 0."""
    rules = make_rules("standard", ["men=4"])
    stats = {
        (3, 3, 0, 0): (1, 1, 1),  # symmetric, cycles: 0.5 -> 0
        (3, 4, 0, 0): (0, 0, 10),  # twins: shares 0 and 1 over the pair
        (4, 3, 0, 0): (10, 0, 0),
        (2, 3, 1, 0): (1, 0, 3),  # men in hand: its own share, 0.25
        (0, 0, 3, 3): (1, 0, 0),  # symmetric with men in hand: right of equal shares
    }
    sv = sector_values(rules, stats)
    assert sv.values == {(3, 4, 0, 0): -2, (2, 3, 1, 0): -1, (3, 3, 0, 0): 0, (4, 3, 0, 0): 2, (0, 0, 3, 3): 3}
    assert (sv.virt_loss, sv.virt_win) == (-4, 4)
    assert sv.secval_text().splitlines()[:4] == ["virt_loss_val: -4", "virt_win_val: 4", "5", "3 4 0 0  -2"]


def test_sector_values_of_a_solved_game(ranked):
    db, rules, g, r = ranked[FLYING4]
    sv = r.secvals
    assert sv.values[(3, 4, 0, 0)] == -sv.values[(4, 3, 0, 0)] != 0  # twins zero-sum
    assert sv.values[(3, 3, 0, 0)] == sv.values[(4, 4, 0, 0)] == 0
    transients = [v for t, v in sv.values.items() if t[2] or t[3]]
    assert len(set(transients)) == len(transients)  # tiers with men in hand: all different
    assert sv.virt_win == -sv.virt_loss > max(abs(v) for v in sv.values.values())
    # a higher share never gets a lower value
    order = sorted(sv.values, key=lambda t: sv.ratios[t])
    vals = [sv.values[t] for t in order if (t[0], t[1]) != (t[1], t[0]) or t[2] != t[3] or t[2]]
    assert vals == sorted(vals)


def test_ranks_cover_the_draws_and_nothing_else(ranked):
    for db, rules, g, r in ranked.values():
        before = {info.name: info.checksum for info in db.tiers()}
        for t in g.tiers:
            slots, rank, depth = r.tier_arrays(t)
            values = db.values(*t)
            assert np.array_equal(slots, np.flatnonzero(values == 0))
            assert rank.shape == depth.shape == slots.shape
            full_rank, full_depth = r.slot_arrays(t, values.size)
            assert full_rank.dtype == full_depth.dtype == np.int16
            assert np.array_equal(full_rank[slots], rank) and np.array_equal(full_depth[slots], depth)
            assert np.all(full_rank[values != 0] == NO_RANK) and np.all(full_depth[values != 0] == 0)
            for v in np.unique(rank):  # every rank names the tier the draw settles in
                assert r.secvals.tiers_worth(int(v))
        assert {info.name: info.checksum for info in Database(db.path).tiers()} == before


def test_the_kernel_equals_the_plain_analysis(ranked):
    for db, rules, g, r in ranked.values():
        plain = rank_draws_plain(g, rules, r.secvals)
        assert np.array_equal(plain.rank, r.rank) and np.array_equal(plain.tempo, r.tempo)


def _bellman(g, r):
    """(rank, tempo) of the best drawing move of each node, for its side to move; None where
    it has none (a draw with no move)."""
    own = r.own_value()
    best = []
    for v in range(g.nodes):
        b = None
        for c in g.children[g.start[v] : g.start[v + 1]]:
            x = move_value(int(r.rank[c]), int(r.tempo[c]), int(own[v]))
            if b is None or better(x, b):
                b = x
        best.append(b)
    return best


def test_a_rank_is_its_best_drawing_move(ranked):
    """Each draw's (rank, tempo) is that of its best drawing move: one move reaches it, none beats
    it; a rank equal to the own tier's value carries no depth."""
    db, rules, g, r = ranked[FLYING4]
    best = _bellman(g, r)
    own = r.own_value()
    assert all(b is not None for b in best)
    assert [b for b in best] == list(zip(r.rank.tolist(), r.tempo.tolist()))
    assert np.all(r.tempo[r.rank == own] == 0)


def _malom_move(key1: int, key2: int, own_child: int, own_parent: int) -> tuple[int, int]:
    """A successor's stored (key1, key2), relative to its own tier's value, as its mover's
    candidate relative to the mover's tier: Malom's ``corr(sval_c + sval_p)`` (eval_elem.cpp:155-158,
    the sign "magic" included) then ``undo_negate`` (common.h:218), literally. A count (key1 = 0)
    comes through corr with key2 = 0."""
    k = key1 + own_child + own_parent
    d = (1 if k * key1 > 0 else -1 if k * key1 < 0 else 0) * key2
    return -k, d + 1


def _malom_better(x: tuple[int, int], y: tuple[int, int]) -> bool:
    """eval_elem2::operator< (eval_elem.cpp:160-170), as y < x."""
    if x[0] != y[0]:
        return x[0] > y[0]
    if x[0] < 0:
        return x[1] > y[1]
    if x[0] > 0:
        return x[1] < y[1]
    return False


def _brute_force_pairs(g, rules, values) -> list:
    """Malom's stored (key1, key2) of every node, key1 relative to its own tier's value and None
    for a position left undecided (a count): negamax over the explicit graph in Malom's own terms,
    iterated to a fixpoint one group at a time (a node recomputed whenever a child changes): a
    value better than the own tier's (key1 > 0) as soon as a move reaches it, a worse one once
    every move is known, a value equal to the own tier's never (it stays a count)."""
    own = np.array([values[t] for t in g.tiers], dtype=np.int64)[g.tier_of].tolist()
    start, children, tier_of = g.start.tolist(), g.children.tolist(), g.tier_of.tolist()
    parents = [[] for _ in range(g.nodes)]
    for v in range(g.nodes):
        for c in children[start[v] : start[v + 1]]:
            parents[c].append(v)
    val: list = [None] * g.nodes
    final = [False] * g.nodes
    tier_index = {t: i for i, t in enumerate(g.tiers)}
    for group in groups_in_order(rules, g.tiers):
        inside = {tier_index[t] for t in group.tiers if t in tier_index}
        nodes = [v for v in range(g.nodes) if tier_of[v] in inside]
        work, queued = deque(nodes), set(nodes)
        while work:
            v = work.popleft()
            queued.discard(v)
            best, missing = None, False
            for c in children[start[v] : start[v + 1]]:
                if val[c] is None and not final[c]:
                    missing = True
                    continue
                key1, key2 = val[c] if val[c] is not None else (0, 0)
                x = _malom_move(key1, key2, own[c], own[v])
                if best is None or _malom_better(x, best):
                    best = x
            new = best if best is not None and (best[0] > 0 or not missing) else None
            if new is not None and new[0] == 0:
                new = None
            if new != val[v]:
                val[v] = new
                for p in parents[v]:
                    if tier_of[p] in inside and p not in queued:
                        work.append(p)
                        queued.add(p)
        for v in nodes:
            final[v] = True
    return val


def test_ranks_and_depths_equal_a_negamax_in_malom_terms(ranked):
    """Our (rank, tempo) against Malom's own representation, computed by another route: where
    the negamax decides a position its key1 and key2 are rank minus the own tier's value and
    ``depth()``; where it leaves a count, the rank is the own tier's value."""
    for key, (db, rules, g, r) in ranked.items():
        brute = _brute_force_pairs(g, rules, r.secvals.values)
        own, depth = r.own_value(), r.depth()
        ours = [None if rk == o else (rk - o, int(d)) for rk, o, d in zip(r.rank.tolist(), own.tolist(), depth.tolist())]
        assert brute == ours, key


def test_draw_graph_equals_the_reference_move_generator(ranked):
    """The graph's edges for a sample of draws of every tier, against tests/reference.py's own
    move generation (no symmetry, no numba): the same drawn successors."""
    db, rules, g, r = ranked[FLYING4]
    gen, ix = MoveGen(rules), board_index(rules.board)
    rng = np.random.default_rng(22)
    checked = 0
    for i, (a, b, ha, hb) in enumerate(g.tiers):
        lo, hi = int(g.offset[i]), int(g.offset[i + 1])
        for v in rng.choice(np.arange(lo, hi), size=min(40, hi - lo), replace=False) if hi > lo else []:
            mover, opp = ix.unrank(a, b, int(g.slots[i][v - lo]))
            want = set()
            for m2, o2 in gen.moves(mover, opp, ha):
                h2 = ha - (m2.bit_count() - mover.bit_count()) if ha else 0
                t = (o2.bit_count(), m2.bit_count(), hb, h2)
                want.add(g.node(t, ix.rank(o2, m2)) if t in g.tiers else -1)
            want.discard(-1)
            assert set(g.children[g.start[v] : g.start[v + 1]].tolist()) == want, ((a, b, ha, hb), mover, opp)
            checked += 1
    assert checked > 400


def _brute_force_ranks(g, rules, values) -> np.ndarray:
    own = np.array([values[t] for t in g.tiers], dtype=np.int64)[g.tier_of]
    xs = sorted({v for x in values.values() for v in (x, -x)})
    tier_index = {t: i for i, t in enumerate(g.tiers)}
    rank = np.full(g.nodes, np.iinfo(np.int64).min)
    counts = np.diff(g.start)
    src = np.repeat(np.arange(g.nodes), counts)
    done = np.zeros(g.nodes, dtype=bool)
    for group in groups_in_order(rules, g.tiers):
        members = [tier_index[t] for t in group.tiers if t in tier_index]
        nodes = np.flatnonzero(np.isin(g.tier_of, members) & (counts > 0))
        pos = np.full(g.nodes, -1)
        pos[nodes] = np.arange(nodes.size)
        edges = np.flatnonzero(pos[src] >= 0)  # the group's own edges, its sources renumbered
        esrc, echild, ecount = pos[src[edges]], g.children[edges], counts[nodes]
        for x in xs:
            # ge[v]: v's side to move forces a rank >= x; le[v]: it cannot get more than -x.
            # Decided nodes (earlier groups) are fixed; the group's start where endless play
            # puts them: its own tier's value against x.
            ge = np.where(done, rank >= x, own >= x)
            le = np.where(done, rank <= -x, own <= -x)
            while True:
                new_ge = np.bincount(esrc, weights=le[echild], minlength=nodes.size) > 0
                new_le = np.bincount(esrc, weights=ge[echild], minlength=nodes.size) == ecount
                if np.array_equal(new_ge, ge[nodes]) and np.array_equal(new_le, le[nodes]):
                    break
                ge[nodes], le[nodes] = new_ge, new_le
            rank[nodes[ge[nodes]]] = np.maximum(rank[nodes[ge[nodes]]], x)
        terminal = np.flatnonzero(np.isin(g.tier_of, members) & (counts == 0))
        rank[terminal] = own[terminal]  # a draw with no move stays in its tier
        done[np.isin(g.tier_of, members)] = True
    return rank


def test_ranks_equal_a_brute_force_of_the_definition(ranked):
    for key, (db, rules, g, r) in ranked.items():
        brute = _brute_force_ranks(g, rules, r.secvals.values)
        assert np.array_equal(brute, r.rank), key


def test_ranks_spread_where_twins_draw(ranked):
    """With flying, 3-4 and 4-3 are mostly draws: some draws of 4-4 settle there (the side with 4
    men gets 4-3's value, the other 3-4's), and the others in 4-4 or 3-3 (value 0)."""
    db, rules, g, r = ranked[FLYING4]
    sv = r.secvals.values
    _, rank, _ = r.tier_arrays((4, 4, 0, 0))
    assert set(np.unique(rank).tolist()) == {sv[(3, 4, 0, 0)], 0, sv[(4, 3, 0, 0)]}
    _, rank3, depth3 = r.tier_arrays((3, 3, 0, 0))
    assert np.all(rank3 == 0) and np.all(depth3 == 0)  # 3-3 leads nowhere but 3-3 among draws
    # without twins every draw settles in 3-3
    assert np.all(ranked[THREE][3].rank == 0) and np.all(ranked[STD3][3].rank == 0)

