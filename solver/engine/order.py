"""What a run solves, in which order, and which solved subspaces each pair needs.

A subspace (a, b) and its twin (b, a) are solved together; moves with a removal lead into
subspaces with fewer opponent men, so pairs are taken by increasing total of men.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RulesError
from ..rules.rulesets import RuleSet
from ..tiers import (
    Group,
    Tier,
    fewer_men_needed,
    groups_in_order,
    needed_by,
    pair_name,
    whole_game_tiers,
)


def pairs_up_to(max_men: int) -> list[tuple[int, int]]:
    """(a, b) with 3 <= a <= b <= max_men, each before anything that removes into it."""
    return sorted(
        ((a, b) for a in range(3, max_men + 1) for b in range(a, max_men + 1)),
        key=lambda p: (p[0] + p[1], p[0]),
    )


def check_solvable(rules: RuleSet, max_men: int) -> None:
    n = rules.board_data.n
    if max_men < 3:
        raise RulesError("--max-men must be at least 3")
    if max_men > rules.men:
        raise RulesError(f"--max-men {max_men} is more than the {rules.men} men of the {rules.name} rules")
    if 2 * max_men > n:
        raise RulesError(f"{max_men} men a side do not fit on the {rules.board} board's {n} points")


def pair_inputs(rules: RuleSet, a: int, b: int) -> list[tuple[int, int]]:
    """The solved subspaces the pair (a, b) + (b, a) reads: what each half's removals lead into."""
    halves = [(a, b)] if a == b else [(a, b), (b, a)]
    return sorted({s for x, y in halves for s in fewer_men_needed(rules, x, y)})


def still_needed(rules: RuleSet, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The subspaces that some pair of ``pairs`` reads."""
    return {s for a, b in pairs for s in pair_inputs(rules, a, b)}


def placing_groups(rules: RuleSet, extended: bool = False) -> list[Group]:
    """The groups with men in hand that ``--whole-game`` (or ``--extended``) solves, in order."""
    return [g for g in groups_in_order(rules, whole_game_tiers(rules, extended)) if not g.moving_phase]


def moving_men(rules: RuleSet, extended: bool = False) -> int:
    """The most men a side has in the moving phase tiers a whole game reaches."""
    return max([max(t[0], t[1]) for t in whole_game_tiers(rules, extended) if t[2] == t[3] == 0], default=0)


@dataclass(frozen=True)
class Job:
    """One task of the graph: a moving-phase pair (``pair``) or a group of tiers (``group``)."""

    name: str
    writes: tuple[Tier, ...]
    reads: tuple[Tier, ...]
    pair: tuple[int, int] | None = None
    group: Group | None = None


def moving_jobs(rules: RuleSet, max_men: int) -> list[Job]:
    jobs = []
    for a, b in pairs_up_to(max_men):
        writes = tuple(sorted({(a, b, 0, 0), (b, a, 0, 0)}))
        reads = tuple((x, y, 0, 0) for x, y in pair_inputs(rules, a, b))
        jobs.append(Job(pair_name(a, b), writes, reads, pair=(a, b)))
    return jobs


def placing_jobs(rules: RuleSet, groups: list[Group]) -> list[Job]:
    return [Job(g.name, tuple(g.tiers), tuple(needed_by(rules, g)), group=g) for g in groups]


def whole_game_jobs(rules: RuleSet, extended: bool = False) -> list[Job]:
    """The moving phase a whole game reaches, then its groups of tiers with men in hand."""
    from .order import moving_men, placing_groups

    top = moving_men(rules, extended)
    return (moving_jobs(rules, top) if top >= 3 else []) + placing_jobs(rules, placing_groups(rules, extended))
