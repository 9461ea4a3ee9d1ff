"""Tiers of a whole game: which ones a game needs, which are solved together, and in what order.

A tier is (a, b, ha, hb): the side to move's men on the board and the opponent's, then the men
each holds in hand. The moving phase is the tiers (a, b, 0, 0), the subspaces of ``plan``. The
board part is ranked by the same symmetry-reduced index; the hands are constant in a tier.

From (a, b, ha, hb) a placement leads to (b - k, a + 1, hb, ha - 1) and a move (a side without
men in hand, or any side under Lasker's rule) to (b - k, a, hb, ha), k men removed; a pass to
(b, a, hb, ha). Placements empty the hands and removals empty the board, so the only cycles are
moves between a tier and its twin (b, a, hb, ha), and only where both sides of it may move:
those two are solved together by retrograde analysis (``group_of``); every other tier is the best
of its successors in tiers solved before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .rules.rulesets import RuleSet

Tier = tuple[int, int, int, int]
TIER_NAME = re.compile(r"^(\d+)-(\d+)(?:-(\d+)-(\d+))?$")  # <a>-<b>[-<ha>-<hb>]


def tier_name(t: Tier) -> str:
    """``3-4`` for a tier of the moving phase (a subspace), ``3-4-2-1`` with men in hand: the
    names of the database's files and datasets, of ``--subspace`` and of every report."""
    a, b, ha, hb = t
    return f"{a}-{b}" if ha == 0 and hb == 0 else f"{a}-{b}-{ha}-{hb}"


def parse_tier(name: str) -> Tier | None:
    """The tier a name of ``tier_name`` stands for (hands 0 where left out), or None."""
    m = TIER_NAME.match(name.strip())
    return None if m is None else tuple(int(x or 0) for x in m.groups())


def pair_name(a: int, b: int) -> str:
    """A moving-phase pair, solved together: ``3-3``, or ``3-4 and 4-3`` (a ``Group``'s name)."""
    return group_name([(a, b, 0, 0)] if a == b else [(a, b, 0, 0), (b, a, 0, 0)])


def group_name(tiers) -> str:
    return " and ".join(tier_name(t) for t in tiers)


def twin(t: Tier) -> Tier:
    a, b, ha, hb = t
    return (b, a, hb, ha)


def moves_in(rules: RuleSet, hand: int) -> bool:
    """Whether a side with ``hand`` men in hand may move a man on the board."""
    return hand == 0 or rules.lasker == "on"


def removals_by(rules: RuleSet, men_after: int) -> int:
    """The most men one move or placement removes for a side that has ``men_after`` men on the
    board once its man has arrived: none without a mill (fewer than 3) or under mill-wins, else
    1, or one per mill closed under per-mill (three at most)."""
    if rules.mill_wins == "on" or men_after < 3:
        return 0
    if rules.double_mill != "per-mill":
        return 1
    return min(3, max(1, (men_after - 1) // 2))


def successors(rules: RuleSet, t: Tier) -> list[Tier]:
    """The tiers the positions of ``t`` may move into, game-over ones (the new side to move left
    with fewer than 3 men) left out."""
    a, b, ha, hb = t
    out: set[Tier] = set()
    if ha > 0:
        for k in range(removals_by(rules, a + 1) + 1):
            out.add((b - k, a + 1, hb, ha - 1))
    if moves_in(rules, ha) and a > 0:
        for k in range(removals_by(rules, a) + 1):
            out.add((b - k, a, hb, ha))
    if rules.blocked == "passes" and moves_in(rules, ha):
        out.add((b, a, hb, ha))  # (with men in hand there is always an empty point to place on)
    return sorted(s for s in out if s[0] >= 0 and s[0] + s[2] >= 3)


def successor_kinds(t: Tier) -> list[Tier]:
    """The tier of each kind of successor, in the order the placing kernels number them: a
    placement removing 0 to 3 men (kinds 0-3), then a move or the pass removing 0 to 3 (kinds
    4-7); whether the rules allow each is ``successors``' business."""
    a, b, ha, hb = t
    return [(b - k, a + 1, hb, ha - 1) for k in range(4)] + [(b - k, a, hb, ha) for k in range(4)]


def start_tier(rules: RuleSet) -> Tier:
    return (0, 0, rules.men, rules.men)


def valid(rules: RuleSet, t: Tier) -> bool:
    a, b, ha, hb = t
    return min(t) >= 0 and a + ha <= rules.men and b + hb <= rules.men and a + ha >= 3 and b + hb >= 3 and a + b <= rules.board_data.n


def whole_game_tiers(rules: RuleSet, extended: bool = False) -> list[Tier]:
    """Every tier a game from the empty board can reach (closed under ``successors``: what the
    tier numbers allow, a superset of the tiers of positions that occur; and the twins solved
    with them), or with ``extended``
    every tier with at most ``rules.men`` men a side on the board and in hand (Gévay and Danner's
    extended solution: games that start with other numbers of men to place)."""
    if extended:
        men = rules.men
        found = {
            (a, b, ha, hb)
            for a in range(men + 1) for b in range(men + 1) for ha in range(men + 1) for hb in range(men + 1)
        }
        return sorted(t for t in found if valid(rules, t))
    todo, found = [start_tier(rules)], set()
    while todo:
        t = todo.pop()
        if t in found:
            continue
        found.add(t)
        todo.extend(successors(rules, t))
        todo.extend(group_of(rules, t).tiers)  # a tier is solved with its twin where moves cycle
    return sorted(found)


@dataclass(frozen=True)
class Group:
    """A tier, or a tier and its twin, solved together. ``cycles``: moves go round inside the
    group (both sides of the twin may move), so it needs retrograde analysis; otherwise each
    position is the best of its successors, all in tiers solved before."""

    tiers: tuple[Tier, ...]
    cycles: bool

    @property
    def moving_phase(self) -> bool:
        return all(t[2] == 0 and t[3] == 0 for t in self.tiers)

    @property
    def name(self) -> str:
        return group_name(self.tiers)


def group_of(rules: RuleSet, t: Tier) -> Group:
    """``t`` with its twin where both may move (moves go back and forth between them), else
    alone. A tier that is its own twin (a == b, ha == hb) cycles into itself when it may move."""
    tw = twin(t)
    both_move = moves_in(rules, t[2]) and moves_in(rules, t[3])
    if tw == t:
        return Group((t,), cycles=both_move)
    if both_move:
        return Group(tuple(sorted((t, tw))), cycles=True)
    return Group((t,), cycles=False)


def _order_key(rules: RuleSet, g: Group) -> tuple[int, int, int]:
    """Men in hand first (placements lower them), then men on the board (removals lower them),
    then a tier that moves into its twin after the twin (which only places)."""
    a, b, ha, hb = g.tiers[0]
    return (ha + hb, a + b, int(len(g.tiers) == 1 and moves_in(rules, ha) and not moves_in(rules, hb)))


def groups_in_order(rules: RuleSet, tiers: list[Tier]) -> list[Group]:
    """The groups of ``tiers``, each after every group it reads. A tier whose twin is not among
    ``tiers`` is grouped with it all the same (the twin is needed to solve it)."""
    seen: dict[Tier, Group] = {}
    for t in tiers:
        if t not in seen:
            g = group_of(rules, t)
            for x in g.tiers:
                seen[x] = g
    groups = list(dict.fromkeys(seen.values()))
    return sorted(groups, key=lambda g: (_order_key(rules, g), g.tiers))


def needed_by(rules: RuleSet, g: Group) -> list[Tier]:
    """The tiers outside ``g`` that its moves lead into (solved before it)."""
    inside = set(g.tiers)
    return sorted({s for t in g.tiers for s in successors(rules, t) if s not in inside})


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
