"""The pass over tiers whose mover only places (``kernels.placements.placement_pass``: the
positions visited in the order of the successor blocks they read, the successors' ranks derived
from the parent's) against the general pass (``kernels.placing.tier_pass``: the tier's own slot
order, every successor ranked from scratch), slot by slot on the same solved inputs, under the
rule options that change placements: removals per mill and optional, forfeited removals, a mill
that wins at once (three), the diagonal board's symmetries. Both are checked against the
plain-Python reference through the whole games of ``test_whole_game.py``; this test pins the
new kernel to the old one on every tier, including those the reference's games do not reach
with every option."""

from __future__ import annotations

import numpy as np
import pytest

from solver.engine.kernels import placements, placing
from solver.engine.placing import _inputs, _places_only
from solver.index import board_index
from solver.index.compact import rank_tables
from solver.rules import make_rules
from solver.rules.tables import game_tables
from solver.storage.database import Database
from solver.tiers import groups_in_order, needed_by, tier_name, whole_game_tiers
from solver.values import DUP, NO_VALUES

CASES = [
    ("three", []),
    ("six", ["men=4"]),
    ("six", ["men=4", "double-mill=per-mill", "removal=optional"]),
    ("six", ["men=4", "removal=optional"]),
    ("six", ["men=5", "double-mill=per-mill"]),  # 5 men: a placement can close two mills at once
    ("six", ["men=4", "removal-from-mills=forfeit", "blocked=passes"]),
    ("standard", ["men=3"]),
    ("twelve", ["men=3"]),
]


def placing_tiers(rules, db):
    """(tier, successor inputs) of every tier of the whole game whose mover only places."""
    for group in groups_in_order(rules, whole_game_tiers(rules)):
        if group.moving_phase:
            continue
        needed = set(needed_by(rules, group))
        for t in group.tiers:
            succ, internal = _inputs(rules, group, t, needed, lambda s: db.values(*s))
            if _places_only(rules, group, t, internal):
                yield t, succ, internal


def general_pass(t, succ, internal, g, ix, slots):
    value = np.empty(slots, dtype=np.uint16)
    one = np.zeros(1, dtype=np.int32)
    bad = placing.tier_pass(*t, 0, value, one, np.zeros(1, np.uint16), np.zeros(1, np.uint16), succ, internal, g, ix)
    return value, bad


@pytest.mark.parametrize("name,options", CASES, ids=["-".join([n, *o]) for n, o in CASES])
def test_placement_pass_equals_the_general_pass(solved_whole, name, options):
    rules = make_rules(name, options)
    index, g = board_index(rules.board), game_tables(rules)
    compared = 0
    with Database(solved_whole(name, options).path) as db:
        for t, succ, internal in placing_tiers(rules, db):
            slots = index.slots(t[0], t[1])
            fast = np.full(slots, 7, dtype=np.uint16)  # (anything it fails to write shows)
            assert placements.placement_pass(*t, fast, succ, g, index.tables, rank_tables()) == 0
            slow, bad = general_pass(t, succ, internal, g, index.tables, slots)
            assert bad == 0
            differ = np.flatnonzero(fast != slow)
            assert differ.size == 0, f"{tier_name(t)}: {differ.size} slots differ, the first {differ[:5]}"
            np.testing.assert_array_equal(fast, db.values(*t))
            compared += int((fast != DUP).sum())
    assert compared > 0


def test_a_missing_successor_tier_is_counted_not_read(solved_whole):
    """Every successor read past the end of its tier (here: an input given as the empty
    stand-in) is counted, so that the caller refuses the tier; placements without a removal and
    with one are each checked."""
    rules = make_rules("six", ["men=4"])
    index, g = board_index(rules.board), game_tables(rules)
    with Database(solved_whole("six", ["men=4"]).path) as db:
        # a tier that reads both kinds: its opponent keeps three men after a removal
        t, succ, _ = next((t, s, i) for t, s, i in placing_tiers(rules, db) if t == (3, 3, 1, 1))
        assert succ[0].size and succ[1].size
        value = np.empty(index.slots(3, 3), dtype=np.uint16)
        assert placements.placement_pass(*t, value, succ, g, index.tables, rank_tables()) == 0
        for kind in (0, 1):
            broken = tuple(NO_VALUES if k == kind else s for k, s in enumerate(succ))
            assert placements.placement_pass(*t, value, broken, g, index.tables, rank_tables()) > 0
