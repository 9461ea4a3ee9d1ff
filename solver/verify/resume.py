"""``morris verify --log``: a full verify that survives interruptions, and the one path that
reuses a pass instead of checking again.

Each tier's check is appended to a JSON-lines log as it finishes (``SubspaceCheck.to_dict``, one
object a line). Run again with the same log, a logged pass stands only where its evidence holds
for the database now (``evidence.reuse_refused``: the same logic version, and the values of the
tier and of every tier its check reads, read back, give the logged checksums); every other tier
is checked again, and a line cut off by a kill is passed over. With a ledger (``ledger``), a
pass recorded for another database of the same rules is taken the same way and logged with
method ``ledger``; each new pass is recorded there. At the end, the totals of the log's last line
for each tier (positions as the checks counted them), and whether the database holds every tier
its game needs (``complete``). ``phase`` keeps the moving subspaces or the tiers with men in hand;
``solved_only`` checks a database still being solved: only the tiers whose checks read nothing
it lacks (``check.checkable``), the rest (and its completeness) left for a later run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from ..rules.rulesets import RuleSet
from ..storage.database import Database
from ..tiers import tier_name
from .check import SubspaceCheck, checkable, memory_plan, verify
from .complete import describe_missing, missing_tiers
from .evidence import ReadBack, reuse_refused
from .ledger import EVIDENCE, Ledger, parse_line

LEDGER = "ledger"  # the method logged for a pass taken from the ledger


def logged(log: Path) -> dict[str, dict]:
    """The last logged check of each tier."""
    out: dict[str, dict] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            entry = parse_line(line)
            if entry is not None and "subspace" in entry:
                out[entry["subspace"]] = entry
    return out


def verify_logged(
    db_path: Path,
    log: Path,
    rules: RuleSet | None = None,
    threads: int | None = None,
    max_memory: int | None = None,
    phase: str = "all",
    ledger_path: Path | None = None,
    solved_only: bool = False,
    echo: Callable[[str], None] = print,
) -> dict:
    """Verify the database at ``db_path`` as the module's note says; ``echo`` hears a line per
    step and per check. Returns the totals (``ok``: every tier passed and none is missing)."""
    wall = time.perf_counter()
    with Database(db_path, rules) as db:
        infos, rules = db.tiers(), db.rules
        present = {s.tier for s in infos}
        in_phase = [s for s in infos if phase == "all" or s.placing == (phase == "placing")]
        names = [s.name for s in in_phase]
        missing: list[str] | None = None
        if solved_only:
            ready = set(checkable(rules, [s.tier for s in infos]))
            waiting = sum(1 for s in in_phase if s.tier not in ready)
            names = [s.name for s in in_phase if s.tier in ready]
            echo(f"--solved-only: {waiting} subspaces read what the database lacks yet: left for a later run")
        else:
            lacking, needed = missing_tiers(rules, sorted(present), db.book_min_hand is not None)
            lacking = [t for t in lacking if phase == "all" or bool(t[2] or t[3]) == (phase == "placing")]
            missing = [tier_name(t) for t in lacking]
            if lacking:
                echo(describe_missing(lacking, needed))
        ledger = Ledger(ledger_path, rules) if ledger_path else None
        readback, by_name = ReadBack(db), {s.name: s for s in infos}
        before = logged(log)
        passed = {n for n in names if before.get(n, {}).get("ok")}
        kept = {n for n in passed if reuse_refused(before[n], by_name[n], readback, present) is None}
        todo = [n for n in names if n not in kept]
        echo(f"{len(names)} subspaces, {len(kept)} passed before with the values they hold now"
             + (f" ({len(passed) - len(kept)} passed before: checked again, their evidence no longer holds)" if passed - kept else "")
             + f", {len(todo)} to check")
        if ledger:
            carried = _from_ledger(ledger, [by_name[n] for n in todo], readback, present, log)
            if carried:
                echo(f"{len(carried)} subspaces passed before with the same values ({ledger.path}): not checked again")
            todo = [n for n in todo if n not in carried]

    def record(check: SubspaceCheck) -> None:
        _log(log, check.to_dict())
        if ledger:
            ledger.record(check)
        echo(f"{check.name}: {'ok' if check.ok else 'FAILED'} ({check.method}, {check.seconds:.1f} s)")

    if todo:
        echo(json.dumps(memory_plan(db_path, rules, subspaces=todo, max_memory=max_memory)))
        verify(db_path, threads=threads, progress=False, rules=rules, on_check=record, subspaces=todo, max_memory=max_memory)
    entries = logged(log)
    failed = sorted(n for n in names if not entries.get(n, {}).get("ok"))
    return {
        "subspaces": len(names),
        "positions": sum(entries[n]["positions"] for n in names if n in entries),
        "check_seconds": round(sum(entries[n]["seconds"] for n in names if n in entries), 1),
        "this_run_wall_seconds": round(time.perf_counter() - wall, 1),
        "failed": failed,
        "missing_tiers": missing,
        "ok": not failed and not missing,
    }


def _from_ledger(ledger: Ledger, subs, readback: ReadBack, present, log: Path) -> set[str]:
    """Log as passed, and return the names of, the tiers of ``subs`` whose pass the ledger
    holds and whose evidence holds now."""
    carried = set()
    for s in subs:
        t0 = time.perf_counter()
        if ledger.vouches(s, readback, present):
            entry = ledger.entries[s.name]
            # (seconds: the check's that passed, so that the totals are the checks' time; read_seconds: this read)
            line = {**SubspaceCheck(s.name, entry["positions"], True, method=LEDGER).to_dict(),
                    **{k: entry[k] for k in EVIDENCE}, "seconds": entry["seconds"],
                    "read_seconds": round(time.perf_counter() - t0, 3)}
            _log(log, line)
            carried.add(s.name)
    return carried


def _log(log: Path, line: dict) -> None:
    with log.open("a") as f:
        f.write(json.dumps(line) + "\n")
