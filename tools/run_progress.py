"""How far a running ``morris solve --json`` has got, from its JSONL log alone (no database read).

    python tools/run_progress.py data/viking-ban.jsonl
    python tools/run_progress.py data/viking-ban.jsonl --against data/first-solve/viking-ban.jsonl

Sums the finished pairs and groups ("pair"/"tiers" events, not those skipped as already solved):
subspaces, history states (where the log has them), positions and the groups' seconds, each
subspace counted once (a twin solved again in a later run is not counted twice); then the last
group and its peak RSS. With ``--against`` an earlier log of the same game (an earlier solve, e.g. on another machine): the
groups both have finished, their seconds here over theirs there (summed, so the large groups
weigh most), and the groups still to solve with what they took there, scaled by that ratio: a
run's time left, where the two runs share their grouping. Then the same for each phase at its own
ratio (a group with men in hand is the placing phase's), and their sum: a whole game's moving
phase may run at another pace than its placing phase, and the overall ratio then misleads. Last,
the same sum by CPU seconds: a reference that shared its cores with another run is slow by the
clock and not by the CPU, and a ratio of wall seconds then holds only for the groups that shared
them; by CPU the time left is the CPU seconds left there, scaled by the ratio of CPU seconds so
far, over the cores busy here. Not a test.
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


def group_times(log: Path) -> dict[frozenset, tuple[float, float | None]]:
    """Each finished group's seconds and CPU seconds (None where the log has none), by its subspaces
    (mover, opponent and their men in hand): the last time it was solved, where a log holds it twice."""
    out = {}
    for e in finished_groups(log):
        key = frozenset((s["mover"], s["opponent"], s["mover_hand"], s["opponent_hand"]) for s in e["subspaces"])
        first = e["subspaces"][0]  # a group's tiers share its times
        out[key] = (first.get("seconds", 0.0), first.get("cpu_seconds"))
    return out


def cpu_hours_left(run: dict[frozenset, tuple[float, float | None]], ref: dict[frozenset, tuple[float, float | None]]) -> float | None:
    """The hours left by CPU seconds: the reference's CPU seconds for the groups left, times the
    ratio of CPU seconds on the groups both have done, over the cores busy here on them. None
    where that cannot be said (no group done here, or a log without CPU seconds)."""
    both = [k for k in run if k in ref]
    left = [k for k in ref if k not in run]
    if not left:
        return 0.0
    if any(run[k][1] is None or ref[k][1] is None for k in both) or any(ref[k][1] is None for k in left):
        return None
    cpu_here, cpu_there = sum(run[k][1] for k in both), sum(ref[k][1] for k in both)
    wall_here = sum(run[k][0] for k in both)
    if min(cpu_here, cpu_there, wall_here) <= 0:
        return None
    return cpu_here / cpu_there * sum(ref[k][1] for k in left) / (cpu_here / wall_here) / 3600


def compare(run: dict[frozenset, float], ref: dict[frozenset, float], label: str) -> tuple[str, float | None]:
    """One comparison line (the run's time left at the ratio of the groups done) and that time in
    hours (None where no group is done here to give a ratio)."""
    both = [k for k in run if k in ref]
    left = [k for k in ref if k not in run]
    here, there = sum(run[k] for k in both), sum(ref[k] for k in both)
    ref_left = sum(ref[k] for k in left)
    line = f"{label}: {len(both)} of its {len(ref)} groups done, {here:,.0f} s here for its {there:,.0f} s"
    if there > 0:
        ratio = here / there
        hours = ratio * ref_left / 3600
        line += (f" (x {ratio:.2f}); {len(left)} left, {ref_left / 3600:.2f} h there, "
                 f"about {hours:.2f} h here at that ratio")
    else:
        line += f"; {len(left)} left, {ref_left / 3600:.2f} h there"
        hours = 0.0 if not left else None
    alone = len(run) - len(both)
    if alone:
        line += f"; {alone} groups here are not the reference's (another grouping: not counted)"
    return line, hours


def in_hand(group: frozenset) -> bool:
    """A placing-phase group: one of its subspaces has men in hand."""
    return any(mover_hand or opp_hand for _, _, mover_hand, opp_hand in group)


def against(run: dict[frozenset, tuple[float, float | None]], ref: dict[frozenset, tuple[float, float | None]]) -> list[str]:
    """The lines of ``--against``: every group together, then each phase at its own ratio where the
    reference has both (the moving phase's pace says little of the placing phase's), and their sum,
    by wall seconds and then by CPU seconds."""
    def wall(times):
        return {k: w for k, (w, _) in times.items()}

    lines = [compare(wall(run), wall(ref), "against the reference")[0]]
    phases = [(name, {k: v for k, v in run.items() if in_hand(k) == placing},
               {k: v for k, v in ref.items() if in_hand(k) == placing})
              for name, placing in (("the moving phase", False), ("the placing phase", True))]
    if all(ref_phase for _, _, ref_phase in phases):
        hours, cpu_hours = [], []
        for name, run_phase, ref_phase in phases:
            line, h = compare(wall(run_phase), wall(ref_phase), name)
            lines.append("  " + line)
            hours.append(h)
            cpu_hours.append(cpu_hours_left(run_phase, ref_phase))
        if None not in hours:
            lines.append(f"  by phase: about {sum(hours):.2f} h left here")
        if None not in cpu_hours:
            lines.append(f"  by phase and CPU seconds: about {sum(cpu_hours):.2f} h left here")
    return lines


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
        print("\n".join(against(group_times(args.log), group_times(args.against))))


if __name__ == "__main__":
    main()
