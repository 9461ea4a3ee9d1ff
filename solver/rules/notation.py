"""Positions and moves in the text notation of docs/rules.md.

Positions are read in either form, the board string (``WB..B..B.W...........W.. w 0 0``) or point
lists (``W:a1,d1,g1 B:a4,b4,c4 w``), and always printed as the board string. Every problem with the
input raises ``NotationError`` with a one-line message naming it.

Under the history rule (option ``reclose``, docs/history-rule.md) a position may carry what the
rule forbids, as a suffix: ``ban B`` for the side to move, ``pending B`` for its opponent (the
ban its last move made, live from its next turn), ``B`` a ``Ban``: ``b2-a1`` (same-man: the man on
b2 may not go back to a1) or ``d1(a1-d1-g1)`` (running-mill: no move may close the mill a1-d1-g1
on d1; several mills through the point are listed with commas). ``parse_history_position`` and
``format_history_position`` read and write them; ``parse_position`` refuses them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .boards import Board
from ..errors import NotationError
from .rulesets import RuleSet


@dataclass(frozen=True)
class Position:
    """Men of White and Black as bitmasks, the side to move ('w' or 'b') and the men in hand."""

    white: int
    black: int
    side: str = "w"
    hand_white: int = 0
    hand_black: int = 0

    @property
    def mover(self) -> int:
        return self.white if self.side == "w" else self.black

    @property
    def opponent(self) -> int:
        return self.black if self.side == "w" else self.white

    @property
    def hand_mover(self) -> int:
        return self.hand_white if self.side == "w" else self.hand_black

    @property
    def hand_opponent(self) -> int:
        return self.hand_black if self.side == "w" else self.hand_white

    @classmethod
    def from_mover(cls, side: str, mover: int, opponent: int, hand_mover: int = 0, hand_opponent: int = 0) -> Position:
        if side == "w":
            return cls(mover, opponent, "w", hand_mover, hand_opponent)
        return cls(opponent, mover, "b", hand_opponent, hand_mover)


@dataclass(frozen=True)
class Move:
    """``frm`` = -1 for a placement; ``to`` = -1 for a pass; removals -1 for none, the others in
    increasing order (one per mill closed under ``double-mill=per-mill``: three at most)."""

    frm: int
    to: int
    remove1: int = -1
    remove2: int = -1
    remove3: int = -1

    @property
    def is_pass(self) -> bool:
        return self.to < 0

    @property
    def removals(self) -> tuple[int, ...]:
        return tuple(r for r in (self.remove1, self.remove2, self.remove3) if r >= 0)


@dataclass(frozen=True)
class Ban:
    """What the history rule forbids one side (docs/history-rule.md), on one move.

    ``reclose=same-man``: the move ``frm``-``to`` (the man on ``frm`` left a mill from ``to``);
    ``mills`` is empty. ``reclose=running-mill``: ``frm`` is -1 and no move may close any of
    ``mills`` (indices into ``board.mills``, ascending, each through ``to``) by arriving on ``to``."""

    frm: int
    to: int
    mills: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return "running-mill" if self.frm < 0 else "same-man"


_POINT = re.compile(r"^[a-z][0-9]+$")
_BAN_WORDS = ("ban", "pending")  # the history rule's suffix (see the end of this module)


def _point_index(board: Board, name: str, what: str = "point") -> int:
    if name not in board.index:
        if not _POINT.match(name):
            raise NotationError(f"{name!r} is not a point name (like a1)")
        raise NotationError(f"unknown {what} {name!r} on the {board.name} board")
    return board.index[name]


def _points(board: Board, mask: int) -> list[str]:
    return [p for i, p in enumerate(board.points) if mask >> i & 1]


def format_position(pos: Position, board: Board, hands: bool | None = None) -> str:
    """The board string form; the men in hand are written when either is non-zero."""
    cells = "".join("W" if pos.white >> i & 1 else "B" if pos.black >> i & 1 else "." for i in range(board.n))
    text = f"{cells} {pos.side}"
    if hands or (hands is None and (pos.hand_white or pos.hand_black)):
        text += f" {pos.hand_white} {pos.hand_black}"
    return text


def format_point_lists(pos: Position, board: Board) -> str:
    text = f"W:{','.join(_points(board, pos.white))} B:{','.join(_points(board, pos.black))} {pos.side}"
    if pos.hand_white or pos.hand_black:
        text += f" {pos.hand_white} {pos.hand_black}"
    return text


def _parse_side_and_hands(tokens: list[str], text: str) -> tuple[str, int, int]:
    if not tokens:
        raise NotationError(f"no side to move in {text!r} (expected 'w' or 'b')")
    side = tokens[0]
    if side not in ("w", "b"):
        raise NotationError(f"bad side to move {side!r} (expected 'w' or 'b')")
    rest = tokens[1:]
    if not rest:
        return side, 0, 0
    if len(rest) != 2:
        raise NotationError(f"men in hand must be two numbers (White's, then Black's), got {' '.join(rest)!r}")
    try:
        hw, hb = (int(x) for x in rest)
    except ValueError:
        raise NotationError(f"men in hand must be two whole numbers, got {' '.join(rest)!r}") from None
    if hw < 0 or hb < 0:
        raise NotationError("men in hand cannot be negative")
    return side, hw, hb


def parse_position(text: str, rules: RuleSet, any_hands: bool = False) -> Position:
    """Read a position in either form and check it against ``rules``."""
    board = rules.board_data
    tokens = text.split()
    if not tokens:
        raise NotationError("empty position")
    if any(t in _BAN_WORDS for t in tokens):
        raise NotationError(
            "a position with 'ban' or 'pending' belongs to the history rule (option reclose), which this reads without"
        )
    if ":" in tokens[0]:
        pos = _parse_point_lists(tokens, text, board)
    else:
        cells = tokens[0]
        bad = sorted(set(cells) - set("WB."))
        if bad:
            raise NotationError(f"bad character {bad[0]!r} in board string (use W, B or .)")
        if len(cells) != board.n:
            raise NotationError(
                f"wrong length: the board string has {len(cells)} points, the {board.name} board has {board.n}"
            )
        white = sum(1 << i for i, c in enumerate(cells) if c == "W")
        black = sum(1 << i for i, c in enumerate(cells) if c == "B")
        side, hw, hb = _parse_side_and_hands(tokens[1:], text)
        pos = Position(white, black, side, hw, hb)
    check_position(pos, rules, any_hands)
    return pos


def _parse_point_lists(tokens: list[str], text: str, board: Board) -> Position:
    masks = {}
    i = 0
    while i < len(tokens) and ":" in tokens[i]:
        colour, _, listed = tokens[i].partition(":")
        colour = colour.upper()
        if colour not in ("W", "B"):
            raise NotationError(f"bad colour {colour!r} before ':' (expected W or B)")
        if colour in masks:
            raise NotationError(f"colour {colour} given twice")
        mask = 0
        for name in filter(None, listed.split(",")):
            idx = _point_index(board, name)
            if mask >> idx & 1:
                raise NotationError(f"point {name} given twice")
            mask |= 1 << idx
        masks[colour] = mask
        i += 1
    if set(masks) != {"W", "B"}:
        missing = "W" if "W" not in masks else "B"
        raise NotationError(f"no list of {missing} men (write '{missing}:' for none)")
    both = masks["W"] & masks["B"]
    if both:
        raise NotationError(f"point {_points(board, both)[0]} given twice (for White and for Black)")
    side, hw, hb = _parse_side_and_hands(tokens[i:], text)
    return Position(masks["W"], masks["B"], side, hw, hb)


def check_position(pos: Position, rules: RuleSet, any_hands: bool = False) -> None:
    """Raise NotationError unless the position can arise under ``rules``, as far as counts go.
    ``any_hands``: accept men in hand that do not empty in turn (an extended solution's games,
    which start with other numbers of men to place)."""
    for name, on_board, hand in (("White", pos.white, pos.hand_white), ("Black", pos.black, pos.hand_black)):
        count = bin(on_board).count("1")
        if count + hand > rules.men:
            raise NotationError(
                f"{name} has {count} men on the board and {hand} in hand, more than the {rules.men} "
                f"of the {rules.name} rules"
            )
    if rules.lasker == "on" or any_hands:
        return
    hw, hb = pos.hand_white, pos.hand_black
    # Without Lasker's rule the hands empty in turn, White first: White to move has as many men
    # in hand as Black, Black to move one more than White (both 0 once placing is over).
    expected_b = hw if pos.side == "w" else hw + 1
    if (hw or hb) and hb != expected_b:
        raise NotationError(
            f"men in hand inconsistent: with {pos.side} to move and White holding {hw}, "
            f"Black must hold {expected_b}, not {hb}"
        )


def format_move(move: Move, board: Board) -> str:
    if move.is_pass:
        return "pass"
    text = board.points[move.to] if move.frm < 0 else f"{board.points[move.frm]}-{board.points[move.to]}"
    for r in move.removals:
        text += "x" + board.points[r]
    return text


_MOVE = re.compile(r"^([a-z][0-9]+)(?:-([a-z][0-9]+))?((?:x[a-z][0-9]+){0,3})$")


def parse_move(text: str, board: Board) -> Move:
    text = text.strip()
    if text == "pass":
        return Move(-1, -1)
    m = _MOVE.match(text)
    if not m:
        raise NotationError(f"bad move {text!r} (expected d1, a1-a4, a1-a4xb6 or pass)")
    first, second, rem = m.groups()
    a = _point_index(board, first)
    frm, to = (-1, a) if second is None else (a, _point_index(board, second))
    removals = [_point_index(board, r) for r in rem.split("x")[1:]]
    for i, r in enumerate(removals):
        if r in removals[:i]:
            # "d1xb6xb6" would read as a double removal of one man; no move removes a man twice.
            raise NotationError(f"point {board.points[r]} removed twice in {text!r}")
    removals.sort()
    removals += [-1, -1, -1]
    return Move(frm, to, removals[0], removals[1], removals[2])


# ---- the history rule's suffix -------------------------------------------------------------------

_MILL_BAN = re.compile(r"^([a-z][0-9]+)\(([a-z0-9,-]+)\)$")


def format_ban(ban: Ban, board: Board) -> str:
    """``b2-a1`` (same-man) or ``d1(a1-d1-g1,d1-d2-d3)`` (running-mill)."""
    if ban.frm >= 0:
        return f"{board.points[ban.frm]}-{board.points[ban.to]}"
    return f"{board.points[ban.to]}({','.join('-'.join(board.mills[m]) for m in ban.mills)})"


def parse_ban(text: str, board: Board) -> Ban:
    """The inverse of ``format_ban``; a mill's points may come in any order."""
    m = _MILL_BAN.match(text)
    if m:
        to = _point_index(board, m.group(1))
        mills = []
        for mill_text in m.group(2).split(","):
            names = mill_text.split("-")
            for name in names:
                _point_index(board, name)
            found = [k for k, mill in enumerate(board.mills) if sorted(mill) == sorted(names)]
            if len(names) != 3 or not found:
                raise NotationError(f"{mill_text!r} is not a mill of the {board.name} board")
            if board.points[to] not in names:
                raise NotationError(f"the mill {mill_text} does not pass through {board.points[to]}")
            if found[0] in mills:
                raise NotationError(f"the mill {mill_text} given twice in {text!r}")
            mills.append(found[0])
        return Ban(-1, to, tuple(sorted(mills)))
    parts = text.split("-")
    if len(parts) != 2 or not all(_POINT.match(p) for p in parts):
        raise NotationError(f"bad ban {text!r} (expected a move like b2-a1, or a point and its mills like d1(a1-d1-g1))")
    frm, to = (_point_index(board, p) for p in parts)
    if frm == to:
        raise NotationError(f"bad ban {text!r}: a move goes to another point")
    return Ban(frm, to)


def format_history_position(pos: Position, board: Board, ban: Ban | None = None, pending: Ban | None = None) -> str:
    """``format_position`` with the history rule's suffix: `` ban B`` (the side to move's),
    `` pending B`` (its opponent's), each only when there is one."""
    text = format_position(pos, board)
    if ban is not None:
        text += " ban " + format_ban(ban, board)
    if pending is not None:
        text += " pending " + format_ban(pending, board)
    return text


def parse_history_position(text: str, rules: RuleSet) -> tuple[Position, Ban | None, Ban | None]:
    """(position, the side to move's ban or None, the opponent's pending ban or None) of a
    position written with the history rule's suffix (``format_history_position``), either form.
    Checks that the bans fit ``rules.reclose`` and the board: the man and the points named are
    there (same-man: the banned man on ``frm``, ``to`` empty; running-mill: ``to`` empty, each
    mill's other points the owner's men), the two bans' points differ, and no man is in hand.
    Whether a ban forbids a legal move (what makes it part of the state) is the move generator's
    business: ``tests/reference_history.py``."""
    board = rules.board_data
    tokens = text.split()
    cut = next((i for i, t in enumerate(tokens) if t in _BAN_WORDS), len(tokens))
    pos = parse_position(" ".join(tokens[:cut]), rules)
    rest = tokens[cut:]
    bans: dict[str, Ban] = {}
    while rest:
        word = rest[0]
        if word not in _BAN_WORDS:
            raise NotationError(f"unexpected {word!r} after the position (expected 'ban' or 'pending')")
        if word in bans:
            raise NotationError(f"'{word}' given twice")
        if len(rest) < 2:
            raise NotationError(f"'{word}' needs a ban after it (like b2-a1 or d1(a1-d1-g1))")
        bans[word] = parse_ban(rest[1], board)
        rest = rest[2:]
    if list(bans) == ["pending", "ban"]:
        raise NotationError("write 'ban' before 'pending'")
    if bans and rules.reclose == "allowed":
        raise NotationError("a position carries a ban only under the history rule (option reclose)")
    if bans and (pos.hand_white or pos.hand_black):
        raise NotationError("a ban arises only in the moving phase: no man may be in hand")
    for word, owner, other in (("ban", pos.mover, pos.opponent), ("pending", pos.opponent, pos.mover)):
        ban = bans.get(word)
        if ban is None:
            continue
        if ban.kind != rules.reclose:
            raise NotationError(f"{word} {format_ban(ban, board)} is not a ban of reclose={rules.reclose}")
        who = "the side to move" if word == "ban" else "the opponent"
        if (owner | other) >> ban.to & 1:
            raise NotationError(f"{word} {format_ban(ban, board)}: {board.points[ban.to]} is not empty")
        if ban.frm >= 0 and not owner >> ban.frm & 1:
            raise NotationError(f"{word} {format_ban(ban, board)}: no man of {who} on {board.points[ban.frm]}")
        for m in ban.mills:
            rest_of_mill = [board.index[p] for p in board.mills[m] if board.index[p] != ban.to]
            if not all(owner >> i & 1 for i in rest_of_mill):
                raise NotationError(
                    f"{word} {format_ban(ban, board)}: the mill {'-'.join(board.mills[m])} lacks a man of {who}"
                )
    if len(bans) == 2 and bans["ban"].to == bans["pending"].to:
        raise NotationError("the ban and the pending ban cannot both be on one point")
    return pos, bans.get("ban"), bans.get("pending")
