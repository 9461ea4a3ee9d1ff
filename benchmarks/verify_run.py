"""A full ``morris verify`` of a large database that survives interruptions.

Each subspace's check is appended to a JSON-lines log as soon as it is done; run again, the
subspaces the log already has as passed are left out, so a cut-off run goes on where it stopped.
At the end it prints the totals (positions, seconds of the checks, failures) from the whole log.

    nohup python benchmarks/verify_run.py --db data/standard.h5 --log data/verify9.jsonl &

``--phase moving`` or ``--phase placing`` checks (and totals) the one phase alone.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from solver.cli.solve import parse_size
from solver.storage.database import Database
from solver.verify.check import memory_plan, verify


def logged(log: Path) -> dict[str, dict]:
    """The last logged check of each subspace."""
    out: dict[str, dict] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                out[entry["subspace"]] = entry
    return out


@click.command()
@click.option("--db", "db_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--log", type=click.Path(dir_okay=False, path_type=Path), required=True, help="JSON lines, one per subspace checked")
@click.option("--threads", type=int, default=None)
@click.option("--max-memory", type=str, default=None, metavar="SIZE",
              help="solved values held between checks, as morris verify's [default: half this machine's memory]")
@click.option("--phase", type=click.Choice(["all", "moving", "placing"]), default="all", show_default=True,
              help="the moving subspaces only, or the tiers with men in hand only")
def main(db_path: Path, log: Path, threads: int | None, max_memory: str | None, phase: str) -> None:
    with Database(db_path) as db:
        # (the tiers with men in hand are listed too; ``--phase`` keeps one phase)
        names = [s.name for s in db.tiers() if phase == "all" or s.placing == (phase == "placing")]
    done = {name for name, entry in logged(log).items() if entry["ok"]}
    todo = [name for name in names if name not in done]
    click.echo(f"{len(names)} subspaces, {len(done)} passed before, {len(todo)} to check", err=True)
    wall = time.perf_counter()

    def record(check) -> None:
        with log.open("a") as f:
            f.write(json.dumps(check.to_dict()) + "\n")
            f.flush()
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


if __name__ == "__main__":
    main()
