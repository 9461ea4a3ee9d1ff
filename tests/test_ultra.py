"""Draw ranks (``solver.ultra``): Malom's sector values, and its multi-valued retrograde analysis
checked against a computation of the same definition by another route, on small whole games.

The brute force ranks each draw by fixpoints, one threshold x at a time: "the side to move can
force a rank of at least x" is a least fixpoint where play that goes round for ever in the tier
falls short of x (its own tier's value is below x) and a greatest one where it does not; the rank
is the largest x it holds for. Nothing of Malom's queue order, counts or frames is used.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver.rules import make_rules
from solver.storage.database import Database
from solver.tiers import groups_in_order
from solver.ultra import better, database_stats, draw_graph, move_value, rank_draws, sector_values

# Six Men's Morris with 4 men and flying: twins (3-4 and 4-3) full of draws, so ranks spread over
# several tiers' values; and 3 men, where every draw settles in 3-3.
FLYING4 = ("six", ("men=4", "flying=at-3"))
SIX3 = ("six", ("men=3",))


@pytest.fixture(scope="module")
def ranked(solved_whole):
    """{game: (database, rules, graph, ranks)}, built once."""
    out = {}
    for rule_set, options in (FLYING4, SIX3):
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
            assert np.array_equal(slots, np.flatnonzero(db.values(*t) == 0))
            assert rank.shape == depth.shape == slots.shape
        assert {info.name: info.checksum for info in Database(db.path).tiers()} == before


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
    # without twins every draw of six with 3 men settles in 3-3
    assert np.all(ranked[SIX3][3].rank == 0)

