"""The games a server answers: each database opened once, keyed by its rule set, and the blocking
lookups the HTTP handlers hand to a thread.

A game's key is the stem of its rule set's database file (``standard``, ``six``,
``standard_flying-never``): the name a user already knows from ``data/``. Databases given with
--db come first; the shipped opening books answer the rule sets no --db covers. A
``MorrisDatabase`` is not thread-safe (its move buffer, its lazily built index), so every lookup
on one takes that game's lock; different games are looked up in parallel.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DatabaseError, MorrisError, NotationError
from ..play import new_seed, ultra_choice
from ..query import MorrisDatabase, open_database, start_position
from ..rules.notation import format_position
from ..storage.files import default_path, exists
from ..tiers import tier_name

MAX_POSITION_CHARS = 300  # longer than any position of any board with its hands, by far
MAINLINE_PLIES = 200  # the mainline's default bound
MAINLINE_MAX = 1000  # and the most a request may ask for
ANSWERS_KEPT = 10_000  # answers cached per game (a few KB each)


class ServeError(MorrisError):
    """Nothing to serve, or two databases for one rule set."""


def game_key(rules) -> str:
    """``standard``, ``six``, ``standard_flying-never``: the database file's stem."""
    return default_path(rules).stem


class AnswerCache:
    """The newest answers by the text asked, bounded (least recently used out): the positions
    people ask about, the opening's above all, come again and again, and an answer kept costs
    no lookup, no thread and no lock of the database. Shared by the event loop and the threads."""

    def __init__(self, size: int = ANSWERS_KEPT):
        self.size = size
        self._answers: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> dict | None:
        with self._lock:
            answer = self._answers.get(text)
            if answer is not None:
                self._answers.move_to_end(text)
            return answer

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()

    def put(self, text: str, answer: dict) -> None:
        with self._lock:
            self._answers[text] = answer
            self._answers.move_to_end(text)
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)


@dataclass
class Game:
    """One opened database (or book) and the lock that serialises its lookups."""

    key: str
    db: MorrisDatabase
    source: str  # the database's path, or "book"
    strength: str = "strong"  # the best move: "strong", or "ultra" (the best-ranked draw; needs ranks)
    seed: int = 0  # ultra: the mainline's draws among equal moves start from (seed, position)
    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: AnswerCache = field(default_factory=AnswerCache)  # analyse's, read only once made

    def describe(self) -> dict:
        """What ``GET /api`` says of the game, and what the page needs to draw its board."""
        rules, board = self.db.rules, self.db.board
        start = start_position(rules)
        with self.lock:
            tiers = self.db.tiers()
            has_start = self.db.has(0, 0, start.hand_white, start.hand_black)
        return {
            "key": self.key,
            "rules": rules.describe(),
            "men": rules.men,
            "board": board.name,
            "points": list(board.points),
            "lines": [list(line) for line in board.lines],
            # (None for a database of the moving phase: it cannot answer the start)
            "start": format_position(start, board) if has_start else None,
            "source": self.source,
            "tiers": [tier_name(t) for t in tiers],
            "strength": self.strength,
            **({"seed": self.seed} if self.strength == "ultra" else {}),
            "ranked": self.db.has_ranks,
        }

    def analyse(self, text: str) -> dict:
        """The position's value and every move's, best first (``morris query --json``'s object,
        with the position after each move; where the database holds ranks, ``ultra_best``: the
        moves among which ultra-strong play chooses, the first being the server's under
        --strength ultra)."""
        answer = self.answers.get(text)
        if answer is None:
            with self.lock:
                answer = self.db.analyse(text).as_dict(self.db.board)
            self.answers.put(text, answer)
            self.answers.put(answer["position"], answer)  # (the board string of point lists)
        return answer

    def mainline(self, text: str, max_plies: int) -> dict:
        """The line of best play from the position: the move the server's strength plays at every
        ply (``Analysis.choose``: the first best move; ultra: one of the best-ranked drawn at
        random, ``play.ultra_choice``, from the seed and the position: the same request, the same
        line), until the game ends, a drawn line comes back to a position it has passed, or
        ``max_plies``."""
        with self.lock:
            an = self.db.analyse(text)
        rng = random.Random(f"{self.seed} {an.board_string}")
        head = {"position": an.board_string, "value": an.probe.value, "plies": an.probe.plies}
        line, seen = [], {an.position}
        end = "game over"
        while an.moves:
            if len(line) >= max_plies:
                end = "bound"
                break
            best = ultra_choice(an, rng) if self.strength == "ultra" else an.choose(self.strength)
            with self.lock:  # taken per ply: a long line does not hold up other requests
                an = self.db.analyse(best.after)
            line.append({"move": best.notation, "value": best.value, "plies": best.plies, "after": an.board_string})
            if an.position in seen:
                end = "repetition"
                break
            seen.add(an.position)
        return {**head, "mainline": line, "end": end}


def check_text(text: str | None) -> str:
    """The position parameter, refused before any parsing when it is missing, too long or not
    printable ASCII (the notation uses nothing else)."""
    if text is None:
        raise NotationError("missing query parameter 'position' (a board string or point lists)")
    if len(text) > MAX_POSITION_CHARS:
        raise NotationError(f"position too long: {len(text)} characters (at most {MAX_POSITION_CHARS})")
    bad = next((c for c in text if not (" " <= c <= "~")), None)
    if bad is not None:
        raise NotationError(f"position holds the character {bad!r}; the notation is printable ASCII")
    return text


def open_games(db_paths: list[Path], books: bool = True, strength: str = "strong", seed: int | None = None) -> dict[str, Game]:
    """Every game to serve, by key: each --db opened once (with the shipped book answering tiers
    it lacks, unless ``books`` is off), then the shipped books of the other rule sets. With
    ``strength="ultra"`` every --db must hold draw ranks (``NoRanksError`` otherwise), and the
    books, which hold none, are not served; ``seed`` (None: a new one) its mainlines' draws."""
    seed = new_seed() if seed is None else seed
    from ..books import shipped_books

    games: dict[str, Game] = {}
    for path in db_paths:
        path = Path(path)
        if not exists(path):
            raise DatabaseError(f"no database at {path} (build one with: morris solve --whole-game --db {path})")
        db = open_database(path, book=books)
        if db.rules.reclose != "allowed":  # (the page and the mainline know no bans)
            db.close()
            db.rules.require_plain_history()
        key = game_key(db.rules)
        if key in games:
            db.close()
            raise ServeError(f"two databases of the rule set '{key}': {games[key].source} and {path}")
        if strength == "ultra":
            try:
                db.require_ranks()
            except MorrisError:
                db.close()
                raise
        db.warm_up()  # the compiled move generator, loaded before the first request
        games[key] = Game(key, db, str(path), strength, seed)
    if books and strength != "ultra":
        for path in shipped_books():
            db = open_database(path)
            key = game_key(db.rules)
            if key in games:
                db.close()
                continue
            db.warm_up()
            games[key] = Game(key, db, "book")
    if not games:
        raise ServeError(
            "nothing to serve: no --db given and no opening book ships with this installation "
            "(solve a game, e.g. morris solve --rules six --whole-game, then morris serve --db data/six.h5)"
        )
    return games
