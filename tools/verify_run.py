"""A full ``morris verify`` of a large database that survives interruptions.

Each subspace's check is appended to a JSON-lines log as soon as it is done; run again, the
subspaces the log already has as passed are left out, so a cut-off run goes on where it stopped.
At the end it prints the totals (positions, seconds of the checks, failures) from the whole log.

    nohup python tools/verify_run.py --db data/standard.h5 --log data/verify9.jsonl &

``--phase moving`` or ``--phase placing`` checks (and totals) the one phase alone.

``--solved-only`` checks a database that is still being solved (between two runs of its solve): the
subspaces whose checks read nothing it lacks (``verify.check.checkable``), the rest left for a later
run; the totals and the exit status are of those alone.

With ``--ledger`` (a JSON-lines file, e.g. ``data/verified/<database>.jsonl``) each passed check
is also recorded there, with the checksums of the values it read; a later run on a database
solved again takes as checked, without checking again, each subspace whose values and reads are
the ones a passed check saw (``solver.verify.ledger``), once its values read back give their
stored checksum.

    python tools/verify_run.py --db data/twelve.h5 --log data/verify-morabaraba.jsonl \
        --ledger data/verified/twelve.jsonl
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from solver.storage.sizes import parse_size
from solver.errors import MorrisError
from solver.storage.database import Database
from solver.verify.check import SubspaceCheck, checkable, memory_plan, verify
from solver.verify.ledger import Ledger, values_match

LEDGER = "ledger"  # the method logged for a check taken from the ledger


def logged(log: Path) -> dict[str, dict]:
    """The last logged check of each subspace."""
    out: dict[str, dict] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # (blank, or cut off by a kill)
            out[entry["subspace"]] = entry
    return out


@click.command()
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the database (its main file, or the subspace files of a solve cut off before it)")
@click.option("--log", type=click.Path(dir_okay=False, path_type=Path), required=True, help="JSON lines, one per subspace checked")
@click.option("--threads", type=int, default=None)
@click.option("--max-memory", type=str, default=None, metavar="SIZE",
              help="solved values held between checks, as morris verify's [default: half this machine's memory]")
@click.option("--phase", type=click.Choice(["all", "moving", "placing"]), default="all", show_default=True,
              help="the moving subspaces only, or the tiers with men in hand only")
@click.option("--ledger", "ledger_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="passed checks kept across databases (JSON lines): recorded, and taken where the values are the same")
@click.option("--solved-only", is_flag=True,
              help="a database still being solved: check only what reads nothing it lacks (the rest later)")
def main(db_path: Path, log: Path, threads: int | None, max_memory: str | None, phase: str, ledger_path: Path | None,
         solved_only: bool) -> None:
    try:
        run(db_path, log, threads, max_memory, phase, ledger_path, solved_only)
    except MorrisError as e:  # (a ledger of other rules, a database it cannot read: one line)
        click.echo(f"error: {e}", err=True)
        raise SystemExit(2) from None


def run(db_path: Path, log: Path, threads: int | None, max_memory: str | None, phase: str, ledger_path: Path | None,
        solved_only: bool = False) -> None:
    wall = time.perf_counter()
    with Database(db_path) as db:
        infos = db.tiers()
        # (the tiers with men in hand are listed too; ``--phase`` keeps one phase)
        names = [s.name for s in infos if phase == "all" or s.placing == (phase == "placing")]
        if solved_only:
            ready, chosen = set(checkable(db.rules, [s.tier for s in infos])), set(names)
            waiting = sum(1 for s in infos if s.name in chosen and s.tier not in ready)
            names = [s.name for s in infos if s.name in chosen and s.tier in ready]
            click.echo(f"--solved-only: {waiting} subspaces read what the database lacks yet: left for a later run", err=True)
        ledger = Ledger(ledger_path, db.rules, infos) if ledger_path else None
        done = {name for name, entry in logged(log).items() if entry["ok"]}
        todo = [name for name in names if name not in done]
        click.echo(f"{len(names)} subspaces, {len(done)} passed before, {len(todo)} to check", err=True)
        if ledger:
            carried = _from_ledger(db, ledger, [s for s in infos if s.name in set(todo)], log)
            todo = [name for name in todo if name not in carried]
    by_name = {s.name: s for s in infos}

    def record(check) -> None:
        _log(log, check)
        if ledger and check.ok:
            ledger.record(by_name[check.name], check.method, check.seconds)
        click.echo(f"{check.name}: {'ok' if check.ok else 'FAILED'} ({check.method}, {check.seconds:.1f} s)", err=True)

    if todo:
        budget = parse_size(max_memory) if max_memory else None
        click.echo(json.dumps(memory_plan(db_path, subspaces=todo, max_memory=budget)), err=True)
        verify(db_path, threads=threads, progress=False, on_check=record, subspaces=todo, max_memory=budget)
    entries = logged(log)
    failed = sorted(name for name in names if not entries.get(name, {}).get("ok"))
    total = {
        "subspaces": len(names),
        "positions": sum(entries[n]["positions"] for n in names if n in entries),
        "check_seconds": round(sum(entries[n]["seconds"] for n in names if n in entries), 1),
        "this_run_wall_seconds": round(time.perf_counter() - wall, 1),
        "failed": failed,
    }
    click.echo(json.dumps(total))
    raise SystemExit(1 if failed else 0)


def _from_ledger(db: Database, ledger: Ledger, subs, log: Path) -> set[str]:
    """Log as passed, and return the names of, the subspaces of ``subs`` that the ledger vouches
    for and whose values read back give their stored checksums."""
    carried = set()
    for s in subs:
        if not ledger.vouches(s):
            continue
        t0 = time.perf_counter()
        if values_match(db, s):
            # (seconds: the check's that passed, so that the totals are the checks' time; read_seconds: this read)
            entry = {**SubspaceCheck(s.name, s.positions, True, method=LEDGER).to_dict(),
                     "seconds": ledger.entries[s.name]["seconds"], "read_seconds": round(time.perf_counter() - t0, 3)}
            _log(log, entry)
            carried.add(s.name)
    if carried:
        click.echo(f"{len(carried)} subspaces checked before with the same values ({ledger.path}): not checked again", err=True)
    return carried


def _log(log: Path, check: SubspaceCheck | dict) -> None:
    with log.open("a") as f:
        f.write(json.dumps(check if isinstance(check, dict) else check.to_dict()) + "\n")


if __name__ == "__main__":
    main()
