"""Draw ranks of the moving phase without a graph (``solver.ultra.implicit``): position by position
the explicit analysis's (``ranks.rank_draws``: the draw graph and Malom's queue), on small games
whose draws spread over several ranks.

- Six Men's Morris with 4 men and flying, solved whole: its moving phase ranked with the whole
  game's sector values (the twins 3-4/4-3 full of draws, 4-4's draws over three ranks);
- Six Men's Morris's moving phase to 5 men (5-5's draws over three ranks, 4-5 and 5-4 one each),
  with its own sector values and with random ones (twins opposite, symmetric tiers 0: what the
  analysis assumes), which spread the draws over many more ranks;
- slow: Six Men's Morris's moving phase to 6 men with random sector values (the only game here
  where a position's count of moves inside the group ends before its removals' last bad value,
  or where two removals give it different bad values); the standard board's to 4 men.

The ranks are compared with their tempo (Malom's depth), and the comparisons are not vacuous:
the draws spread over several ranks and tempos. Mutations of ``implicit.py`` tried by hand: one
more in a count, a tempo of 2 per ply, a removal that settles at the tier's value not holding the
count fail the default tests; the first bad removal value kept instead of the last, or a count's
end not waiting for the removals' last bad value, fail the slow test (222 and 39 draws). Taking a
level's bad values before its good ones changes nothing on any game here (see ``implicit``'s
note), nor does dropping the position before a pass under ``blocked=passes`` (no drawn position
of Six Men's Morris to 5 men is blocked): that path is untested.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.rules import make_rules
from solver.storage.database import Database
from solver.ultra import database_stats, draw_graph, rank_draws, sector_values
from solver.ultra.implicit import LAST, NO_RANK, key_value, level_key, rank_moving_phase, rank_pair
from solver.ultra.whole import plan

FLYING4 = ("six", ("men=4", "flying=at-3"))


def _random_values(secvals, seed: int, span: int):
    """The sector values replaced by random ones that keep what the analysis needs: twins
    opposite and non-zero, symmetric moving tiers 0."""
    rng = np.random.default_rng(seed)
    vals: dict = {}
    for t in sorted(secvals.values):
        a, b, ha, hb = t
        tw = (b, a, hb, ha)
        if tw == t:
            vals[t] = int(rng.integers(-span, span + 1)) if ha or hb else 0
        elif tw in vals:
            vals[t] = -vals[tw]
        else:
            vals[t] = int(rng.integers(1, span + 1)) * int(rng.choice([-1, 1]))
    return dataclasses.replace(secvals, values=vals)


def _explicit(db, secvals=None):
    """The explicit analysis over the whole database: {tier: (draw slots, rank, tempo)}."""
    rules = db.rules
    secvals = secvals or sector_values(rules, database_stats(db))
    g = draw_graph(db, rules)
    r = rank_draws(g, rules, secvals)
    out = {}
    for i, t in enumerate(g.tiers):
        lo, hi = int(g.offset[i]), int(g.offset[i + 1])
        out[t] = (g.slots[i], r.rank[lo:hi], r.tempo[lo:hi])
    return secvals, out


def _compare(db, secvals=None):
    """Rank the moving phase both ways; assert them equal slot by slot; return the explicit
    ranks' distinct (rank, tempo) pairs, to check that the test means something."""
    secvals, explicit = _explicit(db, secvals)
    implicit = rank_moving_phase(db, db.rules, secvals)
    moving = [t for t in explicit if t[2] == 0 and t[3] == 0]
    assert sorted(implicit) == sorted(moving)
    pairs = set()
    for t in moving:
        slots, rank, tempo = explicit[t]
        r, tp = implicit[t]
        assert r.shape == tp.shape == (db.values(*t).shape[0],)
        assert np.all(np.delete(r, slots) == NO_RANK), t  # no rank where there is no draw
        wrong = np.flatnonzero((r[slots] != rank) | (tp[slots] != tempo))
        assert wrong.size == 0, (
            f"{t}: {wrong.size} of {slots.size} draws differ, first at slot {slots[wrong[0]]}: "
            f"implicit {(int(r[slots[wrong[0]]]), int(tp[slots[wrong[0]]]))}, "
            f"explicit {(int(rank[wrong[0]]), int(tempo[wrong[0]]))}"
        )
        pairs |= set(zip(rank.tolist(), tempo.tolist()))
    return pairs


def test_level_keys_are_the_explicit_queue_order():
    """One int per queue key, in the explicit heap's order (-|k|, tempo * sign(k)), and the key
    gives the value back for a tier, good or bad."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        v = int(rng.integers(-40, 41))
        (r1, t1), (r2, t2) = [(int(rng.integers(-60, 61)), int(rng.integers(-50, 51))) for _ in range(2)]
        k1, k2 = r1 - v, r2 - v
        if k1 == 0:
            assert level_key(r1, t1, v) == LAST
            continue
        if k2 == 0:
            continue
        heap1, heap2 = (-abs(k1), t1 * np.sign(k1)), (-abs(k2), t2 * np.sign(k2))
        assert (heap1 < heap2) == (level_key(r1, t1, v) < level_key(r2, t2, v))
        assert (heap1 == heap2) == (level_key(r1, t1, v) == level_key(r2, t2, v))
        assert key_value(level_key(r1, t1, v), v, r1 > v) == (r1, t1)


def test_moving_phase_of_a_whole_game_equals_the_explicit_analysis(solved_whole):
    """Six Men's Morris with 4 men and flying, with the whole game's sector values."""
    db = Database(solved_whole(*FLYING4).path)
    pairs = _compare(db)
    assert len({r for r, _ in pairs}) >= 3 and len({t for _, t in pairs}) >= 5


def test_moving_phase_to_five_men_equals_the_explicit_analysis(solved_db):
    db = Database(solved_db("six", 5))
    pairs = _compare(db)
    assert len({r for r, _ in pairs}) >= 3 and len({t for _, t in pairs}) >= 5


# one seed in the default run, two more under -m slow
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])
def test_random_sector_values_on_the_moving_phase_to_five_men(solved_db, seed):
    db = Database(solved_db("six", 5))
    sv = sector_values(db.rules, database_stats(db))
    spread = _compare(db, _random_values(sv, seed, 8))
    assert len({r for r, _ in spread}) >= 3  # (three ranks apart at least, for one seed)


def test_a_sink_gets_every_tier_and_the_rest_is_dropped(solved_db):
    """With a sink, each tier goes out once as its group is done, and what no later group reads
    is dropped; ``plan`` says what a group holds."""
    db = Database(solved_db("six", 5))
    whole = rank_moving_phase(db)
    got = {}
    kept = rank_moving_phase(db, sink=lambda t, r, tp: got.setdefault(t, (r, tp)))
    assert sorted(got) == sorted(whole)
    for t in whole:
        assert np.array_equal(got[t][0], whole[t][0]) and np.array_equal(got[t][1], whole[t][1])
    assert set(kept) < set(whole) and min(sum(t[:2]) for t in kept) == 9  # 4-5, 5-4, 5-5: what 6 men would read
    groups = plan(db)
    g55 = next(p for p in groups if p["tiers"] == ((5, 5, 0, 0),))
    assert g55["bytes"] == 8 * db.info(5, 5).slots + 4 * db.info(4, 5).slots


def test_a_group_needs_its_smaller_subspaces_ranked(solved_db):
    db = Database(solved_db("six", 5))
    rules = db.rules
    secvals = sector_values(rules, database_stats(db))
    strong = {t: db.values(*t) for t in [(4, 5, 0, 0), (5, 4, 0, 0), (4, 4, 0, 0), (3, 5, 0, 0), (3, 4, 0, 0)]}
    with pytest.raises(ValueError, match="not ranked yet"):
        rank_pair(rules, ((4, 5, 0, 0), (5, 4, 0, 0)), strong, secvals, {})
    with pytest.raises(ValueError, match="moving phase only"):
        rank_pair(rules, ((0, 0, 4, 4),), strong, secvals, {})


@pytest.mark.slow
def test_random_sector_values_on_the_moving_phase_to_six_men(solved_db):
    """About 30 s: the solve to 6 men (15 s), then each comparison about 3 s."""
    db = Database(solved_db("six", 6))
    sv = sector_values(db.rules, database_stats(db))
    _compare(db)
    for seed in range(3):
        _compare(db, _random_values(sv, seed, 30))


@pytest.mark.slow
def test_standard_moving_phase_to_four_men_equals_the_explicit_analysis(solved_db):
    """About a minute and 5 GiB (the explicit graph of 4.6 M draws)."""
    db = Database(solved_db("standard", 4))
    _compare(db)
    _compare(db, _random_values(sector_values(db.rules, database_stats(db)), 0, 8))
