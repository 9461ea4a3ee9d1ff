"""Where numba caches the compiled kernels: a directory named by a hash of the package's sources.

Numba keys a cached function by its own file's timestamp alone. A kernel compiled with a helper
from another module keeps the helper's old code after that module changes, and runs it without a
word: a fixed rule or value would go on being computed the old way. With one cache directory per
state of the sources, any change compiles afresh. ``NUMBA_CACHE_DIR``, where set, is the parent
of these directories; a few recent ones are kept, so switching between two commits reuses both.
Stdlib only: ``import solver`` runs it, and must not load numba (``morris query``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

PREFIX = "morris-"
KEEP = 4  # cache directories kept beside the current one's (the most recently used)


def source_key(root: Path) -> str:
    """A hash of every ``.py`` file under ``root``, names and contents."""
    h = hashlib.blake2b(digest_size=8)
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


def cache_root() -> Path:
    """The parent of the cache directories: ``NUMBA_CACHE_DIR`` (less a directory of ours that a
    parent process set there), else the user's cache directory."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        path = Path(given)
        return path.parent if path.name.startswith(PREFIX) else path
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "morris" / "numba"


def use_source_keyed_cache(package: Path) -> Path | None:
    """Point numba's cache at the directory for ``package``'s sources as they are now (creating
    it, and pruning the oldest); None, numba's default left alone, where it cannot be created."""
    root = cache_root()
    path = root / (PREFIX + source_key(package))
    try:
        fresh = not path.is_dir()
        path.mkdir(parents=True, exist_ok=True)
        os.utime(path)  # the most recently used
    except OSError:
        return None
    if fresh:
        try:
            _prune(root, path)
        except OSError:  # (another process pruning at the same time)
            pass
    os.environ["NUMBA_CACHE_DIR"] = str(path)  # read when numba is imported (here and in workers)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported already: its config is read when a kernel's cache is made
        numba.config.CACHE_DIR = str(path)
    return path


def _prune(root: Path, current: Path) -> None:
    """Remove our cache directories beyond the ``KEEP`` most recently used besides ``current``."""
    others = [p for p in root.iterdir() if p.name.startswith(PREFIX) and p != current and p.is_dir()]
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for p in others[KEEP:]:
        shutil.rmtree(p, ignore_errors=True)


def cache_files() -> int:
    """Files in numba's cache directory now (``NUMBA_CACHE_DIR``): numba writes there only when it
    compiles, so a count that grew over a call says the call compiled (0 where there is none)."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if not given or not Path(given).is_dir():
        return 0
    return sum(len(files) for _, _, files in os.walk(given))
