"""The published record the opening books are held to: for each book file, the checksum of
each of its tiers from the verified whole-game solve of its rule set
(``tests/data/checksums/<rule set>-whole.json``), shipped as ``published.json`` beside the books.

A rule set without a published whole game (three, six) has no entry: its book is held to the
checksums it stores itself. ``record_from`` rebuilds the file from the checksums folder
(``tools/book_record.py`` writes it; a test compares it), so that the two cannot drift apart.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from . import BOOK_DIR

PUBLISHED = BOOK_DIR / "published.json"


@cache
def _record() -> dict[str, dict[str, str]]:
    return json.loads(PUBLISHED.read_text())["books"] if PUBLISHED.is_file() else {}


def published_checksums(book_name: str) -> dict[str, str]:
    """Tier name -> the published checksum of each tier of the book ``book_name``
    (``books.book_file_name``); empty where its rule set has no published record."""
    return _record().get(book_name, {})


def record_from(checksums_dir: Path, books: list[Path]) -> dict:
    """The content of ``published.json`` for the book files ``books``: each book's tiers (the
    datasets it holds) with their checksums from ``<checksums_dir>/<book stem>-whole.json``;
    a book without such a file is left out. ``KeyError`` names a tier the file lacks."""
    from ..storage.files import open_h5

    out: dict[str, dict[str, str]] = {}
    for path in sorted(books):
        whole = checksums_dir / f"{path.stem}-whole.json"
        if not whole.is_file():
            continue
        published = json.loads(whole.read_text())
        with open_h5(path) as f:
            names = sorted(f["subspaces"])
        lacking = [n for n in names if n not in published]
        if lacking:
            raise KeyError(f"{whole} lacks tiers {', '.join(lacking[:5])} of the book {path.name}")
        out[path.name] = {n: published[n] for n in names}
    return {
        "about": "each book's tiers with their checksums from tests/data/checksums/<book stem>-whole.json "
        "(written by tools/book_record.py)",
        "books": out,
    }
