"""The local rule of an opening book: every position of a tier whose successors all lie in the
book holds the value its successors give. The check is ``morris verify``'s own
(``verify.check.verify``, by forward move generation), run on the book file for those tiers:
all but the tiers with the fewest men in hand, whose moves lead out of the book."""

from __future__ import annotations

from pathlib import Path

from ..errors import MismatchError
from ..rules.rulesets import RuleSet
from ..tiers import tier_name


def check_local_rule(book: Path, rules: RuleSet, tiers: list[tuple[int, int, int, int]]) -> dict:
    """Verify the tiers of ``tiers`` (what the book at ``book`` holds) whose checks read only
    tiers of the book; ``MismatchError`` names the first that fails. Returns how many tiers and
    positions were checked."""
    from ..verify.check import checkable, verify

    names = [tier_name(t) for t in checkable(rules, tiers)]
    checks = verify(book, progress=False, rules=rules, subspaces=names) if names else []
    for c in checks:
        if not c.ok:
            why = (c.examples[:1] or [c.error or (f"it needs {c.missing}" if c.missing else "its checksum does not match")])[0]
            raise MismatchError(f"tier {c.name} of {book} breaks the local rule ({c.mismatches} positions): {why}")
    return {"tiers": len(checks), "positions": sum(c.positions for c in checks)}
