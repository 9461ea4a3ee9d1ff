"""``morris verify``: checksums, then every position against the best over its successors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.plan import SolvedValues, fewer_men_needed, removal_depth, use_threads
from ..errors import DatabaseError
from ..index import board_index
from ..rules.movegen import MAX_MOVES
from ..rules.notation import Position, format_position
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..values import DUP, describe
from .storage import Database, checksum
from .verify_kernels import expected_value, verify_subspace

MAX_LISTED = 5
NONE = np.zeros(1, dtype=np.uint16)  # stands for a smaller subspace that no removal reaches


@dataclass
class SubspaceCheck:
    name: str
    positions: int
    checksum_ok: bool
    mismatches: int = 0
    examples: list[str] = field(default_factory=list)
    missing: str | None = None  # a subspace it needs that the database lacks
    error: str | None = None  # data that cannot be read

    @property
    def ok(self) -> bool:
        return self.checksum_ok and self.mismatches == 0 and self.missing is None and self.error is None

    def to_dict(self) -> dict:
        return {
            "subspace": self.name, "positions": self.positions, "checksum_ok": self.checksum_ok,
            "mismatches": self.mismatches, "missing": self.missing, "error": self.error,
            "examples": self.examples, "ok": self.ok,
        }


def verify(
    db_path: Path,
    threads: int | None = None,
    progress: bool = True,
    rules: RuleSet | None = None,
    on_check: Callable[[SubspaceCheck], None] | None = None,
) -> list[SubspaceCheck]:
    """Check every subspace of the database; with ``rules``, a database of another rule set is
    refused (MismatchError). ``on_check`` hears each subspace's check as it is done."""
    use_threads(threads)
    checks: list[SubspaceCheck] = []
    with Database(db_path, rules) as db:
        rules = db.rules
        index = board_index(rules.board)
        g, ix = game_tables(rules), index.tables
        values = SolvedValues(db.values, depth=removal_depth(rules))
        subs = db.subspaces()
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=sum(s.slots for s in subs), unit="pos", unit_scale=True, desc="verify")
        try:
            for s in subs:
                a, b = s.mover, s.opponent
                values.moving_to(a, b)
                check = _check_subspace(db, rules, index, g, ix, values, s)
                checks.append(check)
                if on_check:
                    on_check(check)
                if bar:
                    bar.update(s.slots)
        finally:
            if bar:
                bar.close()
    return checks


def _check_subspace(db, rules, index, g, ix, values, s) -> SubspaceCheck:
    a, b = s.mover, s.opponent
    try:
        v = values(a, b)
    except DatabaseError as e:
        return SubspaceCheck(s.name, s.positions, False, error=str(e))
    check = SubspaceCheck(s.name, s.positions, checksum(v) == s.checksum)
    fewer = fewer_men_needed(rules, a, b)
    lacking = [f"{x}-{y}" for x, y in [(b, a), *fewer] if not db.has(x, y)]
    if lacking:
        check.missing = ", ".join(lacking)
        return check
    try:
        twin = values(b, a)
        fewer1, fewer2, fewer3 = (values(b - k, a) if (b - k, a) in fewer else NONE for k in (1, 2, 3))
    except DatabaseError as e:
        check.error = f"a subspace it needs is unreadable: {e}"
        return check
    bad = np.full(MAX_LISTED, -1, dtype=np.int64)
    check.mismatches = int(verify_subspace(a, b, v, twin, fewer1, fewer2, fewer3, g, ix, bad, MAX_LISTED))
    buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
    for slot in bad[bad >= 0]:
        m, o = index.unrank(a, b, int(slot))
        if index.is_canonical(a, b, int(slot)):
            want = expected_value(m, o, buf, twin, fewer1, fewer2, fewer3, b, g, ix)
        else:
            want = DUP
        pos = format_position(Position(m, o, "w"), rules.board_data)
        check.examples.append(
            f"{s.name} slot {int(slot)} ({pos}): stored {describe(int(v[slot]))}, successors give {describe(int(want))}"
        )
    return check
