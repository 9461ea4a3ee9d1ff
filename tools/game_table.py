"""Whole games side by side, as the README's table "Nine Men's Morris under the old rules" shows them.

    python tools/game_table.py data/standard.h5 data/no-flying.h5 [--log data/no-flying.jsonl ...]
        [--checksums-dir data/checksums]
    python tools/game_table.py tests/data/rulesets/standard.json data/lasker.h5 ...

Reads each database (solved with ``morris solve --whole-game``; nothing is recomputed) and
prints a markdown row per database: the rule set, the value of the start and its plies, how many
of the 24 first placements win, draw and lose, the longest win or loss of any position, the
positions, the solve's time (the tiers' own seconds summed; with ``--log``, the JSONL of ``morris
solve --json``, wall and CPU over all its runs), the peak memory (``--time-log``: what ``/usr/bin/time
-v`` wrote) and the disk. Then the share of won positions of each
moving-phase subspace per database, the first one as the reference. With ``--checksums-dir``,
writes ``<rule set>-whole.json`` ({tier: checksum}) there for each; with ``--stats-dir``,
``<rule set>.json``: the start's value, each first placement's, and every tier's stored counts
(what notebooks/old_rules.ipynb plots, without the databases; tools/whole_games.sh writes both).
A ``.json`` in place of a database is such a statistics file: its game's shares of won positions
stand in the comparison (the reference once its database is removed), with no row. Not a test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from solver.query import describe_game, open_database, start_position
from solver.storage.files import default_path
from solver.tiers import group_of


def _disk(path: Path) -> int:
    files = [path, *Path(str(path) + ".d").glob("*.h5")]
    return sum(f.stat().st_size for f in files if f.exists())


def _log_seconds(log: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the tiers the JSONL log of ``morris solve --json`` records as solved,
    over every run of it: a run cut off before its summary line counts too. One event is one
    solve (a moving pair and its twin, or a history group, share its seconds): counted once, and
    once again where a later run solves the same tiers again (the later one kept). A tier and its
    twin that are solved apart (``m-o-h-h`` and ``o-m-h-h`` of the placing phase, where one side
    only places) are each their own event: both count."""
    solves: dict[tuple, tuple[float, float]] = {}
    for d in _events(log):
        if d.get("event") in ("tiers", "pair") and not d.get("skipped") and d["subspaces"]:  # "pair": the history rule's moving groups
            ts = d["subspaces"]
            key = tuple(sorted((t["mover"], t["opponent"], t.get("mover_hand", 0), t.get("opponent_hand", 0)) for t in ts))
            solves[key] = (float(ts[0]["seconds"]), float(ts[0].get("cpu_seconds", 0.0)))
    return sum(w for w, _ in solves.values()), sum(c for _, c in solves.values())


def _tier_seconds(rules, tiers) -> float:
    """The tiers' own seconds summed where no log is given, each group the engine solves together
    (``solver.tiers.group_of``: a tier and its twin where both sides may move) counted once, since
    its tiers all store the group's seconds."""
    return sum({group_of(rules, t.tier): t.seconds for t in tiers}.values())


def _peak(time_log: Path | None, log: Path | None = None) -> str:
    """The largest "Maximum resident set size" that ``/usr/bin/time -v`` wrote to ``time_log``, in
    GiB, and how many of its runs (``=== run`` lines, one per segment) it was measured in: a run
    killed with its ``time`` reports nothing. The JSONL ``log`` of
    ``morris solve --json`` fills the gap: each finished pair or group records the process's
    peak so far (``peak_rss_bytes``), so a cut-off run's peak over the work it finished is known
    (the group it was killed in is solved again, and measured, by the next run)."""
    kib, runs = [], 0
    if time_log is not None:
        lines = time_log.read_text().splitlines()
        kib = [int(line.split(":")[1]) for line in lines if "Maximum resident set size" in line]
        runs = sum(1 for line in lines if line.startswith("=== run")) or len(kib)
    logged = _logged_peaks(log) if log else []
    peak = max([k * 1024 for k in kib] + logged, default=None)
    if peak is None:
        return "n/a" if time_log is None else "not measured"
    text = f"{peak / 2**30:.1f} GiB"
    if time_log is None or len(kib) >= runs:
        return text
    if logged:
        return f"{text} (at the finished groups of the {runs - len(kib)} of {runs} runs cut off)"
    return f"{text} ({len(kib)} of {runs} runs measured)"


def _logged_peaks(log: Path) -> list[int]:
    """The ``peak_rss_bytes`` that the JSONL log's finished pairs and groups recorded."""
    return [int(d["peak_rss_bytes"]) for d in _events(log) if d.get("peak_rss_bytes")]


def _events(log: Path):
    """The JSON lines of ``log``, less a last one that a kill cut off."""
    for line in log.read_text().splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue


def row(path: Path, log: Path | None, time_log: Path | None) -> tuple[str, dict]:
    with open_database(path, book=False) as db:
        rules = db.rules
        start = db.analyse(start_position(rules))
        tiers = [db.info(*t) for t in db.tiers()]
    counts = {v: sum(1 for m in start.moves if m.value == v) for v in ("win", "draw", "loss")}
    longest = max(t.max_plies for t in tiers)
    seconds, cpu = _log_seconds(log) if log else (_tier_seconds(rules, tiers), float("nan"))
    peak = _peak(time_log, log)
    positions = sum(t.positions for t in tiers)
    text = (
        f"| `{rules.describe()}` | {describe_game(start).removeprefix('game value: ').split(' (')[0]} "
        f"| {counts['win']} / {counts['draw']} / {counts['loss']} | {longest} | {positions:,} "
        f"| {seconds / 60:,.1f} min / {cpu / 60:,.1f} min | {peak} | {_disk(path) / 2**30:.1f} GiB |"
    )
    shares = {t.name: t.win / t.positions for t in tiers if not t.placing and t.positions}
    return text, {"rules": rules, "tiers": tiers, "shares": shares, "start": start}


def from_stats(path: Path) -> dict:
    """The moving phase's shares of won positions from a statistics file (``--stats-dir``'s
    output, e.g. tests/data/rulesets/standard.json): the reference column when its database is
    gone (the disk holds one full-size database beside the one being solved). No row."""
    d = json.loads(path.read_text())
    tiers = d["tiers"]
    shares = {n: t["win"] / t["positions"] for n, t in tiers.items() if n.count("-") == 1 and t["positions"]}
    return {"rules": d["rules"], "shares": shares}


def stats(found: dict) -> dict:
    """What a database says of its game, small enough to ship: the rule set, the start and its
    first placements, and each tier's stored counts (up to symmetry, for the side to move)."""
    start = found["start"]
    keys = ("positions", "win", "draw", "loss", "max_win", "max_loss")
    return {
        "rules": found["rules"].describe(),
        "start": {"value": start.probe.value, "plies": start.probe.plies},
        "first_moves": {m.notation: {"value": m.value, "plies": m.plies} for m in start.moves},
        "tiers": {t.name: {k: int(getattr(t, k)) for k in keys} for t in found["tiers"]},
    }


def _name(rules) -> str:
    return rules if isinstance(rules, str) else rules.describe()


def _dump_lines(d: dict) -> str:
    """JSON with one line per first move and per tier: small, and a diff shows what changed."""
    def block(m: dict) -> str:
        return "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in m.items()) + "\n }"
    parts = [f' "{k}": {block(v) if k in ("first_moves", "tiers") else json.dumps(v)}' for k, v in d.items()]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _paired(paths: list[Path], n: int) -> list[Path | None]:
    """One log per database, in order: "-" where a database has none (a standard game solved again
    for a comparison, whose first solve's log is gone), and none for those past the last given."""
    return [None if str(p) == "-" else p for p in paths] + [None] * (n - len(paths))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dbs", nargs="+", type=Path)
    p.add_argument("--log", type=Path, action="append", default=[], help="JSONL of the solve, one per database in order (\"-\": none)")
    p.add_argument("--time-log", type=Path, action="append", default=[], help="/usr/bin/time -v output of the solve, one per database in order (\"-\": none)")
    p.add_argument("--checksums-dir", type=Path)
    p.add_argument("--stats-dir", type=Path, help="where to write <rule set>.json: the start, first placements and tier counts")
    args = p.parse_args()
    logs, time_logs = _paired(args.log, len(args.dbs)), _paired(args.time_log, len(args.dbs))
    print(
        "| rule set | the start (White moves first) | first placements win / draw / lose | longest game (plies) "
        "| positions | solve (wall / CPU) | peak memory | disk |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|")
    found = []
    for path, log, time_log in zip(args.dbs, logs, time_logs):
        if path.suffix == ".json":
            found.append(from_stats(path))
            continue
        text, data = row(path, log, time_log)
        print(text)
        found.append(data)
    if len(found) > 1:
        print()
        names = sorted(set(found[0]["shares"]).intersection(*(f["shares"] for f in found[1:])), key=lambda n: tuple(map(int, n.split("-"))))
        print("| subspace | " + " | ".join(f"`{_name(f['rules'])}` won" for f in found) + " |")
        print("|---|" + "---:|" * len(found))
        for n in names:
            print(f"| {n} | " + " | ".join(f"{f['shares'][n]:.1%}" for f in found) + " |")
    found = [f for f in found if "tiers" in f]  # a statistics file's game: written already
    if args.checksums_dir:
        for f in found:
            out = args.checksums_dir / f"{default_path(f['rules']).stem}-whole.json"
            out.write_text(json.dumps({t.name: t.checksum for t in f["tiers"]}, indent=1, sort_keys=True) + "\n")
            print(f"checksums written to {out}")
    if args.stats_dir:
        args.stats_dir.mkdir(parents=True, exist_ok=True)
        for f in found:
            out = args.stats_dir / f"{default_path(f['rules']).stem}.json"
            out.write_text(_dump_lines(stats(f)))
            print(f"statistics written to {out}")


if __name__ == "__main__":
    main()
