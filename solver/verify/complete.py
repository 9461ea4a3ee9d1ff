"""Whether a database holds every tier its game needs: a verify checks the tiers present, and a
tier that is absent is checked by nobody.

A whole game (a database with the start tier or any tier with men in hand) needs every tier a
game from the empty board reaches (``tiers.whole_game_tiers``: the start tier closed under its
successors, with the twins solved beside them). A database of the moving phase alone needs every
subspace up to the most men a side has in it (what ``morris solve --max-men`` writes), and what
their checks read. An opening book is checked by ``morris book verify``, not here.
"""

from __future__ import annotations

from ..rules.rulesets import RuleSet
from ..tiers import Tier, start_tier, tier_name, whole_game_tiers
from .reads import moving_reads

LISTED = 5  # missing tiers named in the message, the rest counted


def needed_tiers(rules: RuleSet, present: list[Tier]) -> list[Tier]:
    """The tiers a database holding ``present`` must hold (its game's, as above)."""
    if start_tier(rules) in present or any(t[2] or t[3] for t in present):
        return whole_game_tiers(rules)
    top = max((max(a, b) for a, b, _, _ in present), default=0)
    need = {(a, b, 0, 0) for a in range(3, top + 1) for b in range(3, top + 1)}
    need.update(x for reads in moving_reads(rules, sorted(need)) for x in reads)
    return sorted(need)


def missing_tiers(rules: RuleSet, present: list[Tier], book: bool = False) -> tuple[list[Tier], int]:
    """(the tiers needed and absent, how many are needed); none for an opening book."""
    if book:
        return [], len(present)
    need = needed_tiers(rules, present)
    have = set(present)
    return [t for t in need if t not in have], len(need)


def describe_missing(missing: list[Tier], needed: int) -> str:
    """"the database lacks 2 of the 57 tiers its game needs: 3-4, 4-3"."""
    names = ", ".join(tier_name(t) for t in missing[:LISTED])
    more = f" and {len(missing) - LISTED} more" if len(missing) > LISTED else ""
    return f"the database lacks {len(missing)} of the {needed} tiers its game needs: {names}{more}"
