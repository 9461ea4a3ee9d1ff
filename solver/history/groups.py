"""The moving phase's groups under the history rule: a subspace and its twin, fewest men first,
and the subspaces their removals lead into (plain Python: the order a solve, a plan and a dry
run share)."""

from __future__ import annotations

from ..rules.rulesets import RuleSet


def moving_groups(subs) -> list[list[tuple[int, int]]]:
    subs = set(subs)
    out, seen = [], set()
    for a, b in sorted(subs, key=lambda s: (s[0] + s[1], s)):
        if (a, b) in seen:
            continue
        group = sorted({(a, b), (b, a)} & subs)
        seen |= set(group)
        out.append(group)
    return out


def removal_targets(rules: RuleSet, a: int, b: int) -> list[tuple[int, int]]:
    """The moving subspaces a move of (a, b) that removes leads into (with 3 men or more)."""
    return [(b - r, a) for r in range(1, rules.most_removals(a) + 1) if b - r >= 3]


def closure(rules: RuleSet, subs) -> list[tuple[int, int]]:
    """``subs``, their twins (a move without a removal leads there) and every moving subspace
    their removals lead into."""
    out, todo = set(), list(subs)
    while todo:
        a, b = todo.pop()
        if (a, b) in out or a < 3 or b < 3:
            continue
        out.add((a, b))
        todo.append((b, a))
        todo.extend(removal_targets(rules, a, b))
    return sorted(out)

