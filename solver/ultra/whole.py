"""A whole game's draw ranks without a graph: the moving phase group by group (``implicit``), then
every tier with men in hand in one pass (``placing``), in the order the strong solve took them.

``rank_game`` hands each finished tier to a ``sink`` (``store`` writes it into the database) and,
given a ``load`` that reads finished tiers back, holds no more than the group it ranks and the
tiers that group reads (``plan``); ``done`` names the tiers a killed run finished, which are
skipped. Groups whose tiers with men in hand cycle (Lasker's rule) are refused: they need the
explicit graph (``ranks.rank_draws``).
"""

from __future__ import annotations

import time

import numpy as np

from ..index import board_index
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..tiers import Group, Tier, groups_in_order, needed_by, successor_kinds, tier_name
from .implicit import rank_pair
from .placing import placing_pass
from .secval import SectorValues

# bytes a slot: a moving-phase group (state, count, rank, tempo, strong value), a tier with men
# in hand (strong value, rank, tempo), and a tier a group reads (rank, tempo)
MOVING_BYTES = 8
PLACING_BYTES = 6
READ_BYTES = 4
EMPTY = np.zeros(0, dtype=np.int16)


class CyclingTiers(ValueError):
    """Tiers with men in hand that cycle (Lasker's rule): ranked over the explicit draw graph."""


def refuse_cycles(rules: RuleSet, groups: list[Group]) -> None:
    """CyclingTiers (a ValueError) where tiers with men in hand cycle (Lasker's rule): the implicit path has no
    retrograde analysis for them."""
    cyc = [g for g in groups if g.cycles and not g.moving_phase]
    if cyc:
        raise CyclingTiers(
            f"tiers with men in hand cycle under these rules ({cyc[0].name} and {len(cyc) - 1} more groups: "
            "men move while others are in hand), which only the explicit draw graph ranks"
        )


def reads(rules: RuleSet, group: Group, present: set) -> list[Tier]:
    """The tiers outside ``group`` whose ranks it reads (those of ``present``)."""
    return [t for t in needed_by(rules, group) if t in present]


def rank_placing_tier(rules: RuleSet, t: Tier, strong: np.ndarray, secvals: SectorValues, held: dict, g=None, ix=None):
    """(rank, tempo) of tier ``t`` with men in hand from its strong values and ``held[s]``, the
    (rank, tempo) of each successor tier s; ValueError where a draw's move finds no ranked slot."""
    g = g if g is not None else game_tables(rules)
    ix = ix if ix is not None else board_index(rules.board).tables
    kinds = successor_kinds(t)
    succ_rank = tuple(np.ascontiguousarray(held[s][0]) if s in held else EMPTY for s in kinds)
    succ_tempo = tuple(np.ascontiguousarray(held[s][1]) if s in held else EMPTY for s in kinds)
    rank = np.empty(strong.shape[0], dtype=np.int16)
    tempo = np.empty(strong.shape[0], dtype=np.int16)
    bad = placing_pass(*t, strong, secvals.values[t], succ_rank, succ_tempo, rank, tempo, g, ix)
    if bad:
        raise ValueError(f"{tier_name(t)}: {bad} drawing moves lead into tiers not ranked yet")
    return rank, tempo


def rank_game(db, rules: RuleSet | None = None, secvals: SectorValues | None = None, sink=None, load=None,
              done: set | None = None, echo=None) -> dict:
    """{tier: (rank, tempo)} over every slot of every tier of the whole-game database ``db``,
    equal to ``ranks.rank_draws`` on its draws (NO_RANK, 0 elsewhere). ``sink(t, rank, tempo)``
    gets each tier as its group is finished. With ``load(t) -> (rank, tempo)`` (a finished
    tier read back) only what the next group reads is kept, and the result holds just that;
    without it everything is kept. Groups whose tiers are all in ``done`` are skipped (their
    ranks are read through ``load`` where a later group needs them). ``echo`` gets a line a
    group. ValueError where tiers with men in hand cycle (``refuse_cycles``)."""
    from .secval import database_stats, sector_values

    rules = rules or db.rules
    secvals = secvals or sector_values(rules, database_stats(db))
    present = set(db.tier_keys())
    groups = groups_in_order(rules, sorted(present))
    refuse_cycles(rules, groups)
    done = done or set()
    g, ix = game_tables(rules), board_index(rules.board).tables
    held: dict = {}
    for i, grp in enumerate(groups):
        if all(t in done for t in grp.tiers):
            continue
        t0 = time.perf_counter()
        for s in reads(rules, grp, present):
            if s not in held:
                if load is None:
                    raise ValueError(f"{grp.name} reads {tier_name(s)}, which is neither ranked here nor loadable")
                held[s] = load(s)
        if grp.moving_phase:
            strong = {t: db.values(*t) for t in grp.tiers}
            rank_pair(rules, grp.tiers, strong, secvals, held)
            del strong
        else:
            (t,) = grp.tiers
            held[t] = rank_placing_tier(rules, t, db.values(*t), secvals, held, g, ix)
        for t in grp.tiers:
            if sink is not None:
                sink(t, *held[t])
        if echo is not None:
            slots = sum(held[t][0].shape[0] for t in grp.tiers)
            echo(f"{grp.name}: {slots:,} slots in {time.perf_counter() - t0:.1f} s")
        if load is not None:
            later = set(reads(rules, groups[i + 1], present)) if i + 1 < len(groups) else set()
            for t in grp.tiers:
                if t in later and any(u not in later for u in grp.tiers):
                    held[t] = (held[t][0].copy(), held[t][1].copy())  # (a view would keep the whole group's arrays)
            for t in [t for t in held if t not in later]:
                del held[t]
    return held


def plan(db, rules: RuleSet | None = None) -> list[dict]:
    """Memory of each group of ``db`` ranked without a graph (``rank_game`` with ``load``), in
    bytes: per slot of the group ``MOVING_BYTES`` (the moving phase) or ``PLACING_BYTES`` (a tier
    with men in hand), per slot of each tier it reads ``READ_BYTES``. One dict a group, in the
    order they are ranked: tiers, slots, lower_slots (of the tiers it reads), bytes."""
    rules = rules or db.rules
    present = set(db.tier_keys())
    out = []
    for grp in groups_in_order(rules, sorted(present)):
        slots = sum(db.info(*t).slots for t in grp.tiers)
        lower_slots = sum(db.info(*u).slots for u in reads(rules, grp, present))
        per = MOVING_BYTES if grp.moving_phase else PLACING_BYTES
        out.append({"tiers": grp.tiers, "slots": slots, "lower_slots": lower_slots, "bytes": per * slots + READ_BYTES * lower_slots})
    return out
