"""Two databases of the same board, tier by tier: how many positions' values differ, and how.

    python tools/compare_values.py data/viking.h5 data/viking_reclose=same-man.h5 [--json out.json]

Made for issue 23 (how many positions' values the history rule's ban changes, per subspace: the
plain states of a ``reclose=...`` database against the plain game's) and usable for any two rule
sets on one board (an option's effect, tier by tier). For every tier both hold: the positions
(the slots the first does not mark DUP; the two must mark the same ones, or the databases are not
of one board and index), how many hold another value, how many another kind (win, draw, loss),
and the changes of kind by pair (``win>draw``: a win in the first, a draw in the second). A
markdown table, one row per tier that has a change, then the totals; ``--json`` writes every
tier's counts. Reads each tier a piece at a time (a 9-men tier holds up to 592 M slots). Not a
test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from solver.errors import MorrisError
from solver.storage.database import Database
from solver.values import decode_many

KINDS = ("loss", "draw", "win")  # decode_many's -1, 0, 1
PIECE = 1 << 24


def compare_arrays(a: np.ndarray, b: np.ndarray) -> dict:
    """The counts of one tier: ``positions``, ``changed`` (another value), ``kind_changed`` and
    ``X>Y`` for each change of kind. Raises ValueError where the two hold positions at other
    slots."""
    if a.shape != b.shape:
        raise ValueError(f"{len(a):,} slots against {len(b):,}")
    out = {"positions": 0, "changed": 0, "kind_changed": 0}
    pairs = np.zeros(9, dtype=np.int64)
    for lo in range(0, len(a), PIECE):
        ka, _ = decode_many(a[lo : lo + PIECE])
        kb, _ = decode_many(b[lo : lo + PIECE])
        held = ka != -2
        if not np.array_equal(held, kb != -2):
            first = lo + int(np.flatnonzero(held != (kb != -2))[0])
            raise ValueError(f"slot {first} holds a position in one database only")
        out["positions"] += int(held.sum())
        out["changed"] += int((a[lo : lo + PIECE] != b[lo : lo + PIECE]).sum())
        pairs += np.bincount((ka[held] + 1) * 3 + (kb[held] + 1), minlength=9)
    for i in range(3):
        for j in range(3):
            if i != j:
                out[f"{KINDS[i]}>{KINDS[j]}"] = int(pairs[i * 3 + j])
                out["kind_changed"] += int(pairs[i * 3 + j])
    return out


def compare(first: Path, second: Path) -> dict[str, dict]:
    """{tier name: counts} over the tiers both databases hold."""
    with Database(first) as da, Database(second) as db:
        if da.rules.board != db.rules.board:
            raise ValueError(f"{first} is of the {da.rules.board} board, {second} of the {db.rules.board} board")
        both = sorted(set(da.tier_keys()) & set(db.tier_keys()))
        out = {}
        for t in both:
            name = da.info(*t).name
            try:
                out[name] = compare_arrays(da.values(*t), db.values(*t))
            except ValueError as e:
                raise ValueError(f"tier {name}: {e}") from None
        return out


def table(result: dict[str, dict]) -> str:
    changes = [f"{KINDS[i]}>{KINDS[j]}" for i in range(3) for j in range(3) if i != j]
    lines = ["| tier | positions | values changed | kind changed | " + " | ".join(changes) + " |",
             "|---|" + "---:|" * (3 + len(changes))]
    total = {k: 0 for k in ["positions", "changed", "kind_changed", *changes]}
    for name, c in result.items():
        for k in total:
            total[k] += c[k]
        if c["changed"]:
            lines.append(f"| {name} | " + " | ".join(f"{c[k]:,}" for k in total) + " |")
    lines.append(f"| all {len(result)} tiers | " + " | ".join(f"**{total[k]:,}**" for k in total) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("first", type=Path)
    p.add_argument("second", type=Path)
    p.add_argument("--json", type=Path, help="write every tier's counts here")
    args = p.parse_args(argv)
    try:
        result = compare(args.first, args.second)
    except (ValueError, OSError, MorrisError) as e:
        print(f"compare_values: {e}", file=sys.stderr)
        return 1
    if not result:
        print(f"compare_values: {args.first} and {args.second} hold no tier in common", file=sys.stderr)
        return 1
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
