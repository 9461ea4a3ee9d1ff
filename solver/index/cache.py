"""The orbit minima of a board (``reps``, ``rep_offset``; see ``kernels``) kept on disk, so that a
lookup from the shell ranks positions without building the index (``plain``).

Building them takes the whole index (every mask of the board, about a second for 24 points, and
numba loaded); reading them back takes a memory map. ``BoardIndex`` writes them when it builds a
board's tables, ``plain`` reads them. One folder per board and key under the user's cache folder
(``$MORRIS_CACHE_DIR``, else ``$XDG_CACHE_HOME/morris-solver``, else ``~/.cache/morris-solver``):
8 MiB for a 24-point board. The key hashes the board (points, symmetries), this format, and the
source of the code that computes the minima (``kernels.py``, ``tables.py``), so a change to any of
them makes a new folder instead of reading stale tables; writing one removes the board's folders
of other keys (other code), so the cache does not grow with every change. Writing is best effort
(a folder that cannot be written leaves the lookup to build the index each time) and atomic: a
folder under its final name is complete.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from ..rules.boards import Board

FORMAT = "orbit-minima/1"
HERE = Path(__file__).resolve().parent


def cache_dir() -> Path:
    if os.environ.get("MORRIS_CACHE_DIR"):
        return Path(os.environ["MORRIS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "morris-solver"


@cache
def _code_hash() -> bytes:
    return b"".join(hashlib.sha256((HERE / name).read_bytes()).digest() for name in ("kernels.py", "tables.py"))


def folder(board: Board) -> Path:
    """Where the minima of ``board`` are kept (the key changes with the board and the code)."""
    h = hashlib.sha256()
    h.update(FORMAT.encode())
    h.update(repr((board.name, board.points, board.symmetries)).encode())
    h.update(_code_hash())
    return cache_dir() / "index" / f"{board.name}-{h.hexdigest()[:16]}"


def load(board: Board) -> tuple[np.ndarray, np.ndarray] | None:
    """(reps as a read-only memory map, rep_offset), or None when not cached or unreadable."""
    where = folder(board)
    try:
        rep_offset = np.load(where / "rep_offset.npy")
        reps = np.load(where / "reps.npy", mmap_mode="r")
    except (OSError, ValueError):
        return None
    if rep_offset.shape != (board.n + 2,) or reps.ndim != 1 or int(rep_offset[-1]) != reps.shape[0]:
        return None
    return reps, rep_offset


def save(board: Board, reps: np.ndarray, rep_offset: np.ndarray) -> None:
    """Keep the minima of ``board`` on disk unless they are there already; silent on failure."""
    final = folder(board)
    if final.is_dir():
        return
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
    except OSError:
        return
    try:
        np.save(tmp / "reps.npy", np.ascontiguousarray(reps, dtype=np.int64))
        np.save(tmp / "rep_offset.npy", np.ascontiguousarray(rep_offset, dtype=np.int64))
        tmp.rename(final)
    except OSError:
        pass  # another process put it there first, or the disk is full: nothing is lost
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for stale in final.parent.glob(f"{board.name}-*"):
        if stale != final:
            shutil.rmtree(stale, ignore_errors=True)
