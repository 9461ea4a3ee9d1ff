"""``morris book``: the opening books shipped in the package (build, verify, list)."""

from __future__ import annotations

from pathlib import Path

import click

from .common import database_and_rules, db_option, echo_json, json_option, rules_options


@click.group()
def book():
    """Opening books: the tiers of a solved game with many men in hand, inside the package, so
    that `morris query`, `morris play` and `morris serve` answer the first moves with no
    database."""


@book.command("build")
@db_option
@rules_options
@click.option(
    "--min-hand", type=click.IntRange(0, None), default=None,
    help="keep the tiers with at least this many men in hand in all [default: 9 where a side has "
    "9 men or more, else 0: the whole game]",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="book file [default: the package's books folder, <rule set>.h5]")
@json_option("one JSON object")
def build(db_path, rules_name, options, min_hand, out, as_json):
    """Build the opening book of a database solved with --whole-game, then check it against the
    database value for value."""
    from ..books import BOOK_DIR, book_file_name
    from ..books.build import build_book, verify_book
    from ..storage.database import Database

    path, rules = database_and_rules(rules_name, options, db_path)
    with Database(path, rules) as db:
        rules = db.rules
    if min_hand is None:
        min_hand = 9 if rules.men >= 9 else 0
    out = out or BOOK_DIR / book_file_name(rules)
    summary = build_book(path, out, min_hand)
    verify_book(out, path)  # raises on any difference
    summary.update(book=str(out), verified=True)
    if as_json:
        echo_json(summary)
        return
    click.echo(
        f"{out}: {summary['tiers']} tiers ({min_hand} or more men in hand), {summary['positions']:,} positions, "
        f"{summary['bytes']:,} bytes, {summary['checksum']}; equal to {path} value for value"
    )


@book.command("verify")
@click.argument("book_path", metavar="BOOK", type=click.Path(dir_okay=False, path_type=Path))
@db_option
@json_option("one JSON object")
def verify(book_path, db_path, as_json):
    """Check BOOK: its tiers, their checksums, the published ones and its own; without --db, the
    local rule (each tier whose moves stay in the book holds the values they give), with --db,
    every value against the database it was built from. Exit status 1 on any difference."""
    from ..books.build import verify_book

    result = verify_book(book_path, db_path)
    if as_json:
        echo_json(result)
        return
    published = (
        f"{result['published']} tiers equal to the published record" if result["published"]
        else "no published record of this rule set"
    )
    local = result["local_rule"]
    against = (
        f"equal to {db_path} value for value" if db_path
        else f"the local rule holds in {local['tiers']} tiers ({local['positions']:,} positions)"
    )
    click.echo(f"OK: {book_path}: {result['tiers']} tiers, {result['positions']:,} positions, {result['checksum']}; {published}; {against}")


@book.command("list")
@json_option("one JSON object")
def list_books(as_json):
    """The books the package ships: rule set, tiers, positions, bytes."""
    from ..books import shipped_books
    from ..books.build import book_attrs
    from ..storage.database import Database

    rows = []
    for path in shipped_books():
        attrs = book_attrs(path)
        with Database(path) as db:
            tiers = db.tiers()
            rows.append({
                "rules": db.rules.describe(), "file": str(path), "min_hand": attrs["min_hand"], "tiers": len(tiers),
                "positions": sum(t.positions for t in tiers), "bytes": path.stat().st_size, "checksum": attrs["checksum"],
            })
    if as_json:
        echo_json({"books": rows})
        return
    if not rows:
        click.echo("no books shipped")
    for r in rows:
        click.echo(
            f"{r['rules']}: {r['tiers']} tiers ({r['min_hand']} or more men in hand), {r['positions']:,} positions, "
            f"{r['bytes']:,} bytes  ({Path(r['file']).name})"
        )
