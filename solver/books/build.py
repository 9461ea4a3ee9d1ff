"""Building an opening book from a solved database, and checking one: against the published
record (``published``), the local rule (``local_rule``) and, given it, its source."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError, MismatchError
from ..storage.database import Database
from ..storage.files import STAT_KEYS, checksum, open_h5
from ..storage.writer import chunked_dataset, write_atomic, write_header, write_stats
from ..tiers import Tier, parse_tier, tier_name, whole_game_tiers
from . import book_file_name
from .local_rule import check_local_rule
from .published import published_checksums

LEVEL = 9  # gzip: a book is written once and shipped, so the smallest file wins
CHUNK = 1 << 14  # values per chunk: a lookup decompresses one (32 KiB)


def book_tiers(rules, min_hand: int) -> list[Tier]:
    """The tiers of the whole game whose men in hand add up to ``min_hand`` or more (with 0: the
    whole game, the moving phase it needs included), in ``tier_order``."""
    return tier_order(t for t in whole_game_tiers(rules) if t[2] + t[3] >= min_hand)


def tier_order(tiers) -> list[Tier]:
    """The order of a book's tiers (and of its checksum): most men in hand first, then by name."""
    return sorted(tiers, key=lambda t: (-(t[2] + t[3]), t))


def build_book(db_path: str | os.PathLike, out: str | os.PathLike, min_hand: int, progress=None) -> dict:
    """Write the book of the tiers with ``min_hand`` or more men in hand of the database at
    ``db_path`` to ``out`` (replaced atomically). Every tier's values are checked against the
    checksum the database stores before they are copied. Returns a summary (tiers, positions,
    slots, bytes, checksum)."""
    db_path, out = Path(db_path), Path(out)
    with Database(db_path) as db:
        rules = db.rules
        tiers = book_tiers(rules, min_hand)
        missing = [tier_name(t) for t in tiers if not db.has(*t)]
        if missing:
            raise DatabaseError(
                f"{db_path} lacks {len(missing)} of the book's {len(tiers)} tiers ({', '.join(missing[:5])}"
                f"{', ...' if len(missing) > 5 else ''}): solve the whole game into it first (morris solve --whole-game)"
            )
        summary = {"rules": rules.describe(), "min_hand": min_hand, "tiers": len(tiers), "positions": 0, "slots": 0}
        sources = {}
        digest = hashlib.sha256()

        def fill(f: h5py.File) -> None:
            write_header(f, rules)
            group = f["subspaces"]
            for t in tiers:
                info = db.info(*t)
                values = db.values(*t)
                if checksum(values) != info.checksum:
                    raise DatabaseError(f"tier {info.name} of {db_path} does not match its stored checksum: not copied")
                ds = chunked_dataset(group, info.name, values.shape[0], values.dtype, data=values, chunk=CHUNK, level=LEVEL)
                write_stats(ds, {key: getattr(info, key) for key in STAT_KEYS}, info.checksum)
                sources[info.name] = info.checksum
                digest.update(np.ascontiguousarray(values, dtype="<u2").tobytes())
                summary["positions"] += info.positions
                summary["slots"] += info.slots
                if progress:
                    progress(info.name)
            f.attrs["book"] = 1
            f.attrs["book_min_hand"] = min_hand
            f.attrs["book_source"] = db_path.name
            f.attrs["book_source_checksums"] = json.dumps(sources, sort_keys=True)
            f.attrs["book_checksum"] = "sha256:" + digest.hexdigest()

        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, fill)
    with open_h5(out) as f:
        summary["checksum"] = str(f.attrs["book_checksum"])
    summary["bytes"] = out.stat().st_size
    return summary


def book_attrs(path: str | os.PathLike) -> dict:
    """The book attributes of the file at ``path``; ``DatabaseError`` if it is not a book."""
    path = Path(path)
    with open_h5(path) as f:
        if int(f.attrs.get("book", 0)) != 1:
            raise DatabaseError(f"{path} is not an opening book (no book attribute)")
        return {
            "min_hand": int(f.attrs["book_min_hand"]),
            "source": str(f.attrs["book_source"]),
            "source_checksums": json.loads(f.attrs["book_source_checksums"]),
            "checksum": str(f.attrs["book_checksum"]),
        }


def verify_book(book: str | os.PathLike, db_path: str | os.PathLike | None = None) -> dict:
    """Check the book at ``book``: its tiers are the whole game's with its ``min_hand`` men in
    hand or more, each tier's values match its checksum, the source checksum it records and the
    published one (``published``; none for a rule set without a published record), and the
    book's own checksum holds; with ``db_path``, every tier equals the database's, value for
    value, and without it every tier whose successors all lie in the book holds the values they
    give (``local_rule``). Raises ``MismatchError`` naming the first difference; returns a
    summary."""
    book = Path(book)
    attrs = book_attrs(book)
    with Database(book) as bk:
        rules = bk.rules
        want = book_tiers(rules, attrs["min_hand"])
        held = tier_order(parse_tier(s.name) for s in bk.tiers())
        if held != want:
            extra = sorted(set(map(tier_name, held)) - set(map(tier_name, want)))
            lack = sorted(set(map(tier_name, want)) - set(map(tier_name, held)))
            raise MismatchError(f"{book} holds the wrong tiers (missing: {lack[:5]}, not expected: {extra[:5]})")
        published = published_checksums(book_file_name(rules))
        source = Database(db_path, rules) if db_path is not None else None
        digest = hashlib.sha256()
        positions = 0
        try:
            for t in want:
                info = bk.info(*t)
                values = bk.values(*t)
                digest.update(np.ascontiguousarray(values, dtype="<u2").tobytes())
                got = checksum(values)
                if got != info.checksum or got != attrs["source_checksums"].get(info.name):
                    raise MismatchError(f"tier {info.name} of {book} does not match its checksum")
                if info.name in published and got != published[info.name]:
                    raise MismatchError(
                        f"tier {info.name} of {book} does not match the published checksum {published[info.name]} (its values give {got})"
                    )
                if source is not None:
                    other = source.values(*t)
                    if not np.array_equal(other, values):
                        slot = int(np.flatnonzero(other != values)[0]) if other.shape == values.shape else -1
                        raise MismatchError(f"tier {info.name} of {book} differs from {db_path} (slot {slot})")
                positions += info.positions
        finally:
            if source is not None:
                source.close()
        if "sha256:" + digest.hexdigest() != attrs["checksum"]:
            raise MismatchError(f"{book}: the book's checksum does not match its tiers")
    local = check_local_rule(book, rules, want) if db_path is None else None
    return {"book": str(book), "rules": rules.describe(), "tiers": len(want), "positions": positions,
            "checksum": attrs["checksum"], "against": None if db_path is None else str(db_path),
            "published": sum(1 for t in want if tier_name(t) in published), "local_rule": local}
