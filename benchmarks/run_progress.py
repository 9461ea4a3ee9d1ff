"""How far a running ``morris solve --json`` has got, from its JSONL log alone (no database read).

    python benchmarks/run_progress.py data/viking-ban.jsonl
    python benchmarks/run_progress.py data/viking-ban.jsonl --against benchmarks/games/viking-ban/first-solve/viking-ban.jsonl

Sums the finished pairs and groups ("pair"/"tiers" events, not those skipped as already solved):
subspaces, history states (where the log has them), positions and the groups' seconds, each
subspace counted once (a twin solved again in a later run is not counted twice); then the last
group and its peak RSS. With ``--against`` an earlier log of the same game (a first solve): the
groups both have finished, their seconds here over theirs there (summed, so the large groups
weigh most), and the groups still to solve with what they took there, scaled by that ratio: a
run's time left, where the two runs share their grouping. Not a test.
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


def group_seconds(log: Path) -> dict[frozenset, float]:
    """Each finished group's seconds, by its subspaces (mover, opponent and their men in hand):
    the last time it was solved, where a log holds it twice."""
    out = {}
    for e in finished_groups(log):
        key = frozenset((s["mover"], s["opponent"], s["mover_hand"], s["opponent_hand"]) for s in e["subspaces"])
        out[key] = e["subspaces"][0].get("seconds", 0.0)
    return out


def against(run: dict[frozenset, float], ref: dict[frozenset, float]) -> str:
    """The comparison line of ``--against``: the run's time left at the ratio of the groups done."""
    both = [k for k in run if k in ref]
    left = [k for k in ref if k not in run]
    here, there = sum(run[k] for k in both), sum(ref[k] for k in both)
    ref_left = sum(ref[k] for k in left)
    line = f"against the reference: {len(both)} of its {len(ref)} groups done, {here:,.0f} s here for its {there:,.0f} s"
    if there > 0:
        ratio = here / there
        line += (f" (x {ratio:.2f}); {len(left)} left, {ref_left / 3600:.2f} h there, "
                 f"about {ratio * ref_left / 3600:.2f} h here at that ratio")
    else:
        line += f"; {len(left)} left, {ref_left / 3600:.2f} h there"
    alone = len(run) - len(both)
    if alone:
        line += f"; {alone} groups here are not the reference's (another grouping: not counted)"
    return line


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", type=Path)
    p.add_argument("--against", type=Path, metavar="REF_LOG", help="an earlier log of the same game: the time left at this run's pace")
    args = p.parse_args()
    if args.against is not None and not args.against.is_file():
        raise SystemExit(f"{args.against}: no such log")  # before any line, not after the first
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
    if args.against is not None:
        print(against(group_seconds(args.log), group_seconds(args.against)))


if __name__ == "__main__":
    main()
