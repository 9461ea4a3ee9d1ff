"""Solved values kept in memory while later work reads them (the rest is read from the database)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..rules.rulesets import RuleSet
from ..storage.database import Database
from ..tiers import Tier
from .order import still_needed


class SolvedValues:
    """Values of solved subspaces, kept in memory while a later pair may need them.

    ``load(a, b)`` reads one that this run did not solve (from a database); without it, asking for
    one that is not held raises KeyError. A run calls ``keep_for(rules, pairs_left)`` before
    and after each pair, so that nothing stays that no pair left reads (the mirror half of a pair is
    often such a subspace).
    """

    def __init__(self, load: Callable[[int, int], np.ndarray] | None = None):
        self._load = load
        self._held: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, a: int, b: int) -> np.ndarray:
        if (a, b) not in self._held:
            if self._load is None:
                raise KeyError(f"subspace {a}-{b} is needed but was not solved in this run")
            self._held[(a, b)] = self._load(a, b)
        return self._held[(a, b)]

    def add(self, a: int, b: int, values: np.ndarray) -> None:
        self._held[(a, b)] = values

    def held(self) -> list[tuple[int, int]]:
        return sorted(self._held)

    def keep_for(self, rules: RuleSet, pairs: list[tuple[int, int]], new=()) -> None:
        """Hold what ``pairs`` (the pairs still to solve) read and nothing else; ``new`` offers
        freshly solved (a, b, values), kept only if one of them reads it."""
        needed = still_needed(rules, pairs)
        for key in [k for k in self._held if k not in needed]:
            del self._held[key]
        for a, b, values in new:
            if (a, b) in needed:
                self._held[(a, b)] = values


def first_uses(jobs) -> dict:
    """{tier: the index in ``jobs`` of the first job that reads it}."""
    first: dict = {}
    for i in range(len(jobs) - 1, -1, -1):
        for t in jobs[i].reads:
            first[t] = i
    return first


def over_budget(nbytes: dict, first: dict, budget: int) -> list:
    """The held tiers to drop (``nbytes``: their sizes) so that the rest take at most ``budget``
    bytes: those read furthest ahead first (``first``: ``first_uses``), never one that the next
    job reads (it would be read back at once)."""
    total = sum(nbytes.values())
    drop = []
    for t in sorted(nbytes, key=lambda t: (-first[t], t)):
        if total <= budget or first[t] == 0:
            break
        drop.append(t)
        total -= nbytes[t]
    return drop


class TierValues:
    """Solved tiers held in memory while a later job reads them; the others are read from the
    database ``db`` when asked for (``__call__``). With a ``budget`` (bytes), the tiers held
    beyond what the next job reads stay within it (``over_budget``): Lasker's placing phase
    would otherwise hold tens of GiB for groups far ahead, which read them back instead."""

    def __init__(self, db: Database, budget: int | None = None):
        self.db = db
        self.budget = budget
        self.held: dict[Tier, np.ndarray] = {}

    def __call__(self, t: Tier) -> np.ndarray:
        if t not in self.held:
            self.held[t] = self.db.values(*t)
        return self.held[t]

    def keep_for(self, jobs, new=()) -> None:
        """Hold what ``jobs`` (those still to solve: ``order.Job``) read and nothing else; ``new``
        offers freshly solved (tier, values), kept only if one of them reads it."""
        needed = first_uses(jobs)
        for t in [t for t in self.held if t not in needed]:
            del self.held[t]
        for t, values in new:
            if t in needed:
                self.held[t] = values
        if self.budget is not None:
            for t in over_budget({t: v.nbytes for t, v in self.held.items()}, needed, self.budget):
                del self.held[t]
