"""The database reader for queries: ``MorrisDatabase`` (``open_database``) and its batch
pipeline, which reads the values of many positions with one read per subspace."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..books import find_book
from ..books.opened import hold_to_record
from ..errors import DatabaseError, MorrisError, NotationError
from ..rules.notation import (
    Move,
    Position,
    check_position,
    format_move,
    format_position,
    parse_position,
)
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..storage.database import Database
from ..storage.files import exists, solve_command, subspace_name
from ..values import DRAW, DUP, LOSS, WIN, decode_many
from . import draw_ranks
from .history_rule import HistoryLookups
from .movegen import MoveGenerators
from .results import Analysis, MoveValue, Probe, move_value, value_of
from .three_men import three_each, three_men_rule


def _bit(col: np.ndarray) -> np.ndarray:
    return np.where(col >= 0, np.left_shift(np.int64(1), np.maximum(col, 0)), np.int64(0))


def _popcount(x: int) -> int:
    return int(x).bit_count()


class _Pending:
    """One position on its way through a batch: what it needs read, and what came back."""

    __slots__ = (
        "pos", "probe", "moves", "succ_mover", "succ_opp", "succ_hand", "succ_value", "succ_plies", "own",
        "own_rank", "succ_rank", "succ_depth", "succ_secval",
    )

    def __init__(self, pos: Position):
        self.pos = pos
        self.probe: Probe | None = None
        self.moves: np.ndarray | None = None  # (k, 5) rows of generate_moves
        self.succ_mover = self.succ_opp = None
        self.succ_hand = None  # the men in hand of the side that moved, after its move
        self.succ_value = self.succ_plies = None
        self.own: tuple[str, int | None] | None = None
        self.own_rank: tuple[int, int] | None = None  # (rank, depth) of a ranked draw
        self.succ_rank = self.succ_depth = self.succ_secval = None  # the successors', where ranked


class MorrisDatabase:
    """A solved database opened for queries; use ``open_database``. A context manager."""

    def __init__(self, path: str | os.PathLike, rules: RuleSet | None = None, book: bool = True):
        self.path = Path(path)
        # The shipped opening book of the rule set (``solver.books``) answers the tiers with many
        # men in hand: alone where there is no database, else for the tiers the database lacks.
        shipped = find_book(rules) if book and rules is not None else None
        if not exists(self.path):
            if shipped is not None:
                self.path = shipped
            elif rules is not None:
                raise DatabaseError(f"no database at {self.path} (build one with: {solve_command(rules, None, self.path)})")
        try:
            self._db = Database(self.path, rules)
            if book and self._db.book_min_hand is None:
                shipped = find_book(self._db.rules)
                if shipped is not None:
                    self._db.add_book(shipped)
            hold_to_record(self._db)  # a book's tiers against the published record (books.opened)
        except MorrisError:
            raise
        except (OSError, KeyError, ValueError, TypeError, AttributeError) as e:
            raise DatabaseError(f"{self.path} is not a readable morris database ({e.__class__.__name__}: {e})") from None
        self.rules: RuleSet = self._db.rules
        self.board = self.rules.board_data
        # Under the history rule (option reclose) the moves are the plain ones less those a ban
        # forbids, and the moving phase's states are looked up by ``history.query``
        # (``history_rule``); positions with men in hand are plain.
        self._move_rules = replace(self.rules, reclose="allowed")
        self._history = HistoryLookups(self._db, self.rules) if self.rules.reclose != "allowed" else None
        # Draw ranks (``morris rank``), read beside the values where the database holds them
        self.ranks_state, self._secvals = draw_ranks.stored_ranks(self._db)  # "ranked", "none" or "stale"
        self._ranks = None  # index.plain's ranks from the cached tables, else the built index
        self._movegen = MoveGenerators()  # plain Python for few positions, compiled for many
        self._extended: bool | None = None

    # -- context manager -------------------------------------------------------------------------
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> MorrisDatabase:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MorrisDatabase {str(self.path)!r} rules={self.rules.describe()!r}>"

    @property
    def has_ranks(self) -> bool:
        """Whether the database holds draw ranks for every tier it holds (``morris rank``)."""
        return self._secvals is not None

    def require_ranks(self) -> None:
        """NoRanksError, one line naming the database and the command, where it holds no ranks."""
        if self._secvals is None:
            raise draw_ranks.no_ranks_error(self.path, self.ranks_state)

    @property
    def secvals(self):
        """The sector values of the ranks (``ultra.secval.SectorValues``), or None."""
        return self._secvals

    def settles_in(self, rank: int) -> tuple[str, ...]:
        """The tiers worth ``rank`` (where a draw of that rank settles), from the side's view."""
        return draw_ranks.settles_in(self._secvals, rank)

    # -- catalogue -------------------------------------------------------------------------------
    def subspaces(self) -> list[tuple[int, int]]:
        """(men of the side to move, men of the opponent) of every subspace of the moving phase
        in the database."""
        return [(s.mover, s.opponent) for s in self._db.subspaces()]

    def tiers(self) -> list[tuple[int, int, int, int]]:
        """(men on the board of the side to move and of the opponent, men in hand of each) of
        every tier in the database, the moving phase's (hands 0) included."""
        return [s.tier for s in self._db.tiers()]

    def has(self, mover_men: int, opponent_men: int, mover_hand: int = 0, opponent_hand: int = 0) -> bool:
        return self._db.has(mover_men, opponent_men, mover_hand, opponent_hand)

    def info(self, mover_men: int, opponent_men: int, mover_hand: int = 0, opponent_hand: int = 0):
        """The statistics stored with a subspace or tier (``positions``, ``win``, ``draw``,
        ``loss``, ``max_win``, ``max_loss``, ``max_plies``, ``slots``, ``seconds``,
        ``checksum``...): values for the side to move, counted up to symmetry; -1 where there is
        no win or no loss."""
        return self._db.info(mover_men, opponent_men, mover_hand, opponent_hand)

    def values(self, mover_men: int, opponent_men: int, mover_hand: int = 0, opponent_hand: int = 0) -> np.ndarray:
        """Every slot's stored value code in the subspace or tier (``decode_many`` reads them;
        ``DUP`` marks a slot that holds no position), read whole into memory."""
        return self._db.values(mover_men, opponent_men, mover_hand, opponent_hand)

    def positions(self, mover_men: int, opponent_men: int, slots: Iterable[int]) -> list[Position]:
        """The positions that ``slots`` of the subspace hold, with White as the side to move (a
        subspace is seen from the side to move, whichever colour it is). A slot that holds no
        position (``DUP``) raises ``ValueError``."""
        from ..index import board_index

        self._db.info(mover_men, opponent_men)  # raises MissingSubspaceError
        slots = np.asarray(list(slots), dtype=np.int64)
        index = board_index(self.rules.board)
        if slots.size and (slots.min() < 0 or slots.max() >= index.slots(mover_men, opponent_men)):
            raise ValueError(f"slots of subspace {mover_men}-{opponent_men} run from 0 to {index.slots(mover_men, opponent_men) - 1}")
        movers, opponents, canonical = index.unrank_many(mover_men, opponent_men, slots)
        if not canonical.all():
            bad = int(slots[np.flatnonzero(~canonical)[0]])
            raise ValueError(f"slot {bad} of subspace {mover_men}-{opponent_men} holds no position (a duplicate slot)")
        return [Position(int(m), int(o), "w") for m, o in zip(movers, opponents)]

    # -- positions -------------------------------------------------------------------------------
    def position(self, position: Position | str) -> Position:
        """``position`` read (if text) and checked against the database's rule set."""
        if isinstance(position, str):
            return parse_position(position, self.rules, self._any_hands())
        if not isinstance(position, Position):
            raise NotationError(f"not a position: {position!r}")
        n = self.board.n
        full = (1 << n) - 1
        if position.side not in ("w", "b"):
            raise NotationError(f"bad side to move {position.side!r} (expected 'w' or 'b')")
        if position.white < 0 or position.black < 0 or (position.white | position.black) & ~full:
            raise NotationError(f"men off the {self.board.name} board's {n} points")
        if position.white & position.black:
            raise NotationError("a point holds both a White and a Black man")
        if position.hand_white < 0 or position.hand_black < 0:
            raise NotationError("men in hand cannot be negative")
        check_position(position, self.rules, self._any_hands())
        return position

    def _any_hands(self) -> bool:
        """Whether the database holds tiers whose men in hand do not empty in turn (solved with
        --extended): positions with such hands are then read, not refused."""
        if self._extended is None:
            self._extended = any(ha != hb and ha != hb + 1 for _, _, ha, hb in self._db.tier_keys())
        return self._extended

    def format(self, position: Position) -> str:
        return format_position(position, self.board)

    # -- queries ---------------------------------------------------------------------------------
    def probe(self, position: Position | str) -> Probe:
        """The value of ``position`` for the side to move (one stored value read)."""
        return self.probe_many([position])[0]

    def evaluate_moves(self, position: Position | str) -> list[MoveValue]:
        """Every legal move with the value it leads to for the player making it, best first:
        wins by fewest plies, then draws, then losses by most plies (ties in move order)."""
        return list(self.analyse(position).moves)

    def best_moves(self, position: Position | str) -> list[MoveValue]:
        """The moves that keep the position's value (all of the fastest wins, every drawing move,
        or all of the longest losses); empty when the game is over."""
        return list(self.analyse(position).best_moves)

    def analyse(self, position: Position | str) -> Analysis:
        """The position's value and its moves, best first."""
        return self.analyse_many([position])[0]

    def probe_many(self, positions: Iterable[Position | str], on_error: str = "raise") -> list:
        """``probe`` for many positions, one read per subspace. ``on_error="return"`` puts the
        error (a ``MorrisError``) in place of the result of a bad position instead of raising."""
        return self._run(positions, with_moves=False, on_error=on_error)

    def evaluate_moves_many(self, positions: Iterable[Position | str], on_error: str = "raise") -> list:
        """``evaluate_moves`` for many positions, one read per subspace."""
        out = self._run(positions, with_moves=True, with_probe=False, on_error=on_error)
        return [r if isinstance(r, MorrisError) else list(r.moves) for r in out]

    def analyse_many(self, positions: Iterable[Position | str], on_error: str = "raise") -> list:
        """``analyse`` for many positions, one read per subspace (``morris query`` uses this)."""
        return self._run(positions, with_moves=True, on_error=on_error)

    # -- the batch pipeline ----------------------------------------------------------------------
    def _run(self, positions, with_moves: bool, on_error: str, with_probe: bool = True) -> list:
        if on_error not in ("raise", "return"):
            raise ValueError("on_error must be 'raise' or 'return'")
        items = list(positions)
        results: list = [None] * len(items)
        mg = self._movegen.for_batch(len(items))

        def attempt(i: int, step):
            """step()'s result, or None with the error in results[i] (or raised)."""
            try:
                return step()
            except MorrisError as e:
                if on_error == "raise":
                    raise
                results[i] = e
                return None

        prepared = []
        for i, item in enumerate(items):
            if self._history is not None:  # the moving phase's states under the history rule
                an = attempt(i, lambda item=item: self._history.analyse(item, self.position, self._make_probe))
                if an is not None:
                    results[i] = an if with_moves else an.probe
                if an is not None or results[i] is not None:
                    continue
            prepared.append((i, attempt(i, lambda item=item: self._prepare(item, with_moves, mg))))
        pending = [(i, p) for i, p in prepared if p is not None]
        # Which subspaces each position needs: a missing one fails that position alone.
        ok = [(i, p) for i, p in pending if attempt(i, lambda p=p: self._check_subspaces(p, with_probe) or True)]
        self._read_values([p for _, p in ok], with_probe)
        for i, p in ok:
            results[i] = self._finish(p, with_moves)
        return results

    def warm_up(self) -> None:
        """Take the compiled move generator from now on, and load it (about half a second): a
        process that answers many lookups (``morris serve``) then pays it before its first
        request rather than at the switch, ``movegen.PLAIN_POSITIONS`` lookups in."""
        self._movegen.warm_up(game_tables(self._move_rules))

    def _rank_many(self, movers: np.ndarray, opponents: np.ndarray) -> np.ndarray:
        """Slots of the positions: ranked with numpy from the board's cached orbit minima, or by
        the board's index, built here (about a second for 24 points) and caching them."""
        if self._ranks is None:
            from ..index.plain import plain_index

            self._ranks = plain_index(self.board)
            if self._ranks is None:
                from ..index import board_index

                self._ranks = board_index(self.rules.board)
        return self._ranks.rank_many(movers, opponents)

    def _prepare(self, item, with_moves: bool, mg) -> _Pending:
        pos = self.position(item)
        p = _Pending(pos)
        g, buf = game_tables(self._move_rules), self._movegen.buf
        ha, hb = pos.hand_mover, pos.hand_opponent
        status = mg.game_status(pos.mover, pos.opponent, ha, hb, g, buf)
        if status == mg.LOST:
            p.probe = self._make_probe(pos, LOSS, 0)
            p.moves = np.empty((0, 5), dtype=np.int64)
            return p
        if status == mg.DRAWN:
            p.probe = self._make_probe(pos, DRAW, None)
            p.moves = np.empty((0, 5), dtype=np.int64)
            return p
        opp_men = _popcount(pos.opponent)
        if opp_men + hb < 3:
            other = "Black" if pos.side == "w" else "White"
            raise NotationError(
                f"{other} has {opp_men + hb} men and is not to move: the game ended with the last move "
                "(the side to move can only be the one that has lost)"
            )
        if with_moves:
            k = mg.generate_moves(pos.mover, pos.opponent, ha, hb, g, buf)
            rows = buf[:k].copy()
            p.moves = rows
            frm, to, removed = rows[:, 0], rows[:, 1], rows[:, 2:]
            # The position after each move, seen from the opponent (the next side to move).
            p.succ_opp = (np.int64(pos.mover) & ~_bit(frm)) | _bit(to)
            p.succ_mover = np.int64(pos.opponent) & ~np.bitwise_or.reduce(_bit(removed), axis=1)
            p.succ_hand = ha - ((frm < 0) & (to >= 0)).astype(np.int64)  # a placement takes a man from hand
        return p

    def _successor_tiers(self, p: _Pending) -> list[tuple[int, int, int, int]]:
        """The tier of each move's successor, seen from the opponent; men on the board plus in
        hand below 3 (the game is over) are left to the caller."""
        hb = p.pos.hand_opponent
        men = _popcount(p.pos.opponent) - (p.moves[:, 2:] >= 0).sum(axis=1)
        movers = [_popcount(x) for x in p.succ_opp.tolist()]
        return [(int(b2), a2, hb, int(h)) for b2, a2, h in zip(men.tolist(), movers, p.succ_hand.tolist())]

    def _own_tier(self, p: _Pending) -> tuple[int, int, int, int]:
        pos = p.pos
        return (_popcount(pos.mover), _popcount(pos.opponent), pos.hand_mover, pos.hand_opponent)

    def _check_subspaces(self, p: _Pending, with_probe: bool) -> None:
        if p.probe is not None:
            return  # decided without the database
        if with_probe:
            self._db.info(*self._own_tier(p))  # raises MissingSubspaceError
        if p.succ_mover is not None:
            for t in sorted(set(self._successor_tiers(p)), reverse=True):
                if t[0] + t[2] >= 3:
                    self._db.info(*t)

    def _read_values(self, batch: list[_Pending], with_probe: bool) -> None:
        # Per tier: the (mover, opponent) masks to look up and where the answers go.
        groups: dict[tuple[int, int, int, int], list] = {}
        for p in batch:
            if p.probe is not None:
                continue
            if with_probe:
                groups.setdefault(self._own_tier(p), []).append((p, "own", None, np.array([p.pos.mover]), np.array([p.pos.opponent])))
            if p.succ_mover is not None:
                tiers = self._successor_tiers(p)
                p.succ_value = np.full(len(tiers), 3, dtype=np.int8)  # 3: "ends the game at once"
                p.succ_plies = np.zeros(len(tiers), dtype=np.int64)
                for t in set(tiers):
                    if t[0] + t[2] < 3:
                        continue
                    sel = np.array([j for j, x in enumerate(tiers) if x == t], dtype=np.int64)
                    groups.setdefault(t, []).append((p, "succ", sel, p.succ_mover[sel], p.succ_opp[sel]))
        for (a, b, ha, hb), parts in groups.items():
            movers = np.concatenate([x[3] for x in parts]).astype(np.int64)
            opps = np.concatenate([x[4] for x in parts]).astype(np.int64)
            slots = self._rank_many(movers, opps)
            name = subspace_name(a, b, ha, hb)
            try:
                values = self._db.read_slots(a, b, slots, ha, hb)
            except MorrisError:
                raise
            except (OSError, KeyError, ValueError, RuntimeError) as e:
                raise DatabaseError(
                    f"{self.path}: cannot read subspace {name} ({e.__class__.__name__}: {e}); the file is damaged"
                ) from None
            if (values == DUP).any():
                bad = int(slots[np.flatnonzero(values == DUP)[0]])
                raise DatabaseError(
                    f"{self.path}: subspace {name} marks slot {bad} as holding no position, but a "
                    "position ranks there: the file is damaged or was built with another index"
                )
            kind, plies = decode_many(values)
            ranks = depths = None
            if self._secvals is not None and (kind == 0).any():
                ranks, depths = np.zeros(len(slots), dtype=np.int64), np.zeros(len(slots), dtype=np.int64)
                drawn = np.flatnonzero(kind == 0)
                r, d = self._db.read_ranks(a, b, slots[drawn], ha, hb)
                ranks[drawn], depths[drawn] = r, d
            secval = self._secvals.values.get((a, b, ha, hb), 0) if self._secvals is not None else 0
            at = 0
            for p, what, sel, m, _ in parts:
                k = len(m)
                if what == "own":
                    kv, pl = int(kind[at]), int(plies[at])
                    p.own = value_of(kv, pl)
                    if kv == 0 and ranks is not None:
                        p.own_rank = (int(ranks[at]), int(depths[at]))
                else:
                    p.succ_value[sel] = kind[at : at + k]
                    p.succ_plies[sel] = plies[at : at + k]
                    if ranks is not None:
                        if p.succ_rank is None:
                            p.succ_rank = np.zeros(len(p.succ_value), dtype=np.int64)
                            p.succ_depth = np.zeros(len(p.succ_value), dtype=np.int64)
                            p.succ_secval = np.zeros(len(p.succ_value), dtype=np.int64)
                        p.succ_rank[sel] = ranks[at : at + k]
                        p.succ_depth[sel] = depths[at : at + k]
                        p.succ_secval[sel] = secval
                at += k

    def _make_probe(self, pos: Position, value: str, plies: int | None, ranked: tuple[int, int] | None = None) -> Probe:
        rule = three_men_rule(value, plies) if three_each(self.rules, pos) else None
        if ranked is None:
            return Probe(value, plies, rule)
        return Probe(value, plies, rule, ranked[0], ranked[1], self.settles_in(ranked[0]))

    def _move_rank(self, p: _Pending, j: int) -> tuple[int, int, int]:
        """(rank, depth, tempo) of drawing move j for its mover (``draw_ranks.move_rank``)."""
        own = self._secvals.values.get(self._own_tier(p), 0)
        return draw_ranks.move_rank(own, int(p.succ_rank[j]), int(p.succ_depth[j]), int(p.succ_secval[j]))

    def _finish(self, p: _Pending, with_moves: bool):
        probe = p.probe
        if probe is None:
            probe = self._make_probe(p.pos, *p.own, p.own_rank) if p.own is not None else None
        if not with_moves:
            return probe
        three = three_each(self.rules, p.pos)
        other = "b" if p.pos.side == "w" else "w"
        moves = []
        if p.succ_mover is not None:
            for j, row in enumerate(p.moves.tolist()):
                kind = int(p.succ_value[j])
                if kind == 3:
                    value, plies = WIN, 1  # the opponent is left with two men
                else:
                    value, plies = move_value(kind, int(p.succ_plies[j]))
                move = Move(*row)
                after = Position.from_mover(
                    other, int(p.succ_mover[j]), int(p.succ_opp[j]), p.pos.hand_opponent, int(p.succ_hand[j])
                )
                extra = {}
                if value == DRAW and p.succ_rank is not None:
                    r, d, t = self._move_rank(p, j)
                    extra = {"rank": r, "depth": d, "settles_in": self.settles_in(r), "tempo": t}
                moves.append(
                    MoveValue(
                        move, format_move(move, self.board), value, plies, after,
                        three_men_rule(value, plies) if three else None, **extra,
                    )
                )
            moves.sort(key=lambda mv: mv.sort_key)
        return Analysis(p.pos, format_position(p.pos, self.board), probe, tuple(moves), self._secvals is not None)


def open_database(path: str | os.PathLike, rules: RuleSet | None = None, book: bool = True) -> MorrisDatabase:
    """Open a solved database for queries (cheap: reads the header and the catalogue only).

    With ``rules``, a database of another rule set raises ``MismatchError``. Positions are read
    with the database's own rule set (``db.rules``). The package's opening book of the rule set
    (``solver.books``), where one ships, answers the tiers the database lacks, and stands in for
    a database that does not exist (``rules`` given); ``book=False`` reads the database alone.
    Errors: ``DatabaseError`` for a missing, unreadable or damaged file, ``MismatchError`` for a
    mismatched one.
    """
    return MorrisDatabase(path, rules, book)
