"""Looking up states of the history rule in a database (docs/history-rule.md; ``storage.files``
describes /history/<a-b>).

A position of the moving phase is read with its suffix (`` ban B``, `` pending B``:
``notation.parse_history_position``); each record is judged live in the position
(``records.live``): a record that forbids nothing is dropped, and a state without records is
the plain position, whose value the subspace's plain slot holds. The legal moves are the plain
ones less the one(s) the active ban forbids; each leads to the opponent's state with the
opponent's pending record (if still live) active and the record the move made pending.
Tiers with men in hand hold plain positions (no ban is made while men are in hand), which the
plain lookups answer (``query.MorrisDatabase``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DatabaseError, NotationError
from ..rules import movegen as mg
from ..rules.bits import popcount
from ..rules.notation import Ban, Move, Position, format_ban, format_history_position, format_move, parse_history_position
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..values import DUP
from .records import forbids, live, made
from .store import KEY_SHIFT, stored_key
from .tables import encode_ban, history_tables, plain_rules


def decode_ban(code: int, rules: RuleSet) -> Ban | None:
    """The ``notation.Ban`` of a record code (``records``), None for 0: ``tables.encode_ban`` reversed."""
    if code == 0:
        return None
    n = rules.board_data.n
    if rules.reclose == "same-man":
        return Ban((code - 1) // n, (code - 1) % n)
    ht = history_tables(rules)
    p, local = (code - 1) // 16, (code - 1) % 16
    masks = [int(m) for m in rules.board_data.mill_masks]
    return Ban(-1, p, tuple(sorted(masks.index(int(ht.thr_mask[p, j])) for j in range(int(ht.thr_count[p])) if local >> j & 1)))


@dataclass(frozen=True)
class HistoryMove:
    """A move of a state: ``forbidden`` by its active ban, else the state it leads to (``mover``,
    ``opponent``, ``ban``, ``pending`` from the next side's view), or ``ends`` the game at once."""

    move: Move
    forbidden: bool
    ends: bool
    mover: int
    opponent: int
    ban: int
    pending: int


@dataclass(frozen=True)
class State:
    """A position read with its suffix: its live records (codes) and the notes on those dropped."""

    position: Position
    ban: int
    pending: int
    notes: tuple[str, ...]

    def text(self, rules: RuleSet) -> str:
        return format_history_position(self.position, rules.board_data, decode_ban(self.ban, rules), decode_ban(self.pending, rules))


def read_state(text: str, rules: RuleSet) -> State:
    """A position with its history suffix, its records judged live here (a dead one is dropped,
    with a note: the state is then the plain position's, or one with the record's live mills)."""
    pos, ban, pending = parse_history_position(text, rules)
    ht = history_tables(rules)
    notes = []
    codes = []
    for word, rec, owner, other in (("ban", ban, pos.mover, pos.opponent), ("pending", pending, pos.opponent, pos.mover)):
        code = encode_ban(rec, rules)
        kept = int(live(code, owner, other, ht))
        if code and kept != code:
            given = format_ban(rec, rules.board_data)
            if kept == 0:
                notes.append(f"{word} {given} forbids no move here (not live): dropped, the state is the one without it")
            else:
                notes.append(f"{word} {given}: only {format_ban(decode_ban(kept, rules), rules.board_data)} is live")
        codes.append(kept)
    return State(pos, codes[0], codes[1], tuple(notes))


def history_moves(m: int, o: int, ban: int, pending: int, rules: RuleSet) -> list[HistoryMove]:
    """Every plain legal move of the state (m, o, ban, pending), each forbidden or with the
    state it leads to; empty where the plain position is over (fewer than 3 men, or blocked)."""
    g, ht = game_tables(plain_rules(rules)), history_tables(rules)
    buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
    if mg.game_status(m, o, 0, 0, g, buf) != mg.ONGOING:
        return []
    out = []
    for row in buf[: mg.generate_moves(m, o, 0, 0, g, buf)].tolist():
        frm, to = row[0], row[1]
        after, o2, _ = mg.apply_move(m, o, 0, frm, to, row[2], row[3], row[4])
        move = Move(*row)
        if forbids(ban, frm, to, after, ht):
            out.append(HistoryMove(move, True, False, 0, 0, 0, 0))
        elif popcount(o2) < 3:
            out.append(HistoryMove(move, False, True, 0, 0, 0, 0))
        else:
            out.append(HistoryMove(move, False, False, o2, after, int(live(pending, o2, after, ht)), int(made(m, frm, to, after, ht))))
    return out


class StateReader:
    """Values of states from a database's subspaces: the plain slots and the side tables."""

    def __init__(self, db, rules: RuleSet):
        self.db, self.rules = db, rules

    def values(self, movers, opponents, bans, pendings) -> np.ndarray:
        """The stored value of each state (any orientation): its plain slot's where it has no
        record, else its side table's row (``store.stored_key``)."""
        out = np.empty(len(movers), dtype=np.uint16)
        for i, state in enumerate(zip(movers, opponents, bans, pendings)):
            a, b, slot, code = stored_key(*(int(x) for x in state), self.rules)
            if code == 0:
                out[i] = self.db.read_slots(a, b, np.array([slot]))[0]
                continue
            row = self.db.history_row(a, b, slot << KEY_SHIFT | code)
            if row < 0:
                raise DatabaseError(f"{self.db.path}: subspace {a}-{b} lacks a state its side table should hold (a damaged file)")
            out[i] = self.db.read_history(a, b, np.array([row]))[0]
        if (out == DUP).any():
            raise DatabaseError(f"{self.db.path}: a state ranks to a slot that holds no position (a damaged file)")
        return out


def check_not_over(pos: Position) -> None:
    """NotationError where the side not to move is below 3 men (the game ended before)."""
    if popcount(pos.opponent) < 3:
        other = "Black" if pos.side == "w" else "White"
        raise NotationError(
            f"{other} has {popcount(pos.opponent)} men and is not to move: the game ended with the last move "
            "(the side to move can only be the one that has lost)"
        )


def move_texts(state: State, rules: RuleSet) -> tuple[list[str], list[str]]:
    """(the legal moves' notations, those the ban forbids): ``morris moves`` under the history rule."""
    board = rules.board_data
    moves = history_moves(state.position.mover, state.position.opponent, state.ban, state.pending, rules)
    return [format_move(h.move, board) for h in moves if not h.forbidden], [format_move(h.move, board) for h in moves if h.forbidden]
