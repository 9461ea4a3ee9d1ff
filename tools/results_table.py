"""The record of a finished run: per subspace and per pair.

    python tools/results_table.py --db data/standard.h5 [--checksums data/standard-9.json]
    python tools/results_table.py --db data/moving9.h5 --reference solver/engine/costs/reference_run.json \
        --command "morris solve --max-men 9 --db data/moving9.h5 --json" --host "..." --date 2026-11-24

Reads only the database (its stored statistics, times and checksums; nothing is recomputed):
prints a markdown table of every subspace (positions, win, draw, loss, longest win and loss, wall
and CPU seconds of its pair, checksum), the totals, the disk the files take, and optionally
writes the checksums as JSON (as ``tests/data/checksums/standard-6.json``), so that anyone can
compare a copy. Not a test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from solver.storage.database import Database
from solver.tiers import pair_name

REFERENCE_ABOUT = (
    "wall seconds of each pair of the standard moving phase solved to 9 men (the pairs' own times in the database), "
    "which morris solve --dry-run scales by this machine's speed on the pairs it times; written by tools/results_table.py --reference"
)


def disk_bytes(path: Path) -> int:
    """The main file and every file of its subspace folder."""
    files = [path, *Path(str(path) + ".d").glob("*.h5")]
    return sum(f.stat().st_size for f in files if f.exists())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--checksums", type=Path, help="write {subspace: checksum} here as JSON")
    p.add_argument("--reference", type=Path,
                   help="write the pairs' wall seconds here as the dry run's reference (solver/engine/costs/reference_run.json)")
    p.add_argument("--command", default="", help="the solve's command line, for --reference")
    p.add_argument("--host", default="", help="the machine, for --reference")
    p.add_argument("--date", default="", help="the run's date, for --reference")
    args = p.parse_args()
    with Database(args.db) as db:
        subs = db.subspaces()
    print("| subspace | positions | win | draw | loss | longest win | longest loss | pair wall s | pair CPU s | checksum |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    pairs: dict[tuple[int, int], tuple[float, float]] = {}
    for s in subs:
        # both halves of a pair store the pair's times: count them once
        pairs[(min(s.mover, s.opponent), max(s.mover, s.opponent))] = (s.seconds, s.cpu_seconds)
        print(
            f"| {s.name} | {s.positions:,} | {s.win:,} | {s.draw:,} | {s.loss:,} | {s.max_win} | {s.max_loss} "
            f"| {s.seconds:,.1f} | {s.cpu_seconds:,.1f} | `{s.checksum.removeprefix('sha256:')[:16]}…` |"
        )
    wall = sum(w for w, _ in pairs.values())
    cpu = sum(c for _, c in pairs.values())
    positions = sum(s.positions for s in subs)
    print()
    print(
        f"{len(subs)} subspaces in {len(pairs)} pairs: {positions:,} positions; {wall:,.0f} s wall "
        f"({wall / 3600:.2f} h), {cpu:,.0f} s CPU of solving; {disk_bytes(args.db) / 2**30:.2f} GiB on disk"
    )
    if args.reference:
        with Database(args.db) as db:
            rules = db.rules.describe()
        ordered = sorted(pairs.items(), key=lambda kv: (sum(kv[0]), kv[0]))
        args.reference.write_text(json.dumps({
            "about": REFERENCE_ABOUT, "rules": rules, "command": args.command, "machine": args.host, "date": args.date,
            "seconds": {pair_name(a, b): w for (a, b), (w, _) in ordered},
        }, indent=1) + "\n")
        print(f"reference times of {len(ordered)} pairs written to {args.reference}")
    if args.checksums:
        args.checksums.write_text(json.dumps({s.name: s.checksum for s in subs}, indent=1, sort_keys=True) + "\n")
        print(f"checksums written to {args.checksums}")


if __name__ == "__main__":
    main()
