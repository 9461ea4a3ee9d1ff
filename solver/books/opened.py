"""The check of an opening book as a lookup opens it (``query.open_database``: the book alone,
or the tiers it adds to a database, ``Database.add_book``): ``hold_to_record``.

At opening, each tier's stored checksum must be the published one (``published``): that reads
no values, so a book whose values were changed and its checksums refreshed to match fails at
once. The first time the process reads a tier's values, all of them are read and their checksum
compared with the published one (with the tier's stored one where its rule set has no published
record): a changed value under unchanged checksums fails before any answer comes from that
tier. A tier a lookup never reads gives it no answer, so it is not read just to be checked:
``morris query`` of the standard game's start reads two tiers of its book, not 25 million
positions. The verdicts are kept for the process, per file (its path, size, time and inode) and
tier, so a book opened again (``morris serve``, the Python API) is not read again.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from ..errors import MismatchError
from ..storage.database import Database
from ..storage.files import checksum
from . import book_file_name
from .published import published_checksums

_verdicts: dict[tuple, str | None] = {}  # (file, tier name) -> None where it matched, else the error


def _identity(path: Path) -> tuple:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)


def hold_to_record(db: Database) -> None:
    """Check the tiers an opening book answers in ``db`` (``Database.book_tiers``): their stored
    checksums against the published record now (``MismatchError`` naming the book and tier),
    their values on first read (``Database.check_on_first_read``), once per process."""
    tiers = db.book_tiers()
    if not tiers:
        return
    published = published_checksums(book_file_name(db.rules))
    identity = _identity(tiers[0].file)  # (a database takes its book's tiers from one file)
    for info in tiers:
        want = published.get(info.name)
        if want is not None and info.checksum != want:
            raise MismatchError(
                f"tier {info.name} of the opening book {info.file} stores the checksum {info.checksum}, not the "
                f"published {want}: the book was changed"
            )
        key = (identity, info.name)
        if _verdicts.get(key, "") is not None:  # not read yet in this process, or failed
            what = "published" if want is not None else "stored"
            db.check_on_first_read(info.name, partial(_check_values, key, info.file, want or info.checksum, what))


def _check_values(key: tuple, file: Path, want: str, what: str, values: np.ndarray) -> None:
    if key not in _verdicts:
        got = checksum(values)
        _verdicts[key] = None if got == want else (
            f"tier {key[1]} of the opening book {file} does not match its {what} checksum "
            f"(its values give {got}, not {want}): the book was changed"
        )
    if _verdicts[key] is not None:
        raise MismatchError(_verdicts[key])
