"""Commit some paths alone to git, from the long runs: ``git add`` them, then ``git commit -- PATHS``,
so that whatever else is staged stays staged and nothing else goes with them. The long runs
(``whole_games.sh``, ``verify_run.py --commit-every``) use it to bank what they finish while the
session runs: a session is cut off without warning, and a new machine's ``data/`` is empty.

    python benchmarks/commit_paths.py -m "morabaraba: solved and verified" benchmarks/games/morabaraba ...

Nothing to commit, or no work tree: nothing is made (exit 1), and the next call tries again; the
index held by another commit is waited for a few seconds; a path that does not exist is left out.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import click


def commit(paths: list[Path] | Path, message: str) -> bool:
    """Commit ``paths`` (files or folders; those that exist) alone in the git work tree that holds
    the first; whether a commit was made."""
    paths = [Path(p).resolve() for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    paths = [p for p in paths if p.exists()]
    if not paths:
        return False
    top = subprocess.run(["git", "-C", str(paths[0].parent), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode:
        return False
    git = ["git", "-C", top.stdout.strip()]
    names = [str(p) for p in paths]
    if subprocess.run([*git, "add", "--", *names], capture_output=True).returncode:  # (an ignored path: refused)
        return False
    for _ in range(5):
        done = subprocess.run([*git, "commit", "-q", "-m", message, "--", *names], capture_output=True, text=True)
        if done.returncode == 0 or "index.lock" not in done.stderr:
            return done.returncode == 0
        time.sleep(2)  # (another commit holds the index: the chain's ledger, or the session's own)
    return False


@click.command()
@click.option("-m", "--message", required=True)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def main(message: str, paths: tuple[Path, ...]) -> None:
    made = commit(list(paths), message)
    click.echo(f"{'committed' if made else 'nothing committed'}: {message}", err=True)
    sys.exit(0 if made else 1)


if __name__ == "__main__":
    main()
