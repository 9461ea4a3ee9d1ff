"""Opening books (``solver.books``): built from a solved database, checked against it, held to
the published record and the local rule, and answering lookups with no database exactly as the
database does."""

import hashlib
import json
import random
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

import solver.books as books
import solver.books.opened as opened
from solver.books.build import book_attrs, book_tiers, build_book, tier_order, verify_book
from solver.books.published import PUBLISHED, record_from
from solver.cli import main
from solver.errors import DatabaseError, MismatchError, MissingSubspaceError
from solver.query import open_database, start_position
from solver.rules import make_rules
from solver.storage.database import Database
from solver.storage.files import checksum
from solver.tiers import parse_tier, tier_name

MIN_HAND = 3  # six men's morris with 4 men a side: the tiers with 3 to 8 men in hand
CHECKSUMS = Path(__file__).resolve().parent / "data" / "checksums"  # the published whole-game checksums
# The books whose local-rule check costs seconds (the standard game's: 6.5 million positions);
# the published record holds their values all the same in the default run.
SLOW_BOOKS = {"standard.h5", "lasker.h5"}


@pytest.fixture(scope="module")
def six(solved_whole):
    return solved_whole("six", ["men=4"]).path


@pytest.fixture(scope="module")
def book(six, tmp_path_factory):
    folder = tmp_path_factory.mktemp("books")
    rules = make_rules("six", ["men=4"])
    out = folder / books.book_file_name(rules)
    build_book(six, out, MIN_HAND)
    return out


def _hand(pos):
    return pos.hand_white + pos.hand_black


def _walk(db, rng, min_hand):
    """The positions of a random game from the start while the men in hand add up to
    ``min_hand`` or more."""
    pos = start_position(db.rules)
    out = []
    while _hand(pos) >= min_hand:
        out.append(pos)
        moves = db.analyse(pos).moves
        if not moves:
            break
        pos = rng.choice(moves).after
    return out


def test_a_book_holds_exactly_the_tiers_with_enough_men_in_hand(six, book):
    rules = make_rules("six", ["men=4"])
    with Database(book) as bk, Database(six) as db:
        held = sorted(s.tier for s in bk.tiers())
        assert held == sorted(book_tiers(rules, MIN_HAND))
        assert held and all(t[2] + t[3] >= MIN_HAND for t in held)
        # fewer than all of the database's placing tiers, so the threshold did something
        assert len(held) < sum(1 for s in db.tiers() if s.placing)
        for s in bk.tiers():
            assert s.checksum == db.info(*s.tier).checksum
    attrs = book_attrs(book)
    assert attrs["min_hand"] == MIN_HAND and attrs["source"] == six.name
    assert verify_book(book, six)["tiers"] == len(held)


def test_the_book_answers_every_position_of_random_games_as_the_database_does(six, book, monkeypatch):
    monkeypatch.setattr(books, "BOOK_DIR", book.parent)
    rules = make_rules("six", ["men=4"])
    rng = random.Random(7)
    compared = 0
    with open_database(six, book=False) as db, open_database(book.parent / "none.h5", rules) as bk:
        assert bk.path == book  # no database there: the book stands in
        for _ in range(40):
            for pos in _walk(db, rng, MIN_HAND):
                if _hand(pos) > MIN_HAND:  # its moves' tiers are in the book too
                    want, got = db.analyse(pos), bk.analyse(pos)
                    assert got.probe == want.probe
                    assert [(m.notation, m.value, m.plies) for m in got.moves] == [
                        (m.notation, m.value, m.plies) for m in want.moves
                    ]
                else:
                    assert bk.probe(pos) == db.probe(pos)
                compared += 1
    assert compared > 100


def test_a_position_past_the_book_names_its_tier_and_the_command(book, monkeypatch):
    monkeypatch.setattr(books, "BOOK_DIR", book.parent)
    rules = make_rules("six", ["men=4"])
    with open_database(book.parent / "none.h5", rules) as bk:
        with pytest.raises(MissingSubspaceError, match=r"tier 4-4 is not in the opening book .*morris solve --rules six -o men=4 .*--whole-game"):
            bk.probe("W:a1,b2,c1,a5 B:a3,b4,c5,d2 w")


def test_a_database_lacking_tiers_borrows_them_from_the_book(six, book, monkeypatch, solved_db):
    """A database of the moving phase alone answers the placing tiers the book holds."""
    monkeypatch.setattr(books, "BOOK_DIR", book.parent)
    rules = make_rules("six", ["men=4"])
    moving = solved_db("six", 4, ["men=4"])
    start = start_position(rules)
    with open_database(six, book=False) as full, open_database(moving) as db:
        assert db.probe(start) == full.probe(start)
        assert db.probe("W:a1,b2,c1,a5 B:a3,b4,c5,d2 w") == full.probe("W:a1,b2,c1,a5 B:a3,b4,c5,d2 w")
    with open_database(moving, book=False) as alone:
        with pytest.raises(MissingSubspaceError):
            alone.probe(start)


def test_a_book_of_other_rules_is_refused(book):
    other = make_rules("six", ["men=4", "blocked=passes"])
    with pytest.raises(MismatchError, match="holds the rule set"):
        with Database(book, other):
            pass


def test_a_damaged_tier_fails_the_check_with_its_name(six, book, tmp_path):
    bad = tmp_path / book.name
    shutil.copy(book, bad)
    with h5py.File(bad, "r+") as f:
        name = sorted(f["subspaces"])[-1]
        ds = f["subspaces"][name]
        values = ds[...]
        slot = int(np.flatnonzero(values != 0xFFFF)[0])
        values[slot] = 0 if values[slot] else 2
        ds[...] = values  # the dataset rewritten in place: its attributes (checksum) kept
    with pytest.raises(MismatchError, match=f"tier {name} "):
        verify_book(bad)
    with pytest.raises(MismatchError, match=f"tier {name} "):
        verify_book(bad, six)


def test_building_from_a_database_without_the_tiers_says_so(solved_db, tmp_path):
    moving = solved_db("six", 4, ["men=4"])
    with pytest.raises(DatabaseError, match="lacks .* solve the whole game"):
        build_book(moving, tmp_path / "x.h5", MIN_HAND)
    assert not (tmp_path / "x.h5").exists()


def test_the_cli_builds_verifies_and_answers_from_a_book(six, tmp_path, monkeypatch):
    folder = tmp_path / "books"
    runner = CliRunner()
    res = runner.invoke(main, ["book", "build", "--db", str(six), "--min-hand", "5", "--out", str(folder / "six_men-4.h5"), "--json"])
    assert res.exit_code == 0, res.output
    assert '"verified": true' in res.stdout
    res = runner.invoke(main, ["book", "verify", str(folder / "six_men-4.h5"), "--db", str(six)])
    assert res.exit_code == 0 and res.stdout.startswith("OK:"), res.output
    monkeypatch.setattr(books, "BOOK_DIR", folder)
    start = "................ w 4 4"
    with_db = runner.invoke(main, ["query", "--db", str(six), "--json", start])
    no_db = runner.invoke(main, ["query", "--rules", "six", "-o", "men=4", "--db", str(tmp_path / "none.h5"), "--json", start])
    assert with_db.exit_code == 0 and no_db.exit_code == 0, no_db.output
    assert no_db.stdout == with_db.stdout
    past = runner.invoke(main, ["query", "--rules", "six", "-o", "men=4", "--db", str(tmp_path / "none.h5"), "W:a1,b2,c1,a5 B:a3,b4,c5,d2 w"])
    assert past.exit_code != 0 and "opening book" in past.stderr and "Traceback" not in past.output
    res = runner.invoke(main, ["book", "verify", str(six)])
    assert res.exit_code == 1 and "not an opening book" in res.stderr


def test_every_shipped_books_tiers_are_the_published_whole_game_checksums():
    """Each tier's values, read from the book, against ``tests/data/checksums/<book>-whole.json``
    (the verified solves), every book having one. The
    record shipped in the package is exactly those checksums (``tools/book_record.py``)."""
    shipped = books.shipped_books()
    assert "standard.h5" in [p.name for p in shipped]
    for path in shipped:
        whole = CHECKSUMS / f"{path.stem}-whole.json"
        assert whole.is_file(), f"{path.name} has no published whole game"
        published = json.loads(whole.read_text())
        with Database(path) as db:
            for s in db.tiers():
                assert checksum(db.values(*s.tier)) == published[s.name], f"{path.name} {s.name}"
    assert json.loads(PUBLISHED.read_text()) == record_from(CHECKSUMS, shipped)


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=[pytest.mark.slow] if p.name in SLOW_BOOKS else [], id=p.stem) for p in books.shipped_books()]
)
def test_a_shipped_book_passes_morris_book_verify(path):
    """Its tiers, checksums, the published record, and the local rule in every tier whose
    successors lie in the book (all but those with the fewest men in hand; every tier of three
    and six, shipped whole)."""
    result = verify_book(path)
    assert result["tiers"] > 0 and result["positions"] > 0
    assert result["published"] == result["tiers"]
    whole = path.name in ("six.h5", "three.h5")
    assert 0 < result["local_rule"]["tiers"] <= result["tiers"] and (result["local_rule"]["tiers"] == result["tiers"]) == whole


def _change(path: Path, name: str, refresh: bool) -> None:
    """Change one value of tier ``name`` of the book at ``path`` in place; with ``refresh``, every
    checksum the book stores is made to match again (the tier's, its source's, the book's)."""
    with h5py.File(path, "r+") as f:
        ds = f["subspaces"][name]
        values = ds[...]
        slot = int(np.flatnonzero(values != 0xFFFF)[0])
        values[slot] = 0 if values[slot] else 2
        ds[...] = values
        if refresh:
            ds.attrs["checksum"] = checksum(values)
            source = json.loads(f.attrs["book_source_checksums"])
            source[name] = checksum(values)
            f.attrs["book_source_checksums"] = json.dumps(source, sort_keys=True)
            digest = hashlib.sha256()
            for t in tier_order(parse_tier(n) for n in f["subspaces"]):
                digest.update(np.ascontiguousarray(f["subspaces"][tier_name(t)][...], dtype="<u2").tobytes())
            f.attrs["book_checksum"] = "sha256:" + digest.hexdigest()


@pytest.fixture
def changed_twelve(tmp_path, monkeypatch):
    """A copy of the twelve men's morris book in the books folder the lookups read."""
    folder = tmp_path / "books"
    folder.mkdir()
    path = folder / "twelve.h5"
    shutil.copy(books.find_book(make_rules("twelve")), path)
    monkeypatch.setattr(books, "BOOK_DIR", folder)
    return path


START_12 = "........................ w 12 12"


def test_a_changed_book_with_its_checksums_refreshed_fails_verify_and_lookups(changed_twelve, tmp_path):
    """A value of a tier that the start's lookup does not read, changed, and the book's own
    checksums made to match: ``morris book verify`` (the published record) and opening the book
    for a lookup (its stored checksums against the record) both refuse it, in one line."""
    _change(changed_twelve, "3-3-9-9", refresh=True)
    runner = CliRunner()
    res = runner.invoke(main, ["book", "verify", str(changed_twelve)])
    assert res.exit_code == 1 and "tier 3-3-9-9 " in res.stderr and "published" in res.stderr, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.output
    res = runner.invoke(main, ["query", "--rules", "twelve", "--db", str(tmp_path / "none.h5"), START_12])
    assert res.exit_code == 1 and "tier 3-3-9-9 of the opening book" in res.stderr and str(changed_twelve) in res.stderr, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.output
    with pytest.raises(MismatchError, match="tier 3-3-9-9 of the opening book .* not the published"):
        open_database(tmp_path / "none.h5", make_rules("twelve"))


def test_a_changed_value_under_its_old_checksums_fails_the_lookup_that_reads_it(changed_twelve, tmp_path):
    """The checksums stored still the published ones: opening passes, the first read of the
    tier checks all its values and refuses them, on every read after."""
    _change(changed_twelve, "0-0-12-12", refresh=False)
    with open_database(tmp_path / "none.h5", make_rules("twelve")) as db:
        for _ in range(2):
            with pytest.raises(MismatchError, match="tier 0-0-12-12 of the opening book .* published checksum"):
                db.probe(START_12)
    res = CliRunner().invoke(main, ["query", "--rules", "twelve", "--db", str(tmp_path / "none.h5"), START_12])
    assert res.exit_code == 1 and "tier 0-0-12-12" in res.stderr and "Traceback" not in res.output, res.output


def test_a_books_tiers_are_read_for_the_check_once_a_process(monkeypatch, tmp_path):
    """Opened again, a book whose tiers matched is not checked again (``morris serve``, the API)."""
    seen = []
    monkeypatch.setattr(opened, "checksum", lambda v: seen.append(v.size) or checksum(v))
    monkeypatch.setattr(opened, "_verdicts", {})
    rules = make_rules("twelve")
    for _ in range(3):
        with open_database(tmp_path / "none.h5", rules) as db:
            assert db.probe(START_12).value == "win"
    assert len(seen) == 1  # the start's tier, once


def test_a_book_without_a_published_record_is_held_to_the_local_rule(book, tmp_path):
    """Six men's morris with 4 men has no published record: a value changed in a tier whose
    moves stay in the book, its checksums refreshed, is caught by the local rule."""
    bad = tmp_path / book.name
    shutil.copy(book, bad)
    inner = tier_name(book_tiers(make_rules("six", ["men=4"]), MIN_HAND + 1)[-1])
    _change(bad, inner, refresh=True)
    with pytest.raises(MismatchError, match=f"tier {inner} of .* breaks the local rule"):
        verify_book(bad)


def test_the_shipped_book_answers_the_start_of_nine_mens_morris_with_no_database(tmp_path):
    """Gasser (1996): the start is a draw, and so is each of the 24 first placements; each
    placement's answer reads the tier below the start's, also in the book."""
    rules = make_rules("standard")
    with open_database(tmp_path / "none.h5", rules) as db:
        assert db.path == books.find_book(rules)
        an = db.analyse(start_position(rules))
        assert (an.probe.value, an.probe.plies) == ("draw", None)
        assert len(an.moves) == 24 and {m.value for m in an.moves} == {"draw"}
        after = an.moves[0].after  # one man placed: its 24 - 1 answers come from the book too
        assert len(db.analyse(after).moves) == 23


def test_the_shipped_book_answers_morabaraba_as_gevay_and_danner_found(tmp_path):
    """Gévay and Danner (arXiv:1408.0032): Morabaraba's start is a win for the first player;
    a summary of their paper gives its depth as 49. The book's answer, with no database, must
    agree, and the first placements' values must give the start's (the best of them)."""
    rules = make_rules("twelve")
    with open_database(tmp_path / "none.h5", rules) as db:
        assert db.path == books.find_book(rules)
        an = db.analyse(start_position(rules))
        assert (an.probe.value, an.probe.plies) == ("win", 49)
        assert len(an.moves) == 24
        wins = [m.plies for m in an.moves if m.value == "win"]
        assert wins and min(wins) == 49


def test_the_shipped_book_answers_lasker_morris_as_gevay_and_danner_found(tmp_path):
    """Malom's Readme_lask.txt: "The game-theoretic value of standard Lasker is draw". The book's
    answer, with no database, must agree; no first placement may win (the start's value is the
    best of them) and at least one must draw."""
    rules = make_rules("lasker")
    with open_database(tmp_path / "none.h5", rules) as db:
        assert db.path == books.find_book(rules)
        an = db.analyse(start_position(rules))
        assert (an.probe.value, an.probe.plies) == ("draw", None)
        assert len(an.moves) == 24  # an empty board: placements only, Lasker's moves need a man
        values = {m.value for m in an.moves}
        assert "win" not in values and "draw" in values
