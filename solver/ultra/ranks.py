"""Draw ranks: Malom's multi-valued retrograde analysis (its ``DD`` build), over the draws only.

A drawn position's value is a pair. ``rank`` is the sector value (``secval``) of the tier where
the game settles into a draw under best play, from the side to move's view: a game that cycles
for ever in a tier and its twin settles there; each side steers towards the tier best for it.
``depth`` is Malom's key2 as its file stores it, relative to the position's own tier: the plies
until the game settles, which the side to move shortens where its rank beats its own tier's value
and draws out where it falls short (0, and no meaning, where the rank is the own tier's value).

Internally a value is ``(rank, tempo)`` with ``tempo = depth * sign(rank - own tier's value)``:
smaller is then always better for the side to move, whatever the tier, and a move's value for the
mover before it is ``(-rank, -tempo + sign(-rank - mover's tier value))`` (Malom's
``undo_negate`` after its ``corr``: eval_elem.cpp:155-158, common.h:218; docs/ultra-strong.md).

``rank_draws_plain`` is the analysis in plain Python, the one to read; ``rank_draws`` runs the same
steps in a numba kernel (``kernels.rank_groups``), and the tests hold the two equal.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ..rules.rulesets import RuleSet
from ..tiers import Tier, groups_in_order
from .graph import DrawGraph, draw_graph
from .secval import SectorValues, database_stats, sector_values


NO_RANK = 0x7FFF  # a slot with no draw in the stored rank arrays


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def move_value(rank: int, tempo: int, mover_value: int) -> tuple[int, int]:
    """The (rank, tempo) of a move for its mover, whose tier is worth ``mover_value``, from the
    (rank, tempo) of the position it leads to. A rank equal to the mover's tier value is a draw
    that settles there: its tempo is 0 (Malom keeps such positions as undecided counts)."""
    r = -rank
    return (r, 0) if r == mover_value else (r, -tempo + sign(r - mover_value))


def better(x: tuple[int, int], y: tuple[int, int]) -> bool:
    """Whether value x is strictly better than y for the same side to move."""
    return x[0] > y[0] or (x[0] == y[0] and x[1] < y[1])


@dataclass
class DrawRanks:
    """The ranks of a database's draws: ``rank[node]`` and ``tempo[node]`` over ``graph``'s nodes,
    and the tier values they were computed with."""

    graph: DrawGraph
    secvals: SectorValues
    rank: np.ndarray
    tempo: np.ndarray

    def own_value(self) -> np.ndarray:
        """Each node's own tier's sector value."""
        vals = np.array([self.secvals.values[t] for t in self.graph.tiers], dtype=np.int64)
        return vals[self.graph.tier_of]

    def depth(self) -> np.ndarray:
        """Malom's key2 of each node, relative to its own tier (``tempo`` times the sign of
        rank minus the own tier's value)."""
        return self.tempo * np.sign(self.rank - self.own_value())

    def slot_arrays(self, t: Tier, slots: int) -> tuple[np.ndarray, np.ndarray]:
        """(rank, depth) of every slot of tier ``t`` (``slots`` of them), as docs/ultra-strong.md
        proposes to store them: int16, ``NO_RANK`` and 0 where the slot holds no draw."""
        draw_slots, rank, depth = self.tier_arrays(t)
        lim = np.iinfo(np.int16)
        if rank.size and (rank.min() <= lim.min or rank.max() >= NO_RANK or depth.min() < lim.min or depth.max() > lim.max):
            raise ValueError(f"tier {t}: a rank or depth does not fit in int16")
        r = np.full(slots, NO_RANK, dtype=np.int16)
        d = np.zeros(slots, dtype=np.int16)
        r[draw_slots] = rank
        d[draw_slots] = depth
        return r, d

    def tier_arrays(self, t: Tier) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(draw slots, rank, depth) of tier ``t``."""
        i = self.graph.tiers.index(t)
        lo, hi = int(self.graph.offset[i]), int(self.graph.offset[i + 1])
        return self.graph.slots[i], self.rank[lo:hi], self.depth()[lo:hi]


def _parents(g: DrawGraph) -> tuple[np.ndarray, np.ndarray]:
    """Reverse edges in CSR form: rstart, parents (one per edge)."""
    src = np.repeat(np.arange(g.nodes), np.diff(g.start))
    order = np.argsort(g.children, kind="stable")
    rstart = np.zeros(g.nodes + 1, dtype=np.int64)
    rstart[1:] = np.cumsum(np.bincount(g.children, minlength=g.nodes))
    return rstart, src[order]


def rank_draws(g: DrawGraph, rules: RuleSet, secvals: SectorValues, plain: bool = False) -> DrawRanks:
    """Every draw's (rank, tempo): ``rank_draws_plain``'s analysis, by default in one numba kernel
    (``kernels.rank_groups``) over the graph's arrays; ``plain`` runs the Python version."""
    if plain:
        return rank_draws_plain(g, rules, secvals)
    from .kernels import rank_groups

    value_of = np.array([secvals.values[t] for t in g.tiers], dtype=np.int64)
    tier_index = {t: i for i, t in enumerate(g.tiers)}
    groups = [[tier_index[t] for t in grp.tiers if t in tier_index] for grp in groups_in_order(rules, g.tiers)]
    group_tiers = np.array([i for grp in groups for i in grp], dtype=np.int64)
    group_start = np.zeros(len(groups) + 1, dtype=np.int64)
    group_start[1:] = np.cumsum([len(grp) for grp in groups])
    rstart, parents = _parents(g)
    rank = value_of[g.tier_of].copy()
    tempo = np.zeros(g.nodes, dtype=np.int64)
    tier_of = g.tier_of.astype(np.int64)
    rank_groups(g.offset, tier_of, g.start, g.children, rstart, parents, value_of, group_tiers, group_start, rank, tempo)
    return DrawRanks(g, secvals, rank, tempo)


def rank_draws_plain(g: DrawGraph, rules: RuleSet, secvals: SectorValues) -> DrawRanks:
    """Every draw's (rank, tempo), one group of tiers at a time in the order they were solved
    (a tier with its twin where moves cycle), as Malom's ``solve`` does a work unit
    (retrograde.cpp:76-192): the group's draws start undecided with a count of their drawing
    moves; the values of positions they move to are taken in Malom's queue order, the furthest
    from the group's own value first (key1's magnitude), then by key2; a value better than the
    mover's own tier's decides the mover at once, a worse one takes one off its count, and the
    count's end decides it at the best of the worse ones. What stays undecided settles in its own
    tier: rank = its value, tempo 0."""
    value_of = [secvals.values[t] for t in g.tiers]
    tier_index = {t: i for i, t in enumerate(g.tiers)}
    tier_of = g.tier_of.tolist()
    start, children = g.start.tolist(), g.children.tolist()
    rstart_a, parents_a = _parents(g)
    rstart, parents = rstart_a.tolist(), parents_a.tolist()
    rank = [value_of[tier_of[v]] for v in range(g.nodes)]
    tempo = [0] * g.nodes
    decided = [False] * g.nodes
    seq = 0
    for group in groups_in_order(rules, g.tiers):
        inside = {tier_index[t] for t in group.tiers if t in tier_index}
        nodes = [v for i in sorted(inside) for v in range(int(g.offset[i]), int(g.offset[i + 1]))]
        count = {v: start[v + 1] - start[v] for v in nodes}
        heap: list = []

        def push(c: int, parent_tier: int) -> None:
            nonlocal seq
            pv = value_of[parent_tier]
            r, t = move_value(rank[c], tempo[c], pv)
            pk = r - pv
            if pk == 0:
                return  # settles at the parent's own value: never taken (Malom's counts stay)
            heapq.heappush(heap, (-abs(pk), t * sign(pk), seq, c, parent_tier))
            seq += 1

        outside = {(c, tier_of[v]) for v in nodes for c in children[start[v] : start[v + 1]] if tier_of[c] not in inside}
        for c, pt in sorted(outside):
            push(c, pt)
        while heap:
            _, _, _, c, pt = heapq.heappop(heap)
            for p in parents[rstart[c] : rstart[c + 1]]:
                if tier_of[p] != pt or decided[p]:
                    continue
                r, t = move_value(rank[c], tempo[c], value_of[pt])
                if r > value_of[pt]:
                    rank[p], tempo[p], decided[p] = r, t, True
                else:
                    count[p] -= 1
                    if count[p] > 0:
                        continue
                    rank[p], tempo[p], decided[p] = r, t, True
                for pp_tier in {tier_of[q] for q in parents[rstart[p] : rstart[p + 1]] if tier_of[q] in inside}:
                    push(p, pp_tier)
    return DrawRanks(g, secvals, np.array(rank, dtype=np.int64), np.array(tempo, dtype=np.int64))


def database_draw_ranks(db, rules: RuleSet | None = None) -> DrawRanks:
    """Sector values from the database's statistics, then every draw's rank: the whole
    computation for a database solved with ``--whole-game``. The graph is held whole: a peak of
    5.0 GiB and 41 s for the standard board's 5.8 M draws with 4 men a side."""
    rules = rules or db.rules
    secvals = sector_values(rules, database_stats(db))
    return rank_draws(draw_graph(db, rules), rules, secvals)
