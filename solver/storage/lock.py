"""One writer per database: ``<db>.lock`` is held (flock) while a solve writes."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path

from ..errors import DatabaseError


@contextmanager
def writer_lock(db_path: Path):
    """Hold ``<db>.lock`` while writing: two solves into one database would race on its files.
    Creates the database's folder; a folder or lock that cannot be made is a DatabaseError."""
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(str(db_path) + ".lock", "a+")
    except OSError as e:
        raise DatabaseError(f"cannot write the database {db_path}: {e.strerror or e}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise DatabaseError(f"another morris solve is writing {db_path}; wait for it to finish") from None
    try:
        yield
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
