"""The published record the opening books are held to (``solver/books/published.json``), from the
published whole-game checksums.

    python tools/book_record.py            # write solver/books/published.json
    python tools/book_record.py --check    # exit 1 where the file differs from what it would write

For each book in ``solver/books/`` whose rule set has ``tests/data/checksums/<book stem>-whole.json``:
each of its tiers with the checksum that file gives (``solver.books.published.record_from``).
Run it after a book is built or a whole game's checksums are recorded. Not a test
(``tests/test_books.py`` compares the two).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from solver.books import shipped_books
from solver.books.published import PUBLISHED, record_from

CHECKSUMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "checksums"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare, write nothing")
    args = p.parse_args()
    text = json.dumps(record_from(CHECKSUMS, shipped_books()), indent=1, sort_keys=True) + "\n"
    if args.check:
        same = PUBLISHED.is_file() and PUBLISHED.read_text() == text
        print(f"{PUBLISHED}: {'up to date' if same else 'differs from ' + str(CHECKSUMS)}")
        sys.exit(0 if same else 1)
    PUBLISHED.write_text(text)
    books = json.loads(text)["books"]
    print(f"{PUBLISHED}: {len(books)} books, {sum(map(len, books.values()))} tiers")


if __name__ == "__main__":
    main()
