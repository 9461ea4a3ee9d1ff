"""Whether the disk holds what a whole-game solve has still to write: the check
tools/whole_games.sh makes before each game, so that a long run does not stop half-way on a
full disk.

    python tools/disk_check.py --rules lasker --max-memory 16GiB --db data/lasker.h5

Takes ``morris solve --whole-game``'s options, asks its dry run (``--dry-run --json``) for what is
left to solve and prints one line: the bytes still to write (``solver.engine.costs.disk``)
against the space free where the database goes. Exit status 0 when it fits with a margin, 3
when not. An estimate, not a promise: the stored bytes a position vary with the game (README, "Nine Men's Morris under the old rules").
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from solver.engine.costs.disk import need_bytes

MARGIN = 2 << 30  # the verify's log, a book, the statistics, the system


def dry_run(argv: list[str]) -> list[dict]:
    run = subprocess.run(["morris", "solve", "--whole-game", *argv, "--dry-run", "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"disk_check: the dry run failed: {(run.stderr.strip().splitlines() or [run.returncode])[-1]}")
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


def main(argv: list[str]) -> int:
    if "--db" not in argv:
        print("disk_check: give the database (--db PATH)", file=sys.stderr)
        return 2
    at = argv.index("--db")
    db = Path(argv[at + 1])
    events = dry_run(argv)
    placing = 0
    if any("states" in e for e in events if e.get("event") == "plan"):
        # the same game without the history rule, into no database: its placing phase's positions
        with tempfile.TemporaryDirectory() as tmp:
            plain = [*argv[:at], "-o", "reclose=allowed", "--db", str(Path(tmp) / "plain.h5"), *argv[at + 2 :]]
            placing = sum(e["positions"] for e in dry_run(plain) if e.get("event") == "placing plan")
    need = need_bytes(events, db, placing)
    free = shutil.disk_usage(db.parent if db.parent.exists() else Path(".")).free
    fits = need + MARGIN <= free
    print(f"{db}: about {need / 2**30:,.1f} GiB still to write, {free / 2**30:,.1f} GiB free: {'fits' if fits else 'does not fit'}")
    return 0 if fits else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
