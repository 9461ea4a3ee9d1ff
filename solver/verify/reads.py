"""What the check of a tier reads besides its own values, and the digest of their checksums
that a passed check records (``SubspaceCheck.reads``): its verdict is a function of those
values, so a pass holds again wherever they are the same."""

from __future__ import annotations

import hashlib

from .history import reached
from ..rules.rulesets import RuleSet
from ..tiers import Tier, fewer_men_needed, removal_depth, successors, tier_name


def moving_reads(rules: RuleSet, order: list[Tier]) -> list[list[Tier]]:
    """What the check of each moving subspace of ``order`` reads: itself, its twin and the
    subspaces its removals lead into."""
    return [[t, (t[1], t[0], 0, 0), *((x, y, 0, 0) for x, y in fewer_men_needed(rules, t[0], t[1]))] for t in order]


def tier_reads(rules: RuleSet, order: list[Tier]) -> list[list[Tier]]:
    """What the check of each tier with men in hand of ``order`` reads: itself and its successors."""
    return [[t, *successors(rules, t)] for t in order]


def read_tiers(rules: RuleSet, t: Tier, present: set[Tier]) -> list[Tier]:
    """The tiers the check of ``t`` reads besides itself: ``moving_reads``, ``tier_reads``, or
    under the history rule a moving subspace's ``verify.history.reached`` as far as ``present``
    (the database's tiers) has them."""
    a, b, ha, hb = t
    if ha or hb:
        out = tier_reads(rules, [t])[0][1:]
    elif rules.reclose != "allowed":
        moving = {(x, y) for x, y, hx, hy in present if hx == hy == 0}
        out = [(x, y, 0, 0) for x, y in reached(a, b, removal_depth(rules), moving)[1:]]
    else:
        out = moving_reads(rules, [t])[0][1:]
    return [x for x in dict.fromkeys(out) if x != t]


def reads_digest(checksums: dict[Tier, str]) -> str:
    """The digest of the checksums of the tiers a check read (its own left out): sha256 over
    "<tier> <checksum>" lines in the tiers' order, 32 hex digits."""
    lines = [f"{tier_name(t)} {checksums[t]}" for t in sorted(checksums)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]
