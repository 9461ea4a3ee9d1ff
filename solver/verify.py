"""``morris verify``: checksums, then every position against the best over its successors."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .game import tables
from .index import board_index
from .notation import Position, format_position
from .errors import DatabaseError
from .solve import use_threads
from .storage import Database, checksum
from .verify_kernels import expected_value, verify_subspace

MAX_LISTED = 5


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


def verify(
    db_path: Path,
    threads: int | None = None,
    progress: bool = True,
) -> list[SubspaceCheck]:
    use_threads(threads)
    checks: list[SubspaceCheck] = []
    with Database(db_path) as db:
        rules = db.rules
        index = board_index(rules.board)
        n, adj, mills, point_mills, opts = tables(rules)
        idx = index.arrays()[1:]
        dummy = np.zeros(1, dtype=np.uint16)
        cache: dict[tuple[int, int], np.ndarray] = {}

        def values(a: int, b: int) -> np.ndarray:
            if (a, b) not in cache:
                cache[(a, b)] = db.values(a, b)
            return cache[(a, b)]

        subs = db.subspaces()
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=sum(s.slots for s in subs), unit="pos", unit_scale=True, desc="verify")
        try:
            for s in subs:
                if bar:
                    bar.update(s.slots)
                a, b = s.mover, s.opponent
                for key in [k for k in cache if sum(k) < a + b - 2]:
                    del cache[key]
                try:
                    v = values(a, b)
                except DatabaseError as e:
                    checks.append(SubspaceCheck(s.name, s.positions, False, error=str(e)))
                    continue
                check = SubspaceCheck(s.name, s.positions, checksum(v) == s.checksum)
                checks.append(check)
                needs = [(b, a)] + ([(b - 1, a)] if b - 1 >= 3 else [])
                if rules.double_mill == "per-mill" and b - 2 >= 3:
                    needs.append((b - 2, a))
                lacking = [f"{x}-{y}" for x, y in needs if not db.has(x, y)]
                if lacking:
                    check.missing = ", ".join(lacking)
                    continue
                try:
                    twin = values(b, a)
                    ext1 = values(b - 1, a) if b - 1 >= 3 else dummy
                    ext2 = values(b - 2, a) if (b - 2, a) in needs else dummy
                except DatabaseError as e:
                    check.error = f"a subspace it needs is unreadable: {e}"
                    continue
                bad = np.full(MAX_LISTED, -1, dtype=np.int64)
                check.mismatches = int(
                    verify_subspace(a, b, v, twin, ext1, ext2, n, adj, mills, point_mills, opts, *idx, bad, MAX_LISTED)
                )
                buf = np.empty((8192, 4), dtype=np.int64)
                for slot in bad[bad >= 0]:
                    m, o = index.unrank(a, b, int(slot))
                    if index.is_canonical(a, b, int(slot)):
                        want = expected_value(m, o, buf, twin, ext1, ext2, b, n, adj, mills, point_mills, opts, *idx)
                    else:
                        want = 0xFFFF
                    pos = format_position(Position(m, o, "w"), rules.board_data)
                    check.examples.append(
                        f"{s.name} slot {int(slot)} ({pos}): stored {describe(int(v[slot]))}, successors give {describe(int(want))}"
                    )
        finally:
            if bar:
                bar.close()
    return checks


def describe(v: int) -> str:
    """A stored value in words."""
    if v == 0xFFFF:
        return "no position (duplicate slot)"
    if v == 0:
        return "draw"
    plies = v - 1
    return f"{'win' if plies % 2 else 'loss'} in {plies}"
