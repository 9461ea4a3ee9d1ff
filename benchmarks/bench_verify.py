"""Verifier throughput against the solver's: seconds per subspace, positions per second, and the
ratio solve seconds / verify seconds (the goal: at least 1).

    python benchmarks/bench_verify.py --db data/standard.h5          # against its stored seconds
    python benchmarks/bench_verify.py --max-men 5 --repeat 3         # solve, then verify, 3 times

With ``--db`` it verifies a database and compares with the solving seconds stored in it (a pair's
wall time, both halves, compilation excluded: ``morris info --json``), which were measured when
it was built, under whatever load the machine had then. Without ``--db`` it solves the chain up
to ``--max-men`` into a temporary database and verifies it right away, ``--repeat`` times, so that
both figures come from the same minutes: on a shared machine only those compare. Verify seconds
are each subspace's check from reading its values to its verdict; the kernels are compiled (or
loaded from numba's cache) and the board's index built first. Results go to
benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from solver.engine.costs.bench import machine_line
from solver.engine.run import solve
from solver.index import board_index
from solver.jit import use_threads
from solver.rules import make_rules
from solver.storage.database import Database
from solver.verify.check import SWEEP, TWIN_WALK, verify

METHODS = {"auto": None, "twin-walk": TWIN_WALK, "sweep": SWEEP}


def warm_up() -> None:
    """Compile every verify kernel on a small database of the six board (the kernels' types do
    not depend on the board or the rules)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "six.h5"
        solve(make_rules("six"), 4, path, progress=False, echo=lambda s: None)
        for method in (TWIN_WALK, SWEEP):
            verify(path, progress=False, method=method)


def measure(path: Path, method: str | None, subspaces: list[str] | None) -> dict:
    with Database(path) as db:
        info = {s.name: s for s in db.subspaces()}
        board_index(db.rules.board)
    t0 = time.perf_counter()
    checks = verify(path, progress=False, method=method, subspaces=subspaces)
    wall = time.perf_counter() - t0
    if not all(c.ok for c in checks):
        raise SystemExit(f"verify failed: {[c.name for c in checks if not c.ok]}")
    rows, pairs = [], {}
    for c in checks:
        s = info[c.name]
        rows.append({
            "subspace": c.name, "positions": c.positions, "method": c.method, "verify_s": round(c.seconds, 3),
            "positions_per_s": round(c.positions / c.seconds) if c.seconds else None, "solve_pair_s": s.seconds,
        })
        key = tuple(sorted((s.mover, s.opponent)))
        p = pairs.setdefault(key, {"pair": "{}-{}".format(*key) + ("" if key[0] == key[1] else " + {1}-{0}".format(*key)),
                                   "positions": 0, "solve_s": s.seconds, "verify_s": 0.0})
        p["positions"] += c.positions
        p["verify_s"] += c.seconds
    for p in pairs.values():
        p["ratio"] = round(p["solve_s"] / p["verify_s"], 2) if p["verify_s"] else None
        p["verify_s"] = round(p["verify_s"], 3)
    solve_s = sum(p["solve_s"] for p in pairs.values())
    verify_s = sum(c.seconds for c in checks)
    return {
        "database": str(path), "subspaces": rows, "pairs": list(pairs.values()),
        "positions": sum(c.positions for c in checks), "solve_s": round(solve_s, 3), "verify_s": round(verify_s, 3),
        "verify_call_s": round(wall, 3), "ratio": round(solve_s / verify_s, 2) if verify_s else None,
    }


def show(report: dict) -> None:
    for r in report["subspaces"]:
        print(f"  {r['subspace']:>6} {r['positions']:>13,} pos  {r['method']:>9}  {r['verify_s']:7.2f} s  "
              f"{(r['positions_per_s'] or 0) / 1e6:7.2f} M pos/s")
    for p in report["pairs"]:
        print(f"  {p['pair']:>11} {p['positions']:>13,} pos  solve {p['solve_s']:7.2f} s  verify {p['verify_s']:7.2f} s  "
              f"ratio {p['ratio']}")
    print(f"  total {report['positions']:,} positions: solve {report['solve_s']:.2f} s, verify {report['verify_s']:.2f} s "
          f"({report['verify_call_s']:.2f} s for the whole call), {report['positions'] / report['verify_s'] / 1e6:.2f} M pos/s; "
          f"solve / verify = {report['ratio']}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", type=Path, help="verify this database against its stored solving seconds")
    p.add_argument("--rules", default="standard", help="without --db: the rule set to solve")
    p.add_argument("--max-men", type=int, default=5, help="without --db: solve the chain up to this many men")
    p.add_argument("--repeat", type=int, default=1, help="without --db: solve and verify this many times")
    p.add_argument("--subspace", action="append", help="verify only these (repeatable)")
    p.add_argument("--method", choices=list(METHODS), default="auto")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--json", action="store_true", help="one JSON object per run, then the summary")
    args = p.parse_args()
    use_threads(args.threads)
    method = METHODS[args.method]
    print(machine_line())
    warm_up()
    reports = []
    if args.db:
        reports.append(measure(args.db, method, args.subspace))
    else:
        rules = make_rules(args.rules)
        for i in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "chain.h5"
                solve(rules, args.max_men, path, progress=False, echo=lambda s: None)
                reports.append(measure(path, method, args.subspace))
    for i, r in enumerate(reports):
        if args.json:
            print(json.dumps(r))
        else:
            print(f"run {i + 1}: {r['database'] if args.db else f'{args.rules} up to {args.max_men} men, solved just before'}")
            show(r)
    ratios = [r["ratio"] for r in reports]
    summary = {"runs": len(reports), "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
               "verify_s_median": statistics.median(r["verify_s"] for r in reports),
               "solve_s_median": statistics.median(r["solve_s"] for r in reports)}
    print(json.dumps(dict(summary, event="summary")) if args.json else
          f"median over {len(reports)} run(s): solve {summary['solve_s_median']:.2f} s, verify "
          f"{summary['verify_s_median']:.2f} s, solve / verify = {summary['ratio_median']} (lowest {summary['ratio_min']})")


if __name__ == "__main__":
    main()
