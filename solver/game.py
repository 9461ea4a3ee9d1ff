"""The rules in Python terms: legal moves, the game-over test and playing a move.

Thin wrappers that hand a position and the board's tables to the kernels in ``movegen``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import movegen as mg
from .errors import IllegalMoveError
from .notation import Move, Position
from .rules import RuleSet


@lru_cache(maxsize=None)
def tables(rules: RuleSet):
    """(n, adjacency, mill masks, mills through each point, options) for the kernels."""
    b = rules.board_data
    return b.n, b.adjacency_masks, b.mill_masks, b.point_mills, rules.kernel_options()


def _args(pos: Position, rules: RuleSet):
    return (pos.mover, pos.opponent, pos.hand_mover, pos.hand_opponent, *tables(rules))


def legal_moves(pos: Position, rules: RuleSet) -> list[Move]:
    """Every legal move, one per move and removal choice; empty when the game is over."""
    buf = np.empty((mg.MAX_MOVES, 4), dtype=np.int64)
    if mg.game_status(*_args(pos, rules), buf) != mg.ONGOING:
        return []
    k = mg.generate_moves(*_args(pos, rules), buf)
    return [Move(*map(int, row)) for row in buf[:k]]


def result(pos: Position, rules: RuleSet) -> str | None:
    """'loss' when the side to move has already lost, 'draw' for a drawn end (a full board under
    Twelve Men's Morris), None while the game goes on."""
    buf = np.empty((mg.MAX_MOVES, 4), dtype=np.int64)
    status = mg.game_status(*_args(pos, rules), buf)
    return {mg.ONGOING: None, mg.LOST: "loss", mg.DRAWN: "draw"}[status]


def play(pos: Position, move: Move, rules: RuleSet, check: bool = True) -> Position:
    """The position after ``move``; with ``check``, an illegal move raises IllegalMoveError."""
    if check and move not in legal_moves(pos, rules):
        from .notation import format_move

        raise IllegalMoveError(f"illegal move {format_move(move, rules.board_data)}")
    me, opp, hand = mg.apply_move(pos.mover, pos.opponent, pos.hand_mover, move.frm, move.to, move.remove1, move.remove2)
    other = "b" if pos.side == "w" else "w"
    return Position.from_mover(other, opp, me, pos.hand_opponent, hand)
