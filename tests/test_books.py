"""Opening books (``solver.books``): built from a solved database, checked against it, and
answering lookups with no database exactly as the database does."""

import random
import shutil

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

import solver.books as books
from solver.books.build import book_attrs, book_tiers, build_book, verify_book
from solver.cli import main
from solver.errors import DatabaseError, MismatchError, MissingSubspaceError
from solver.query import open_database, start_position
from solver.rules import make_rules
from solver.storage.database import Database

MIN_HAND = 3  # six men's morris with 4 men a side: the tiers with 3 to 8 men in hand


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


def test_every_shipped_book_matches_its_checksums():
    shipped = books.shipped_books()
    assert "standard.h5" in [p.name for p in shipped]
    for path in shipped:
        result = verify_book(path)
        assert result["tiers"] > 0 and result["positions"] > 0


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
