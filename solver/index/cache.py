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

A manifest written with the arrays holds their sha256; reading checks it (about 10 ms for a
24-point board) and the invariants the ranks rely on (``valid``), since a damaged or edited file
would otherwise give wrong ranks without a word. A folder that fails is removed and reads as not
cached: the lookup builds the index, which writes it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from ..rules.boards import Board

FORMAT = "orbit-minima/2"  # /2: the manifest
MANIFEST = "manifest.json"
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


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array)).hexdigest()


def manifest(board: Board, reps: np.ndarray, rep_offset: np.ndarray) -> dict:
    """What ``save`` writes next to the arrays: the format, the board, and each array's sha256."""
    return {"format": FORMAT, "board": board.name, "reps_sha256": digest(reps), "rep_offset_sha256": digest(rep_offset)}


def valid(board: Board, reps: np.ndarray, rep_offset: np.ndarray) -> bool:
    """The invariants ``plain`` relies on: int64 arrays, a block of minima per number of men
    (0 ... n, from ``rep_offset[0] = 0`` to ``rep_offset[n + 1] = len(reps)``), each block
    strictly increasing (ranks are found by binary search)."""
    if reps.dtype != np.int64 or rep_offset.dtype != np.int64 or reps.ndim != 1 or rep_offset.shape != (board.n + 2,):
        return False
    if rep_offset[0] != 0 or int(rep_offset[-1]) != reps.shape[0] or (np.diff(rep_offset) < 0).any():
        return False
    rising = np.asarray(reps[1:] > reps[:-1])
    starts = rep_offset[1:-1]
    rising[starts[(starts > 0) & (starts < reps.shape[0])] - 1] = True  # (not compared across blocks)
    return bool(rising.all())


def load(board: Board) -> tuple[np.ndarray, np.ndarray] | None:
    """(reps as a read-only memory map, rep_offset), or None when not cached; a folder whose
    arrays do not match its manifest's sha256 or break ``valid`` is removed and reads as None."""
    where = folder(board)
    if not where.is_dir():
        return None
    try:
        written = json.loads((where / MANIFEST).read_text())
        rep_offset = np.load(where / "rep_offset.npy")
        reps = np.load(where / "reps.npy", mmap_mode="r")
    except (OSError, ValueError, EOFError):  # (json's errors are ValueErrors; an empty .npy, an EOFError)
        written, reps, rep_offset = None, None, None
    if written is not None and valid(board, reps, rep_offset) and written == manifest(board, reps, rep_offset):
        return reps, rep_offset
    shutil.rmtree(where, ignore_errors=True)  # damaged: the next build of the index writes it again
    return None


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
        reps, rep_offset = np.ascontiguousarray(reps, dtype=np.int64), np.ascontiguousarray(rep_offset, dtype=np.int64)
        np.save(tmp / "reps.npy", reps)
        np.save(tmp / "rep_offset.npy", rep_offset)
        (tmp / MANIFEST).write_text(json.dumps(manifest(board, reps, rep_offset)))
        tmp.rename(final)
    except OSError:
        pass  # another process put it there first, or the disk is full: nothing is lost
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for stale in final.parent.glob(f"{board.name}-*"):
        if stale != final:
            shutil.rmtree(stale, ignore_errors=True)
