"""What a run solves, in which order, and which solved subspaces each pair needs.

A subspace (a, b) and its twin (b, a) are solved together; moves with a removal lead into
subspaces with fewer opponent men, so pairs are taken by increasing total of men.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from ..errors import RulesError
from ..rules.rulesets import RuleSet


def pairs_up_to(max_men: int) -> list[tuple[int, int]]:
    """(a, b) with 3 <= a <= b <= max_men, each before anything that removes into it."""
    return sorted(
        ((a, b) for a in range(3, max_men + 1) for b in range(a, max_men + 1)),
        key=lambda p: (p[0] + p[1], p[0]),
    )


def pair_name(a: int, b: int) -> str:
    return f"{a}-{b}" if a == b else f"{a}-{b} and {b}-{a}"


def fewer_men_needed(rules: RuleSet, a: int, b: int) -> list[tuple[int, int]]:
    """The smaller subspaces that moves with a removal lead (a, b) into: (b - k, a) for k = 1 up
    to the most men one move of a side with a men removes (``RuleSet.most_removals``: more than
    one only with one removal per mill, on a board where a move can close several mills; at most
    three); none below 3 men (the game is over there)."""
    return [(b - k, a) for k in range(1, rules.most_removals(a) + 1) if b - k >= 3]


def removal_depth(rules: RuleSet) -> int:
    """The most men one move removes under ``rules``, over every subspace: how far below a pair's
    total of men the subspaces it needs go."""
    return rules.most_removals(rules.men)


def check_solvable(rules: RuleSet, max_men: int) -> None:
    n = rules.board_data.n
    if max_men < 3:
        raise RulesError("--max-men must be at least 3")
    if max_men > rules.men:
        raise RulesError(f"--max-men {max_men} is more than the {rules.men} men of the {rules.name} rules")
    if 2 * max_men > n:
        raise RulesError(f"{max_men} men a side do not fit on the {rules.board} board's {n} points")


def use_threads(threads: int | None) -> None:
    """Run the kernels on ``threads`` threads (default: every core numba was started with)."""
    if not threads:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise RulesError(f"--threads {threads}: this machine runs 1 to {limit} threads")
    numba.set_num_threads(threads)


def pair_inputs(rules: RuleSet, a: int, b: int) -> list[tuple[int, int]]:
    """The solved subspaces the pair (a, b) + (b, a) reads: what each half's removals lead into."""
    halves = [(a, b)] if a == b else [(a, b), (b, a)]
    return sorted({s for x, y in halves for s in fewer_men_needed(rules, x, y)})


def still_needed(rules: RuleSet, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The subspaces that some pair of ``pairs`` reads."""
    return {s for a, b in pairs for s in pair_inputs(rules, a, b)}


class SolvedValues:
    """Values of solved subspaces, kept in memory while a later pair may need them.

    ``load(a, b)`` reads one that this run did not solve (from a database); without it, asking for
    one that is not held raises KeyError. A run calls ``keep_for(rules, pairs_left)`` before
    and after each pair, so that nothing stays that no pair left reads (the mirror half of a pair is
    often such a subspace). ``moving_to`` is the coarser rule for walking the subspaces of a
    database in order (``verify``): a pair of total t needs totals down to t - ``depth``
    (``removal_depth``: 1, or up to 3 under per-mill), so it drops everything below that.
    """

    def __init__(self, load: Callable[[int, int], np.ndarray] | None = None, depth: int = 2):
        self._load = load
        self._depth = depth
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

    def moving_to(self, a: int, b: int) -> None:
        """Forget what no subspace from (a, b) on can need."""
        for key in [k for k in self._held if sum(k) < a + b - self._depth]:
            del self._held[key]
