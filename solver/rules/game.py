"""The rules in Python terms: legal moves, the game-over test and playing a move.

Thin wrappers that hand a position and the rules' ``GameTables`` to the kernels in ``movegen``.
"""

from __future__ import annotations

import numpy as np

from . import movegen as mg
from ..errors import IllegalMoveError
from .notation import Move, Position, format_move
from .rulesets import RuleSet
from .tables import game_tables


def legal_moves(pos: Position, rules: RuleSet) -> list[Move]:
    """Every legal move, one per move and removal choice; empty when the game is over."""
    g = game_tables(rules)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    if mg.game_status(pos.mover, pos.opponent, pos.hand_mover, pos.hand_opponent, g, buf) != mg.ONGOING:
        return []
    k = mg.generate_moves(pos.mover, pos.opponent, pos.hand_mover, pos.hand_opponent, g, buf)
    return [Move(*map(int, row)) for row in buf[:k]]


def result(pos: Position, rules: RuleSet) -> str | None:
    """'loss' when the side to move has already lost, 'draw' for a drawn end (a full board under
    Twelve Men's Morris), None while the game goes on."""
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    status = mg.game_status(pos.mover, pos.opponent, pos.hand_mover, pos.hand_opponent, game_tables(rules), buf)
    return {mg.ONGOING: None, mg.LOST: "loss", mg.DRAWN: "draw"}[status]


def play(pos: Position, move: Move, rules: RuleSet, check: bool = True) -> Position:
    """The position after ``move``; with ``check``, an illegal move raises IllegalMoveError."""
    if check and move not in legal_moves(pos, rules):
        raise IllegalMoveError(f"illegal move {format_move(move, rules.board_data)}")
    me, opp, hand = mg.apply_move(
        pos.mover, pos.opponent, pos.hand_mover, move.frm, move.to, move.remove1, move.remove2, move.remove3
    )
    other = "b" if pos.side == "w" else "w"
    return Position.from_mover(other, opp, me, pos.hand_opponent, hand)
