"""Our sector values of a solved game against Malom's shipped ``.secval`` file (issue 22).

    python tools/compare_secval.py --db data/standard.h5 --malom std.secval [--json OUT]

Reads the database's per-tier statistics only (its main file and each tier file's attributes:
read-only, nothing copied), computes ``solver.ultra.sector_values`` and compares, tier by tier,
with Malom's values (Sanmill ships Malom's ``std.secval``: calcitem/Sanmill,
src/ui/flutter_app/assets/databases/std.secval). Malom ranks the extended solution's sectors
(every pair of men to place), this toolkit the tiers a game from the start reaches, so the
integers differ where the lists differ; the comparison is of the tiers both have: the same sign,
the same value, and the same order (pairs of tiers ordered alike by both).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from solver.storage.database import Database
from solver.tiers import tier_name
from solver.ultra.secval import database_stats, parse_secval, sector_values


def compare(db_path: Path, malom_path: Path) -> dict:
    with Database(db_path) as db:
        rules = db.rules
        ours = sector_values(rules, database_stats(db))
    malom = parse_secval(malom_path.read_text())
    common = sorted(set(ours.values) & set(malom.values))
    pos = {t: i for i, t in enumerate(sorted(malom.values, key=lambda t: malom.ratios[t]))}  # Malom's file order
    # pairs of common tiers with different values in both lists, ordered differently
    discordant = []
    for i, s in enumerate(common):
        for t in common[i + 1 :]:
            a = ours.values[s] - ours.values[t]
            b = malom.values[s] - malom.values[t]
            if a and b and (a > 0) != (b > 0):
                discordant.append((tier_name(s), tier_name(t)))
    rows = []
    for t in common:
        o, m = ours.values[t], malom.values[t]
        rows.append({"tier": tier_name(t), "ours": o, "malom": m, "same_sign": (o > 0) - (o < 0) == (m > 0) - (m < 0), "equal": o == m})
    start = (0, 0, rules.men, rules.men)
    return {
        "database": str(db_path), "malom": str(malom_path),
        "ours_tiers": len(ours.values), "malom_sectors": len(malom.values), "common": len(common),
        "ours_only": [tier_name(t) for t in sorted(set(ours.values) - set(malom.values))],
        "malom_only": len(set(malom.values) - set(ours.values)),
        "virtual": {"ours": [ours.virt_loss, ours.virt_win], "malom": [malom.virt_loss, malom.virt_win]},
        "same_sign": sum(r["same_sign"] for r in rows), "equal": sum(r["equal"] for r in rows),
        "discordant_pairs": len(discordant), "discordant_examples": discordant[:20],
        "pairs": len(common) * (len(common) - 1) // 2,
        "start": {"tier": tier_name(start), "ours": ours.values.get(start), "malom": malom.values.get(start)},
        "order_differs": _order_outliers(ours, malom, common, pos),
        "tiers": rows,
    }


def _order_outliers(ours, malom, common, pos) -> list[dict]:
    """The fewest tiers (greedy: the one in most discordant pairs first) whose removal leaves
    the two orders alike, each with the shares of its neighbours in Malom's order (ours): the
    interval Malom's share of it must lie in, if every other share agrees."""
    left = list(common)
    removed = []
    while True:
        count: dict = {}
        for i, s in enumerate(left):
            for t in left[i + 1 :]:
                a, b = ours.values[s] - ours.values[t], malom.values[s] - malom.values[t]
                if a and b and (a > 0) != (b > 0):
                    count[s] = count.get(s, 0) + 1
                    count[t] = count.get(t, 0) + 1
        if not count:
            break
        worst = max(count, key=lambda t: (count[t], t))
        removed.append(worst)
        left.remove(worst)
    order = sorted(malom.values, key=lambda t: pos[t])
    out = []
    for t in removed:
        i = order.index(t)
        lo = next((order[j] for j in range(i - 1, -1, -1) if order[j] in left), None)
        hi = next((order[j] for j in range(i + 1, len(order)) if order[j] in left), None)
        out.append({
            "tier": tier_name(t), "ours": ours.values[t], "malom": malom.values[t], "our_share": round(ours.ratios[t] + 0.5, 5),
            "malom_share_between": [None if x is None else round(ours.ratios[x] + 0.5, 5) for x in (lo, hi)],
            "neighbours": [None if x is None else tier_name(x) for x in (lo, hi)],
        })
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=Path("data/standard.h5"))
    ap.add_argument("--malom", type=Path, required=True, help="Malom's .secval file")
    ap.add_argument("--json", type=Path, default=None, help="write the comparison here")
    args = ap.parse_args()
    out = compare(args.db, args.malom)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    rows = out.pop("tiers")
    print(json.dumps({k: v for k, v in out.items()}, indent=1))
    for r in rows:
        if not r["same_sign"]:
            print("sign differs:", r)


if __name__ == "__main__":
    main()
