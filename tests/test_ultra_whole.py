"""A whole game's draw ranks without a graph (``solver.ultra.whole``: the moving phase by
``implicit``, the tiers with men in hand by ``placing``): position by position, rank and tempo,
the explicit analysis's (``ranks.rank_draws``) on every tier of small whole games.

- Six Men's Morris with 4 men and flying, with the game's sector values and with random ones
  (which spread the placing tiers' draws over many ranks: with the game's own, 3);
- Three Men's Morris, also solved with --extended (moves into a twin), the standard board with 3
  men; slow: the standard board with 4 men;
- the old rules' options on the six board: passes (default run), optional removal, two removals
  per move (5 men), forfeited removals without flying (slow);
- ``plan``'s bytes a group; Lasker's rule refused in one line. (Resuming a killed run through
  ``morris rank``: tests/test_ultra_store.py.)

Mutations of ``placing.py`` tried by hand: the larger tempo kept among equal ranks, a draw with no
drawing move given (NO_RANK, 0) instead of its tier's value, the kind of a move taken as a
placement's
fail (the first two ``test_whole_flying4_...``, the third ``test_whole_three_extended_...``). Not
checked: a drawn position with men in hand and no move (none in these rule sets: a full board
leaves no man in hand).
"""

from __future__ import annotations

import numpy as np
import pytest

from test_ultra_implicit import FLYING4, _random_values

from solver.rules import make_rules
from solver.storage.database import Database
from solver.tiers import groups_in_order, whole_game_tiers
from solver.ultra import NO_RANK, database_stats, draw_graph, rank_draws, sector_values
from solver.ultra.whole import plan, rank_game, refuse_cycles


def _compare(db, secvals=None):
    """Rank the whole game both ways and assert them equal slot by slot; return the explicit
    (rank, tempo) pairs of the tiers with men in hand (the test means something where they are
    many)."""
    rules = db.rules
    secvals = secvals or sector_values(rules, database_stats(db))
    g = draw_graph(db, rules)
    explicit = rank_draws(g, rules, secvals)
    implicit = rank_game(db, rules, secvals)
    assert sorted(implicit) == sorted(g.tiers)
    pairs = set()
    for i, t in enumerate(g.tiers):
        lo, hi = int(g.offset[i]), int(g.offset[i + 1])
        slots, rank, tempo = g.slots[i], explicit.rank[lo:hi], explicit.tempo[lo:hi]
        r, tp = implicit[t]
        assert r.shape == tp.shape == (db.info(*t).slots,)
        assert np.all(np.delete(r, slots) == NO_RANK) and np.all(np.delete(tp, slots) == 0), t
        wrong = np.flatnonzero((r[slots] != rank) | (tp[slots] != tempo))
        assert wrong.size == 0, (
            f"{t}: {wrong.size} of {slots.size} draws differ, first at slot {slots[wrong[0]]}: implicit "
            f"{(int(r[slots[wrong[0]]]), int(tp[slots[wrong[0]]]))}, explicit {(int(rank[wrong[0]]), int(tempo[wrong[0]]))}"
        )
        if t[2] or t[3]:
            pairs |= set(zip(rank.tolist(), tempo.tolist()))
    return pairs


def test_whole_flying4_equals_the_explicit_analysis(solved_whole):
    db = Database(solved_whole(*FLYING4).path)
    pairs = _compare(db)
    assert len({r for r, _ in pairs}) >= 3 and len(pairs) >= 50
    sv = sector_values(db.rules, database_stats(db))
    spread = _compare(db, _random_values(sv, 0, 12))  # (the draws settle in 3-3, 4-4, 3-4 or 4-3 whatever the values)
    assert len({r for r, _ in spread}) == 3 and spread != pairs


def test_whole_three_extended_equals_the_explicit_analysis(tmp_path):
    """Three Men's Morris solved with --extended: tiers where the mover has no man in hand and
    the opponent has (3-2-0-1), whose moves lead into the twin's tier (a game from the start never
    reaches them: the side to move has placed no fewer men)."""
    from click.testing import CliRunner

    from solver.cli import main

    path = tmp_path / "three-extended.h5"
    res = CliRunner().invoke(main, ["solve", "--whole-game", "--extended", "--rules", "three", "--db", str(path), "-q"])
    assert res.exit_code == 0, res.output
    db = Database(path)
    assert any(t[2] == 0 and t[3] > 0 and db.info(*t).draw for t in db.tier_keys())
    _compare(db)


@pytest.mark.parametrize("game", [("three", ()), ("standard", ("men=3",))])
def test_whole_small_games_equal_the_explicit_analysis(solved_whole, game):
    db = Database(solved_whole(*game).path)
    _compare(db)
    _compare(db, _random_values(sector_values(db.rules, database_stats(db)), 1, 6))


@pytest.mark.parametrize(
    "game",
    [
        ("six", ("men=4", "blocked=passes")),  # the position before a pass among the predecessors
        pytest.param(("six", ("men=4", "removal=optional")), marks=pytest.mark.slow),
        pytest.param(("six", ("men=5", "double-mill=per-mill")), marks=pytest.mark.slow),  # two removals in one move
        pytest.param(("six", ("men=4", "removal-from-mills=forfeit", "flying=never")), marks=pytest.mark.slow),
    ],
    ids=lambda g: " ".join(g[1]),
)
def test_whole_old_rules_equal_the_explicit_analysis(solved_whole, game):
    """The old rule sets' options (issue 20), which ``morris rank`` takes like any other."""
    db = Database(solved_whole(*game).path)
    _compare(db)
    _compare(db, _random_values(sector_values(db.rules, database_stats(db)), 2, 8))


def test_plan_counts_each_group_and_what_it_reads(solved_whole):
    db = Database(solved_whole(*FLYING4).path)
    groups = plan(db)
    assert sum(len(p["tiers"]) for p in groups) == len(db.tier_keys())
    start = next(p for p in groups if p["tiers"] == ((0, 0, 4, 4),))
    assert start["bytes"] == 6 * db.info(0, 0, 4, 4).slots + 4 * db.info(0, 1, 4, 3).slots
    g44 = next(p for p in groups if p["tiers"] == ((4, 4, 0, 0),))
    assert g44["bytes"] == 8 * db.info(4, 4).slots + 4 * db.info(3, 4).slots


def test_lasker_is_refused():
    rules = make_rules("six", ["men=4", "lasker=on"])
    with pytest.raises(ValueError, match="only the explicit draw graph"):
        refuse_cycles(rules, groups_in_order(rules, whole_game_tiers(rules)))
    rules = make_rules("six", ["men=4"])
    refuse_cycles(rules, groups_in_order(rules, whole_game_tiers(rules)))


@pytest.mark.slow
def test_whole_standard_four_men_equals_the_explicit_analysis(solved_whole):
    """About 2 minutes and 5 GiB (the explicit graph of 5.8 M draws)."""
    _compare(Database(solved_whole("standard", ("men=4",)).path))
