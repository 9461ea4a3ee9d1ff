"""A game against a solved database's perfect play (``morris play`` shows it).

``Game`` holds the position, the plies played and how often each position came up; the analysis
of the current position comes from the database (``query.MorrisDatabase.analyse``). The database
plays the first of its best moves (``Analysis.best_moves``: the fastest win, a drawing move, or
the longest loss), or with ``strength="ultra"`` one of ``Analysis.ultra_best_moves`` (among
drawing moves those of the best draw rank, ``morris rank``; the database must hold ranks) drawn
at random, as Malom and Sanmill do, from a seed (``ultra_choice``: the same seed, the same
game); ``Game.find`` reads the player's move in the notation and refuses an illegal one with
``IllegalMoveError``.

A game ends when the side to move has lost (or the board is full under Twelve's rules), when a
position comes up a third time (the solver has no repetition rule, so a drawn game would go on for
ever; the third time ends it, with the position's value under perfect play), or when the player
stops (``Game.stopped``). Nothing is imported here beyond the standard library until a game
reads a move, so the ``morris`` command can import this module at start-up.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from .errors import IllegalMoveError, NotationError

COLOUR = {"w": "White", "b": "Black"}
REPEATS = 3  # the n-th occurrence of a position ends the game
STRENGTHS = ("strong", "ultra")  # the database's play: strongly optimal, or ultra-strong (ranked draws)


def new_seed() -> int:
    """A seed for ``ultra_choice`` when none is given: from the system's entropy."""
    return random.SystemRandom().randrange(1 << 32)


def ultra_choice(analysis, rng: random.Random):
    """Ultra-strong play's move: one of ``analysis.ultra_best_moves`` (the moves of equal best
    value, rank and tempo) drawn uniformly by ``rng``. NoRanksError where the database holds no
    ranks; IndexError where the game is over."""
    best = analysis.ultra_best_moves
    analysis.choose("ultra")  # (NoRanksError without ranks)
    return best[rng.randrange(len(best))]


def plies_text(n: int) -> str:
    return f"{n} ply" if n == 1 else f"{n} plies"


def value_text(value: str, plies: int | None) -> str:
    return "draw" if value == "draw" else f"{value} in {plies_text(plies)}"


@dataclass(frozen=True)
class Ply:
    number: int
    side: str  # who moved: "w" or "b"
    by: str  # "you" or "database"
    move: object  # the MoveValue played (its value is for the side that moved)


@dataclass(frozen=True)
class Ending:
    result: str | None  # "white", "black", "draw", or None for a game stopped undecided
    reason: str  # "lost", "full board", "repetition" or "stopped"
    text: str


class Game:
    """The position, the plies played and how often each position came up; the analysis of the
    current position comes from the database. ``you``: the side the player moves ("w" or "b").
    A start with men in hand needs its tier in the database (``MissingSubspaceError`` otherwise,
    naming the command that builds it). ``seed``: ultra-strong play's draws among equal moves
    (``ultra_choice``; None: a new one, kept in ``seed``)."""

    def __init__(self, db, start, you: str, strength: str = "strong", seed: int | None = None):
        if strength not in STRENGTHS:
            raise ValueError(f"strength must be one of {', '.join(STRENGTHS)}, not {strength!r}")
        if strength == "ultra":
            db.require_ranks()  # NoRanksError: one line naming the database and morris rank
        if start.hand_white or start.hand_black:
            db.info(start.mover.bit_count(), start.opponent.bit_count(), start.hand_mover, start.hand_opponent)
        self.db, self.board, self.you, self.strength = db, db.board, you, strength
        self.seed = new_seed() if seed is None else seed
        self.rng = random.Random(self.seed)
        self.plies = 0
        self.seen = Counter()
        self._enter(start)

    def _enter(self, position) -> None:
        self.position = position
        self.seen[position] += 1
        self.analysis = self.db.analyse(position)

    @property
    def to_move(self) -> str:
        return self.position.side

    @property
    def board_string(self) -> str:
        return self.analysis.board_string

    def legal(self) -> list[str]:
        """The legal moves in the order ``morris moves`` lists them (not by value: that would be a hint)."""
        moves = sorted(self.analysis.moves, key=lambda m: (m.move.frm, m.move.to, m.move.removals))
        return [m.notation for m in moves]

    def find(self, text: str):
        """The legal move ``text`` names; IllegalMoveError otherwise."""
        from .rules.notation import parse_move

        written = "".join(text.split()).lower()
        try:
            move = parse_move(written, self.board)
        except NotationError as e:
            raise IllegalMoveError(str(e)) from None
        for mv in self.analysis.moves:
            if mv.move == move:
                return mv
        closing = [m.notation for m in self.analysis.moves if (m.move.frm, m.move.to) == (move.frm, move.to) and m.move.removals]
        if closing and not move.removals:
            raise IllegalMoveError(f"illegal move {written!r}: it closes a mill, so name the man it removes ({' '.join(sorted(closing))})")
        raise IllegalMoveError(f"illegal move {written!r}")

    def play(self, mv, by: str) -> Ply:
        side = self.to_move
        self.plies += 1
        self._enter(mv.after)
        return Ply(self.plies, side, by, mv)

    def database_move(self) -> Ply:
        if self.strength == "ultra":
            return self.play(ultra_choice(self.analysis, self.rng), "database")
        return self.play(self.analysis.choose(self.strength), "database")

    def ending(self) -> Ending | None:
        """How the game has ended at the current position, or None while it goes on."""
        probe, side = self.analysis.probe, self.to_move
        if not self.analysis.moves:  # game over: the side to move has lost, or a drawn end
            if probe.value == "draw":
                return Ending("draw", "full board", f"draw after {plies_text(self.plies)}: the board is full")
            winner, loser = COLOUR[other_side(side)], COLOUR[side]
            return Ending(
                winner.lower(), "lost", f"{winner} wins in {plies_text(self.plies)}: {loser} {self._why_lost()}"
            )
        if self.seen[self.position] >= REPEATS:
            if probe.value == "draw":
                return Ending(
                    "draw", "repetition",
                    f"draw after {plies_text(self.plies)}: the position came up {REPEATS} times, and it is a "
                    "draw under perfect play",
                )
            return Ending(
                None, "repetition", f"stopped after {plies_text(self.plies)}: the position came up {REPEATS} times; {self.verdict()}"
            )
        return None

    def stopped(self) -> Ending:
        return Ending(None, "stopped", f"stopped after {plies_text(self.plies)}; {self.verdict()}")

    def verdict(self) -> str:
        p = self.analysis.probe
        if p.value == "draw":
            return "the position is a draw under perfect play"
        return f"under perfect play {COLOUR[self.to_move]} to move has a {value_text(p.value, p.plies)}"

    def _why_lost(self) -> str:
        men = self.position.mover.bit_count()
        if men < 3:
            return f"is down to {men} men"
        if self.db.rules.mill_wins == "on" and any(
            self.position.opponent & int(m) == int(m) for m in self.board.mill_masks
        ):
            return f"faces a mill of {COLOUR[other_side(self.to_move)]}"
        return "has no legal move"


def other_side(side: str) -> str:
    return "b" if side == "w" else "w"
