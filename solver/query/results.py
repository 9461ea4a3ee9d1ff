"""What a lookup answers: ``Probe`` (a position's value), ``MoveValue`` (a move's) and
``Analysis`` (a position, its value and its moves, best first), and how a stored value reads as
one for the side to move or for a move's maker."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NoRanksError
from ..rules.notation import Move, Position, format_position
from ..values import DRAW, LOSS, WIN


def order(value: str, plies: int | None) -> tuple[int, int]:
    """Sort key, best first for the side choosing: wins by fewest plies, draws, losses by most."""
    if value == WIN:
        return (0, plies)
    if value == DRAW:
        return (1, 0)
    return (2, -plies)


@dataclass(frozen=True)
class Probe:
    """The value of a position for the side to move.

    ``value``: "win", "draw" or "loss"; ``plies``: plies to the end of the game under perfect
    play, ``None`` for a draw. ``three_men_rule``: the value under the ten-move rule (see
    ``three_men_rule``) where both sides have exactly 3 men, else ``None``.
    """

    value: str
    plies: int | None
    three_men_rule: str | None = None
    rank: int | None = None  # a draw's rank where the database holds ranks (``morris rank``)
    depth: int | None = None  # Malom's key2, relative to the position's own tier
    settles_in: tuple[str, ...] | None = None  # the tiers worth ``rank``, from the side to move's view

    @property
    def sort_key(self) -> tuple[int, int]:
        return order(self.value, self.plies)


@dataclass(frozen=True)
class MoveValue:
    """A legal move (one per move and removal choice) and the value it leads to for the player
    making it, plies counted from the probed position. ``notation``: the move as text
    (``a1-a4xb6``); ``after``: the position after the move."""

    move: Move
    notation: str
    value: str
    plies: int | None
    after: Position
    three_men_rule: str | None = None
    rank: int | None = None  # for a drawing move where the database holds ranks: the mover's rank,
    depth: int | None = None  # its depth relative to the mover's tier (Malom's key2),
    settles_in: tuple[str, ...] | None = None  # the tiers worth the rank, from the mover's view,
    tempo: int | None = None  # and the depth signed so that smaller is better (``ultra.ranks``)
    after_text: str | None = None  # under the history rule: ``after`` with its records' suffix

    @property
    def sort_key(self) -> tuple[int, int]:
        return order(self.value, self.plies)

    @property
    def ultra_key(self) -> tuple[int, int, int]:
        """Sort key of ultra-strong play, best first: wins by fewest plies, then draws by rank
        (higher first) and tempo (smaller first), then losses by most plies."""
        if self.value == DRAW:
            return (1, -(self.rank or 0), self.tempo or 0)
        return (*self.sort_key, 0)

    def __str__(self) -> str:
        return f"{self.notation}: {self.value}" + ("" if self.plies is None else f" in {self.plies}")


@dataclass(frozen=True)
class Analysis:
    """A position (and its board string), its value and its moves, best first."""

    position: Position
    board_string: str
    probe: Probe
    moves: tuple[MoveValue, ...]
    ranked: bool = False  # the database holds draw ranks: drawing moves carry theirs
    notes: tuple[str, ...] = ()  # under the history rule: records dropped as not live, moves a ban forbids

    def as_dict(self, board=None) -> dict:
        """The JSON object of ``morris query --json``; given the ``board``, each move also
        carries ``after``, the board string of the position it leads to (``morris serve``);
        under the history rule every move carries it, with its records' suffix, and ``notes``
        says which records given were not live and which moves the ban forbids.
        Where the database holds ranks, a draw (the position, and each drawing move) carries
        ``rank``, ``depth`` and ``settles_in``, and ``ultra_best`` lists the moves ultra-strong
        play chooses among."""
        out = {"position": self.board_string, "value": self.probe.value, "plies": self.probe.plies}
        if self.probe.three_men_rule is not None:
            out["three_men_rule"] = self.probe.three_men_rule
        if self.probe.rank is not None:
            out.update(rank=self.probe.rank, depth=self.probe.depth, settles_in=list(self.probe.settles_in))
        moves = []
        for m in self.moves:
            d = {"move": m.notation, "value": m.value, "plies": m.plies}
            if m.three_men_rule is not None:
                d["three_men_rule"] = m.three_men_rule
            if m.rank is not None:
                d.update(rank=m.rank, depth=m.depth, settles_in=list(m.settles_in))
            if m.after_text is not None:
                d["after"] = m.after_text
            elif board is not None:
                d["after"] = format_position(m.after, board)
            moves.append(d)
        out["moves"] = moves
        if self.notes:
            out["notes"] = list(self.notes)
        if self.ranked:
            out["ultra_best"] = [m.notation for m in self.ultra_best_moves]
        return out

    @property
    def best_moves(self) -> tuple[MoveValue, ...]:
        if not self.moves:
            return ()
        best = self.moves[0].sort_key
        return tuple(m for m in self.moves if m.sort_key == best)

    @property
    def ultra_best_moves(self) -> tuple[MoveValue, ...]:
        """The moves ultra-strong play chooses among, in move order: the fastest wins, else the
        drawing moves of the best (rank, tempo), else the longest losses. Without ranks (all
        draws alike) the same as ``best_moves``."""
        if not self.moves:
            return ()
        best = min(m.ultra_key for m in self.moves)
        return tuple(m for m in self.moves if m.ultra_key == best)

    def choose(self, strength: str = "strong") -> MoveValue:
        """The move ``strength`` plays: "strong", the first of ``best_moves`` (the first drawing
        move in move order); "ultra", the first of ``ultra_best_moves`` (NoRanksError where the
        database holds no ranks). IndexError where the game is over."""
        if strength == "ultra":
            if not self.ranked:
                raise NoRanksError("this database holds no draw ranks, which ultra-strong play needs (compute them with: morris rank --db FILE)")
            return self.ultra_best_moves[0]
        if strength != "strong":
            raise ValueError(f"strength must be 'strong' or 'ultra', not {strength!r}")
        return self.best_moves[0]


def value_of(kind: int, plies: int) -> tuple[str, int | None]:
    """(value, plies) of ``decode_many``'s kind (1 win, 0 draw, -1 loss) and plies."""
    return {1: (WIN, plies), 0: (DRAW, None), -1: (LOSS, plies)}[kind]


def move_value(kind: int, plies: int) -> tuple[str, int | None]:
    """A move's value for its maker from its successor's (kind, plies), which are the
    opponent's: the opponent's loss is the maker's win, one ply later."""
    value, _ = value_of(-kind, plies)
    return value, None if kind == 0 else plies + 1
