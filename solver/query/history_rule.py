"""Lookups under the history rule (option reclose): a moving-phase position is written with its
records' suffix and looked up as a state by ``history.query``; its moves are the plain ones less
those a ban forbids. Positions with men in hand are plain (no ban is made while men are in hand)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..rules.notation import Position, format_move
from ..rules.rulesets import RuleSet
from ..storage.database import Database
from ..values import WIN, decode_many
from .results import Analysis, MoveValue, Probe, move_value, value_of
from .three_men import three_each, three_men_rule


class HistoryLookups:
    """The states of one database under the history rule (their reader made at the first lookup)."""

    def __init__(self, db: Database, rules: RuleSet):
        self._db, self.rules, self.board = db, rules, rules.board_data
        self._states = None  # history.query.StateReader

    def analyse(self, item, position: Callable[[Position], Position], make_probe: Callable[..., Probe]) -> Analysis | None:
        """The analysis of a moving-phase position ``item`` (text with its records' suffix, or a
        ``Position`` without records), or None for one with men in hand (plain). ``position``
        checks a ``Position`` against the rule set; ``make_probe(pos, value, plies)`` makes its
        ``Probe``."""
        from ..history import query as hq

        if isinstance(item, Position):
            state = hq.State(position(item), 0, 0, ())
        else:
            state = hq.read_state(item, self.rules)
        pos = state.position
        if pos.hand_white or pos.hand_black:
            return None
        hq.check_not_over(pos)
        if self._states is None:
            self._states = hq.StateReader(self._db, self.rules)
        moves = hq.history_moves(pos.mover, pos.opponent, state.ban, state.pending, self.rules)
        legal = [h for h in moves if not h.forbidden]
        notes = state.notes
        if len(legal) < len(moves):
            notes += ("the ban forbids " + " ".join(format_move(h.move, self.board) for h in moves if h.forbidden),)
        nexts = [h for h in legal if not h.ends]
        values = self._states.values(
            [pos.mover] + [h.mover for h in nexts], [pos.opponent] + [h.opponent for h in nexts],
            [state.ban] + [h.ban for h in nexts], [state.pending] + [h.pending for h in nexts],
        ) if legal else np.array([1], dtype=np.uint16)  # no legal move: lost in 0 plies
        kind, plies = decode_many(values)
        probe = make_probe(pos, *value_of(int(kind[0]), int(plies[0])))
        three = three_each(self.rules, pos)
        other = "b" if pos.side == "w" else "w"
        out, j = [], 1
        for h in legal:
            if h.ends:
                value, ply, after, text = WIN, 1, None, None
            else:
                value, ply = move_value(int(kind[j]), int(plies[j]))
                after = Position.from_mover(other, h.mover, h.opponent)
                text = hq.State(after, h.ban, h.pending, ()).text(self.rules)
                j += 1
            out.append(
                MoveValue(
                    h.move, format_move(h.move, self.board), value, ply, after,
                    three_men_rule(value, ply) if three else None, after_text=text,
                )
            )
        out.sort(key=lambda mv: mv.sort_key)
        return Analysis(pos, state.text(self.rules), probe, tuple(out), notes=notes)
