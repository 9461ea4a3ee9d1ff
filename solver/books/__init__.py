"""Opening books: the tiers of a solved game with many men in hand, shipped inside the package so
that a lookup of the first moves needs no database.

A book is a database file of the same format (``storage.files``) holding its tiers inline, one
HDF5 file per rule set in this folder (``<rule set>.h5``, the name ``files.default_path`` would
give without ``data/``), with a few more root attributes:

    book                    1
    book_min_hand           the tiers held: every tier of the whole game whose men in hand add
                            up to at least this (a position with ``book_min_hand + 1`` or more
                            men in hand has its value and every move's in the book)
    book_source             the file name of the database it was built from
    book_source_checksums   JSON: tier name -> the source tier's checksum
    book_checksum           "sha256:<hex>" over the tiers' values, in ``tier_order``

Each tier's dataset keeps the source's statistics and its checksum (the values are the source's,
slot for slot). ``build`` writes a book from a solved database, ``verify`` checks one against its
source; ``find_book`` is how lookups find one.
"""

from __future__ import annotations

from pathlib import Path

BOOK_DIR = Path(__file__).resolve().parent


def book_file_name(rules) -> str:
    """``standard.h5``; a rule set with options changed on top of its name gets them in the name,
    as its database does (``standard_flying-never.h5``)."""
    from ..storage.files import default_path

    return default_path(rules).name


def find_book(rules, folder: Path | None = None) -> Path | None:
    """The shipped book of ``rules`` (exactly these options), or None."""
    path = (folder or BOOK_DIR) / book_file_name(rules)
    return path if path.is_file() else None


def shipped_books(folder: Path | None = None) -> list[Path]:
    """Every book file in the package's folder."""
    return sorted((folder or BOOK_DIR).glob("*.h5"))
