"""How far a running ``morris solve --json`` has got, from its JSONL log alone (no database read).

    python benchmarks/run_progress.py data/viking-ban.jsonl

Sums the finished pairs and groups ("pair"/"tiers" events, not those skipped as already solved):
subspaces, history states (where the log has them), positions and the groups' seconds, each
subspace counted once (a twin solved again in a later run is not counted twice); then the last
group and its peak RSS. Not a test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def finished_groups(log: Path):
    """The log's pair and group events that solved something (a line a kill cut off is passed over)."""
    for line in log.read_text().splitlines():
        try:
            e = json.loads(line)
        except json.JSONDecodeError:
            continue
        if e.get("event") in ("pair", "tiers") and not e.get("skipped"):
            yield e


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", type=Path)
    args = p.parse_args()
    seen, states, positions, seconds, last = set(), 0, 0, 0.0, None
    for e in finished_groups(args.log):
        for s in e["subspaces"]:
            key = (s["mover"], s["opponent"], s["mover_hand"], s["opponent_hand"])
            if key not in seen:
                seen.add(key)
                states += s.get("states", 0)
                positions += s["positions"]
        seconds += e["subspaces"][0].get("seconds", 0.0)  # a group's tiers share its seconds
        last = e
    if last is None:
        raise SystemExit(f"{args.log}: no finished pair or group yet")
    group = ", ".join(f"{s['mover']}-{s['opponent']}" for s in last["subspaces"])
    print(f"subspaces {len(seen)}, states {states / 1e9:.2f} G, positions {positions / 1e9:.2f} G, "
          f"group seconds {seconds:,.0f}; last group {group}, peak RSS {last.get('peak_rss_bytes', 0) / 2**30:.1f} GiB")


if __name__ == "__main__":
    main()
