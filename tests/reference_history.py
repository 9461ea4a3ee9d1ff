"""The history rule (option ``reclose``, docs/history-rule.md) solved by a plain reference: no
closing again, on the next move, the mill just opened.

A slow, plain-Python oracle for the engine, in the manner of ``tests/reference.py``, whose
rules-independent parts it reuses (the positions of a subspace, the ``Graph`` and its level-by-level
solution ``solve_graph``, ``check_solution``, the tier order of whole games) together with its move
generator ``MoveGen``, extended here by ``HistoryGen`` (the moves with their origin, and the bans).
Nothing comes from ``solver.rules.movegen`` or the engine.

The state
---------
``reclose=same-man`` (the Viking rule): a move of a man from ``p`` to ``q`` out of a mill (``p`` in
a mill of the mover's colour before the move) forbids, on the mover's next turn, the move ``q-p``.
``reclose=running-mill`` (the other source): a move out of a mill that also closes a mill forbids,
on the mover's next turn, any move that closes one of the opened mills again (by arriving on
``p``). A ban made by X's move is *pending* while Y moves, and *active* at X's next turn, then
gone. So a state is

    (mover, opp, ban, pending)

the men of the side to move and of its opponent (all on the board: bans arise in the moving phase
only, Lasker's rule is refused), the side to move's active ban and the opponent's pending ban.
Both are needed: the pending ban decides what the opponent may do at its next turn, so it decides
the value of the position for the side to move (``tests/test_history_rule.py`` has positions whose
value it changes).

A ban is recorded only where it is live, so that a state without one is the plain position:

- same-man ``(q, p)``: the owner has a man on ``q``, ``p`` is empty, the owner may move ``q-p``
  (``p`` adjacent, or the owner flies) and that move closes a mill;
- running-mill ``(p, mills)``: ``p`` is empty and each mill listed has the owner's men on its other
  two points and is closed by some move of the owner onto ``p`` (from a point off that mill); the
  mills no move could close are dropped, and the ban with them when none is left.

The active ban is judged in the position where it applies; the pending ban "as if its owner moved
now" (it is always live when made: the man can go straight back). When the opponent has moved,
the pending ban becomes the new side to move's active ban if it is still live (the opponent may
have filled ``p``, or removed a man of the mill or the banned man), with its dead mills dropped.

The states of a subspace are every position with every admissible (ban, pending) pair: each a
record that is live as above, or none, the two on different points (``p`` differs: X left its
``p`` before Y's man left its own). That is a little more than the states a game reaches (it
ignores, for instance, whether the opponent's last move could have removed a man), closed under
moves, and it is the set the engine is to index: plain positions times their admissible records.

Codes: a record is an int, 0 for none; same-man ``1 + q * n + p`` (``n`` points); running-mill
``1 + 16 * p + m``, ``m`` a bit per mill through ``p`` in ``board.mills`` order. A state's code is
``ban << 10 | pending``.

API
---
``HistoryGen(rules)``: ``moves(mover, opp)`` -> every move ``(frm, to, mover_after, opp_after,
    made)`` ignoring bans (``made``: the record the move makes for its mover, canonical, or 0);
    ``forbids(ban, frm, to, mover_after)``; ``live(record, owner, other)`` -> the canonical record
    or 0; ``records(owner, other)`` -> every live record of ``owner``; ``legal(mover, opp, ban)``;
    ``successors(mover, opp, ban, pending)`` -> the states after each legal move (a pass under
    blocked=passes), seen from the new side to move, ``None`` for a successor whose side to move
    has lost at once; ``encode``/``decode`` between codes and ``solver.rules.notation.Ban``.
``solve_history(rules, max_men=None, subspaces=None, check=False) -> {(a, b): HSubspace}``: the
    moving phase (every admissible state of ``closure(subspaces)``), a pair of subspaces at a time.
``solve_history_whole(rules, check=False) -> {tier: HSubspace or reference.Subspace}``: the whole
    game from the start: the moving tiers as above, then the placing tiers (plain positions: no
    ban arises while men are in hand) by ``reference``'s own graph of placements, whose successors
    in the moving phase are the plain states just solved.
``lookup_history(result, mover, opp, ban=0, pending=0)``, ``ban_changes(result, plain)`` -> per
    subspace or tier, how many plain positions change value (and depth) against ``plain``, the
    plain reference's solution.

Command line: ``python tests/reference_history.py six --whole`` (both readings, each against
``reference.py``'s plain solution: the start, the first placements, and per tier the values the
ban changes), ``python tests/reference_history.py standard -o men=3 -o reclose=same-man --whole
--check`` (one reading, the equations asserted), ``... six -o men=4 --max-men 4`` or ``...
viking --subspace 3,4`` (the moving phase). docs/history-rule.md records what they print.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from reference import (
    DRAW,
    LOSS,
    VALUE_NAMES,
    WIN,
    Graph,
    MoveGen,
    Subspace,
    _build,
    fold_solved,
    solve_group,
    bits,
    closure,
    enumerate_subspace,
    solve_reference,
    solve_whole_reference,
    split,
    tier_components,
    whole_closure,
)

from solver.rules import RuleSet
from solver.rules.notation import Ban

CODE_BITS = 10
CODE_MASK = (1 << CODE_BITS) - 1
_IDX_SHIFT = 2 * CODE_BITS  # a state key: global plain index << 20 | ban << 10 | pending
_SHIFT = 24  # a board key: mover << 24 | opp


class HistoryGen(MoveGen):
    """``reference.MoveGen`` with the moves' origins and the history rule's records."""

    def __init__(self, rules: RuleSet):
        super().__init__(rules)
        assert rules.reclose in ("allowed", "same-man", "running-mill")
        if rules.reclose != "allowed" and rules.lasker == "on":
            raise ValueError("the history rule with Lasker's rule (a ban made while men are in hand) is not supported")
        self.kind = rules.reclose
        n = self.n
        assert n <= 24 and 1 + n * n <= CODE_MASK
        # the mills through each point: (index in board.mills, mask, mask without the point)
        self.through = [
            [(k, m, m & ~(1 << p)) for k, m in enumerate(self.mills) if (m >> p) & 1] for p in range(n)
        ]
        assert all(len(t) <= 4 for t in self.through)  # a running-mill record's mills: 4 bits
        self._moves_key: tuple[int, int] | None = None
        self._moves: list = []

    # -- records -----------------------------------------------------------------------------------
    def encode(self, ban: Ban | None) -> int:
        if ban is None:
            return 0
        if ban.frm >= 0:
            return 1 + ban.frm * self.n + ban.to
        local = 0
        for j, (k, _, _) in enumerate(self.through[ban.to]):
            if k in ban.mills:
                local |= 1 << j
        assert local and bin(local).count("1") == len(ban.mills), ban
        return 1 + 16 * ban.to + local

    def decode(self, code: int) -> Ban | None:
        if code == 0:
            return None
        if self.kind == "same-man":
            q, p = divmod(code - 1, self.n)
            return Ban(q, p)
        p, local = divmod(code - 1, 16)
        return Ban(-1, p, tuple(k for j, (k, _, _) in enumerate(self.through[p]) if (local >> j) & 1))

    def point(self, code: int) -> int:
        """The point a record keeps its owner from re-entering (``p``)."""
        return (code - 1) % self.n if self.kind == "same-man" else (code - 1) // 16

    def _reach(self, owner: int, p: int, flying: bool) -> int:
        """The owner's men that may move to ``p`` (empty): its neighbours, or every man in flight."""
        return owner if flying else owner & self.neighbours[p]

    def _flies(self, owner: int) -> bool:
        return self.flying and owner.bit_count() == 3

    def live(self, code: int, owner: int, other: int) -> int:
        """The record ``code`` of ``owner`` made canonical in this position (``owner`` as if to
        move): itself, with the running-mill's dead mills dropped, or 0 when it forbids nothing."""
        if code == 0:
            return 0
        if self.kind == "same-man":
            q, p = divmod(code - 1, self.n)
            if not (owner >> q) & 1 or ((owner | other) >> p) & 1:
                return 0
            if not self._flies(owner) and not (self.neighbours[p] >> q) & 1:
                return 0
            for _, m, rest in self.through[p]:
                if owner & rest == rest and not (m >> q) & 1:
                    return code
            return 0
        p, local = divmod(code - 1, 16)
        if ((owner | other) >> p) & 1:
            return 0
        reach = self._reach(owner, p, self._flies(owner))
        keep = 0
        for j, (_, m, rest) in enumerate(self.through[p]):
            if (local >> j) & 1 and owner & rest == rest and reach & ~m:
                keep |= 1 << j
        return 1 + 16 * p + keep if keep else 0

    def records(self, owner: int, other: int) -> list[int]:
        """Every live record of ``owner`` in this position (``owner`` as if to move), ascending."""
        if self.kind == "allowed":
            return []
        empty = self.full & ~(owner | other)
        flies = self._flies(owner)
        out = []
        for p in bits(empty):
            live = [(m, rest) for _, m, rest in self.through[p] if owner & rest == rest]
            if not live:
                continue
            reach = self._reach(owner, p, flies)
            if self.kind == "same-man":
                for q in bits(reach):
                    if any(not (m >> q) & 1 for m, _ in live):
                        out.append(1 + q * self.n + p)
            else:
                ok = 0
                for j, (_, m, rest) in enumerate(self.through[p]):
                    if owner & rest == rest and reach & ~m:
                        ok |= 1 << j
                sub = ok
                while sub:  # every non-empty subset of the mills some move closes
                    out.append(1 + 16 * p + sub)
                    sub = (sub - 1) & ok
        out.sort()
        return out

    def _made(self, mover: int, frm: int, to: int, after: int) -> int:
        """The record a move frm-to makes for its mover (``mover`` before, ``after`` after it)."""
        if self.kind == "allowed":
            return 0
        left = 0  # the mills through frm the move opens
        for j, (_, m, _) in enumerate(self.through[frm]):
            if mover & m == m:
                left |= 1 << j
        if not left:
            return 0
        if self.kind == "same-man":
            return 1 + to * self.n + frm
        if self.mills_closed(after, to) == 0:
            return 0  # running-mill: only a move that also closes a mill
        return 1 + 16 * frm + left

    def forbids(self, ban: int, frm: int, to: int, after: int) -> bool:
        """Whether the active record ``ban`` forbids the move frm-to (``after``: the mover's men
        after it)."""
        if ban == 0:
            return False
        if self.kind == "same-man":
            q, p = divmod(ban - 1, self.n)
            return frm == q and to == p
        p, local = divmod(ban - 1, 16)
        if to != p:
            return False
        for j, (_, m, _) in enumerate(self.through[p]):
            if (local >> j) & 1 and after & m == m:
                return True
        return False

    # -- moves -------------------------------------------------------------------------------------
    def _arrivals_from(self, mover: int) -> list[tuple[int, int, int, int, int]]:
        """(frm, to, the mover's men after, removals owed, record made) of every slide or flight,
        whatever the opponent holds; the last mover asked for is remembered."""
        if self._moves_key == mover:
            return self._moves
        out = []
        free = self.full & ~mover
        flying = self.flying and mover.bit_count() == 3
        for frm in bits(mover):
            rest = mover & ~(1 << frm)
            for to in bits(free if flying else self.neighbours[frm] & free):
                after = rest | (1 << to)
                out.append((frm, to, after, self._owed(after, to), self._made(mover, frm, to, after)))
        self._moves_key, self._moves = mover, out
        return out

    def moves(self, mover: int, opp: int, hand: int = 0):  # type: ignore[override]
        """Every slide or flight (no bans, no pass): ``(frm, to, mover_after, opp_after, made)``,
        one per distinct removal."""
        assert hand == 0
        out = []
        for frm, to, after, owed, made in self._arrivals_from(mover):
            if (opp >> to) & 1:
                continue
            if owed == 0:
                out.append((frm, to, after, opp, made))
            else:
                for opp_after in self._removals(opp, owed):
                    out.append((frm, to, after, opp_after, made))
        return out

    def legal(self, mover: int, opp: int, ban: int = 0) -> list:
        """The moves ``ban`` leaves (``moves``' rows); a pass is not listed."""
        return [mv for mv in self.moves(mover, opp) if not self.forbids(ban, mv[0], mv[1], mv[2])]

    def successors(self, mover: int, opp: int, ban: int = 0, pending: int = 0):
        """The state after each legal move, seen from the new side to move: ``(mover', opp', ban',
        pending')``, or None when the new side to move has fewer than 3 men (lost at once). A pass
        (blocked=passes, no legal move) keeps the board and makes no record. Empty when the side
        to move is blocked and loses. Does not test for a game over."""
        out = []
        legal = self.legal(mover, opp, ban)
        for _, _, m2, o2, made in legal:
            if o2.bit_count() < 3:
                out.append(None)
            else:
                out.append((o2, m2, self.live(pending, o2, m2), made))
        if not legal and self.passes:
            out.append((opp, mover, self.live(pending, opp, mover), 0))
        return out

    def states(self, mover: int, opp: int) -> list[int]:
        """The admissible state codes (``ban << 10 | pending``) of a position, ascending."""
        bans = [0] + self.records(mover, opp)
        pendings = [0] + self.records(opp, mover)
        out = []
        for b in bans:
            pb = self.point(b) if b else -1
            for q in pendings:
                if q == 0 or b == 0 or self.point(q) != pb:
                    out.append(b << CODE_BITS | q)
        return out


# ---------------------------------------------------------------------------------------------
# The moving phase
# ---------------------------------------------------------------------------------------------


class HSubspace(NamedTuple):
    """The states of one subspace, sorted by (mover, opp, ban, pending)."""

    mover: np.ndarray  # int64
    opp: np.ndarray
    ban: np.ndarray  # int16 record codes, 0 for none
    pending: np.ndarray
    plies: np.ndarray  # int32, -1 for draws
    value: np.ndarray  # int8

    def plain(self) -> Subspace:
        """The states without a ban: the plain positions, as ``reference.Subspace``."""
        sel = (self.ban == 0) & (self.pending == 0)
        return Subspace(self.mover[sel], self.opp[sel], self.plies[sel], self.value[sel])


class _Moving:
    """Every plain position of the moving subspaces ``subs``: their numbers in one global order."""

    def __init__(self, rules: RuleSet, subs: list[tuple[int, int]]):
        n = rules.board_data.n
        self.subs = sorted(subs)
        self.number = {s: k for k, s in enumerate(self.subs)}
        self.movers, self.opps, keys, offsets = [], [], [], [0]
        for k, (a, b) in enumerate(self.subs):
            m, o = enumerate_subspace(n, a, b)
            self.movers.append(m)
            self.opps.append(o)
            keys.append((np.int64(k) << 48) | (m << _SHIFT) | o)
            offsets.append(offsets[-1] + len(m))
        self.keys = np.concatenate(keys) if keys else np.zeros(0, np.int64)
        self.offsets = np.array(offsets, dtype=np.int64)

    def index(self, board_keys: np.ndarray) -> np.ndarray:
        """Global plain numbers of ``k << 48 | mover << 24 | opp`` keys (asserted present)."""
        i = np.searchsorted(self.keys, board_keys)
        assert np.array_equal(self.keys.take(i, mode="clip"), board_keys), "a successor outside the subspaces"
        return i


def _group_graph(gen: HistoryGen, space: _Moving, group: list[tuple[int, int]], solved: dict, chunk: int = 20_000):
    """The graph of every admissible state of the subspaces ``group``; successors elsewhere are
    looked up in ``solved`` ({subspace: (state keys, value, plies)}). Returns (graph, state keys).
    The states are listed first; their successors are then found ``chunk`` positions at a time, so
    that only the int32 successor numbers of the whole group are held."""
    rules = gen.rules
    number = space.number
    group = sorted(group)
    group_numbers = [number[s] for s in group]
    succ_number = {s: k << 48 for s, k in number.items()}  # a successor's subspace, by its counts

    # pass 1: the states, in key order (position, then ban, then pending)
    key_parts, per_position, offsets = [], [], [0]
    for sub in group:
        k = number[sub]
        base = int(space.offsets[k])
        keys_k, count_k = array("q"), array("q")
        for lo in range(0, len(space.movers[k]), chunk):
            movers, opps = space.movers[k][lo : lo + chunk].tolist(), space.opps[k][lo : lo + chunk].tolist()
            for i, (m, o) in enumerate(zip(movers, opps), start=lo):
                codes = gen.states(m, o)
                gidx = (base + i) << _IDX_SHIFT
                keys_k.extend([gidx | c for c in codes])
                count_k.append(len(codes))
        key_parts.append(np.frombuffer(keys_k, dtype=np.int64) if len(keys_k) else np.zeros(0, np.int64))
        per_position.append(np.frombuffer(count_k, dtype=np.int64) if len(count_k) else np.zeros(0, np.int64))
        offsets.append(offsets[-1] + len(key_parts[-1]))
    keys = np.concatenate(key_parts) if key_parts else np.zeros(0, np.int64)
    del key_parts
    assert np.all(np.diff(keys) > 0)
    size = len(keys)
    mover_all = np.concatenate([space.movers[number[s]] for s in group])
    opp_all = np.concatenate([space.opps[number[s]] for s in group])
    lost = np.zeros(size, dtype=bool)
    drawn = np.zeros(size, dtype=bool)
    wins_at_once = np.zeros(size, dtype=bool)
    n_succ = np.zeros(size, dtype=np.int64)
    least = np.full(size, Graph.NONE, dtype=np.int32)
    most = np.full(size, -1, dtype=np.int32)
    draw = np.zeros(size, dtype=bool)
    succ_parts = []
    counts_arr = np.concatenate(per_position) if per_position else np.zeros(0, np.int64)
    del per_position
    n_pos = len(counts_arr)
    first_state = np.concatenate([[0], np.cumsum(counts_arr)])
    state = 0  # the first state of the position being looked at
    s_mover = np.repeat(mover_all, counts_arr)
    s_opp = np.repeat(opp_all, counts_arr)
    for lo in range(0, n_pos, chunk):
        hi = min(n_pos, lo + chunk)
        movers_l, opps_l, counts_l = mover_all[lo:hi].tolist(), opp_all[lo:hi].tolist(), counts_arr[lo:hi].tolist()
        codes_all = (keys[first_state[lo] : first_state[hi]] & ((1 << _IDX_SHIFT) - 1)).tolist()
        state0 = state  # codes_all[c - state0] is state c's code
        e_board, e_code, e_owner = array("q"), array("q"), array("q")
        for i in range(hi - lo):
            m, o = movers_l[i], opps_l[i]
            n_states = counts_l[i]
            st = gen.ended(m, o, 0)
            if st is not None:
                (lost if st == "loss" else drawn)[state : state + n_states] = True
                state += n_states
                continue
            moves = gen.moves(m, o)
            for c in codes_all[state - state0 : state - state0 + n_states]:
                ban, pending = c >> CODE_BITS, c & CODE_MASK
                moved = False  # any legal move
                for frm, to, m2, o2, made in moves:
                    if ban and gen.forbids(ban, frm, to, m2):
                        continue
                    moved = True
                    b2 = o2.bit_count()
                    if b2 < 3:  # the opponent is left with fewer than 3 men
                        wins_at_once[state] = True
                        continue
                    e_board.append(succ_number[(b2, m2.bit_count())] | (o2 << _SHIFT) | m2)
                    e_code.append((gen.live(pending, o2, m2) << CODE_BITS) | made if pending else made)
                    e_owner.append(state)
                if not moved:
                    if gen.passes:  # the pass: the board stays, the pending ban turns active
                        e_board.append(succ_number[(o.bit_count(), m.bit_count())] | (o << _SHIFT) | m)
                        e_code.append(gen.live(pending, o, m) << CODE_BITS)
                        e_owner.append(state)
                    else:
                        lost[state] = True
                state += 1
        if not len(e_board):
            continue
        board = np.frombuffer(e_board, dtype=np.int64)
        skey = (space.index(board) << _IDX_SHIFT) | np.frombuffer(e_code, dtype=np.int64)
        owner = np.frombuffer(e_owner, dtype=np.int64)
        sub_of = board >> 48
        del board
        in_group = np.isin(sub_of, group_numbers)
        inner = skey[in_group]
        succ = np.searchsorted(keys, inner)
        assert np.array_equal(keys.take(succ, mode="clip"), inner), "a successor state missing from the group"
        succ_parts.append(succ.astype(np.int32))
        n_succ += np.bincount(owner[in_group], minlength=size)
        out_key, out_owner, out_sub = skey[~in_group], owner[~in_group], sub_of[~in_group]
        for t in np.unique(out_sub).tolist():
            sel = out_sub == t
            tkeys, tvalue, tplies = solved[space.subs[t]]
            j = np.searchsorted(tkeys, out_key[sel])
            assert np.array_equal(tkeys.take(j, mode="clip"), out_key[sel]), "a successor missing from a solved subspace"
            fold_solved(tvalue[j], tplies[j], out_owner[sel], least, most, draw)
    assert state == size
    # the edges came owner by owner, in order: they are already the rows of a CSR graph
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(n_succ, out=indptr[1:])
    g = Graph(
        rules=rules,
        subspaces=group,
        offsets=np.array(offsets, dtype=np.int64),
        mover=s_mover,
        opp=s_opp,
        lost=lost,
        wins_at_once=wins_at_once,
        indptr=indptr,
        succ=np.concatenate(succ_parts) if succ_parts else np.zeros(0, np.int32),
        drawn=drawn,
        ext_least_loss=least,
        ext_most_win=most,
        ext_draw=draw,
    )
    return g, keys


def moving_groups(rules: RuleSet, subs) -> list[list[tuple[int, int]]]:
    """The subspaces in solving order: {(a, b), (b, a)} together (moves lead from one to the
    other), by the men on the board, fewest first (a removal lowers it)."""
    subs = sorted(set(subs))
    seen, out = set(), []
    for a, b in sorted(subs, key=lambda s: (s[0] + s[1], s)):
        if (a, b) in seen:
            continue
        group = sorted({(a, b), (b, a)} & set(subs))
        seen |= set(group)
        out.append(group)
    return out


def solve_history(
    rules: RuleSet, max_men: int | None = None, subspaces=None, check: bool = False, progress: bool = False, report=None
) -> dict[tuple[int, int], HSubspace]:
    """Every admissible state of the moving subspaces (a, b), 3 <= a, b <= max_men (default
    rules.men), or of ``closure(subspaces)``: {(a, b): HSubspace}. ``check``: assert
    ``reference.check_solution`` on each group (the defining equations on every state)."""
    if subspaces is None:
        top = rules.men if max_men is None else max_men
        subspaces = [(a, b) for a in range(3, top + 1) for b in range(3, top + 1)]
    subs = closure(rules, subspaces)
    gen = HistoryGen(rules)
    space = _Moving(rules, subs)
    solved: dict = {}
    result: dict = {}
    for group in moving_groups(rules, subs):
        t0 = time.perf_counter()
        g, keys = _group_graph(gen, space, group, solved)
        t1 = time.perf_counter()
        value, plies, solve_s = solve_group(g, check)
        t2 = t1 + solve_s
        if progress:
            print(f"  {group}: {g.size} states, {len(g.succ)} edges inside; build {t1 - t0:.1f} s, "
                  f"solve {t2 - t1:.1f} s", flush=True)
        if report is not None:
            report(group, g, t1 - t0, t2 - t1)
        for k, sub in enumerate(g.subspaces):
            lo, hi = int(g.offsets[k]), int(g.offsets[k + 1])
            codes = keys[lo:hi] & ((1 << _IDX_SHIFT) - 1)
            result[sub] = HSubspace(
                g.mover[lo:hi].copy(),
                g.opp[lo:hi].copy(),
                (codes >> CODE_BITS).astype(np.int16),
                (codes & CODE_MASK).astype(np.int16),
                plies[lo:hi],
                value[lo:hi],
            )
            solved[sub] = (keys[lo:hi].copy(), value[lo:hi], plies[lo:hi])
    return result


def solve_history_whole(
    rules: RuleSet, check: bool = False, progress: bool = False, report=None
) -> dict[tuple, HSubspace | Subspace]:
    """The whole game from the start: {tier (a, b, ha, hb): ...}, the moving tiers (hands 0 0)
    as ``HSubspace`` (every admissible state), the placing tiers as ``reference.Subspace``. No ban
    arises while men are in hand (no man moves then) and the first position of the moving phase
    carries none, so the placing tiers are plain positions, solved by ``reference``'s own graph
    of placements with their successors in the moving phase valued as the plain states solved
    here (``_build``'s tiers solved before)."""
    if rules.lasker == "on" and rules.reclose != "allowed":
        raise ValueError("the history rule with Lasker's rule (a ban made while men are in hand) is not supported")
    tiers = whole_closure(rules, [(0, 0, rules.men, rules.men)])
    moving = [(a, b) for a, b, ha, hb in tiers if ha == 0 and hb == 0]
    t0 = time.perf_counter()
    moving_result = solve_history(rules, subspaces=moving, check=check, progress=progress, report=report)
    number = {t: k for k, t in enumerate(tiers)}
    out: dict = {}
    solved: dict = {}
    for (a, b), hs in moving_result.items():
        out[(a, b, 0, 0)] = hs
        if (a, b, 0, 0) in number:
            p = hs.plain()
            solved[number[(a, b, 0, 0)]] = ((p.mover << _SHIFT) | p.opp, p.value, p.plies)
    if progress:
        print(f"  moving phase: {time.perf_counter() - t0:.1f} s", flush=True)
    for group in tier_components(rules, tiers):
        if all(t[2] == 0 and t[3] == 0 for t in group):
            continue
        assert not any(t[2] == 0 and t[3] == 0 for t in group)
        t1 = time.perf_counter()
        g = _build(rules, tiers, group, solved=solved)
        value, plies, _ = solve_group(g, check)
        if report is not None:
            report(group, g, time.perf_counter() - t1, 0.0)
        for t, s in split(g, value, plies).items():
            out[t] = s
            solved[number[t]] = ((s.mover << _SHIFT) | s.opp, s.value, s.plies)
    if progress:
        print(f"  whole game: {time.perf_counter() - t0:.1f} s", flush=True)
    return out


@lru_cache(maxsize=16)
def cached_history(rules: RuleSet, max_men: int | None = None, subspaces: tuple | None = None, whole: bool = False):
    """``solve_history`` (or ``solve_history_whole``) remembered; read-only arrays."""
    if whole:
        result = solve_history_whole(rules)
    else:
        result = solve_history(rules, max_men=max_men, subspaces=None if subspaces is None else list(subspaces))
    for s in result.values():
        for arr in s:
            arr.flags.writeable = False
    return result


def lookup_history(result: dict, mover: int, opp: int, ban: int = 0, pending: int = 0) -> tuple[str, int | None]:
    """("win" | "draw" | "loss", plies or None) of one state of the moving phase (``result`` of
    either solve). The records must be canonical (``HistoryGen.live``); a side to move with fewer
    than 3 men has lost in 0 plies."""
    if mover.bit_count() < 3:
        return "loss", 0
    a, b = mover.bit_count(), opp.bit_count()
    s = result[(a, b, 0, 0)] if (a, b, 0, 0) in result else result[(a, b)]
    lo = int(np.searchsorted(s.mover, mover, side="left"))
    hi = int(np.searchsorted(s.mover, mover, side="right"))
    lo += int(np.searchsorted(s.opp[lo:hi], opp, side="left"))
    hi = lo + int(np.searchsorted(s.opp[lo:hi], opp, side="right"))
    code = (ban << CODE_BITS) | pending
    codes = (s.ban[lo:hi].astype(np.int64) << CODE_BITS) | s.pending[lo:hi]
    j = int(np.searchsorted(codes, code))
    if j >= len(codes) or int(codes[j]) != code:
        raise KeyError((mover, opp, ban, pending))
    v = int(s.value[lo + j])
    return VALUE_NAMES[v], (None if v == DRAW else int(s.plies[lo + j]))


def ban_changes(result: dict, plain: dict) -> dict:
    """Per subspace or tier of ``result`` found in ``plain`` (the plain reference's solution of
    the same game): {positions, states (with their records), changed (plain positions whose value
    differs), deeper (same value, other plies), wins, draws, losses (of the plain positions, with
    the ban)}."""
    out = {}
    for key, s in sorted(result.items()):
        p = s.plain() if isinstance(s, HSubspace) else s
        ref = plain.get(key)
        if ref is None:
            continue
        assert np.array_equal(p.mover, ref.mover) and np.array_equal(p.opp, ref.opp), key
        same = p.value == ref.value
        out[key] = {
            "positions": len(p.value),
            "states": len(s.value),
            "changed": int((~same).sum()),
            "deeper": int((same & (p.plies != ref.plies)).sum()),
            "wins": int((p.value == WIN).sum()),
            "draws": int((p.value == DRAW).sum()),
            "losses": int((p.value == LOSS).sum()),
        }
    return out


def _main(argv=None) -> None:
    """python tests/reference_history.py RULES [-o K=V ...] [--whole | --max-men N | --subspace A,B]"""
    import argparse

    from solver.rules import make_rules

    ap = argparse.ArgumentParser(description="Solve a game under the history rule with the plain reference.")
    ap.add_argument("rules")
    ap.add_argument("-o", "--option", action="append", default=[], help="NAME=VALUE (repeatable)")
    ap.add_argument("--whole", action="store_true", help="the whole game from the start")
    ap.add_argument("--max-men", type=int)
    ap.add_argument("--subspace", action="append", default=[], help="A,B (repeatable)")
    ap.add_argument("--check", action="store_true", help="assert the defining equations on every state")
    args = ap.parse_args(argv)
    rules = make_rules(args.rules, args.option)
    plain_rules = replace(rules, reclose="allowed")
    readings = [rules.reclose] if rules.reclose != "allowed" else ["same-man", "running-mill"]
    subspaces = [tuple(int(x) for x in s.split(",")) for s in args.subspace] or None
    t0 = time.perf_counter()
    if args.whole:
        plain = solve_whole_reference(plain_rules)
    else:
        top = args.max_men or rules.men
        subs = subspaces or [(a, b) for a in range(3, top + 1) for b in range(3, top + 1)]
        plain = solve_reference(plain_rules, subspaces=subs)
    print(f"{plain_rules.describe()}: the plain reference, {time.perf_counter() - t0:.1f} s", flush=True)
    for reading in readings:
        rules = replace(plain_rules, reclose=reading)
        t0 = time.perf_counter()
        if args.whole:
            result = solve_history_whole(rules, check=args.check, progress=True)
        else:
            result = solve_history(rules, max_men=args.max_men, subspaces=subspaces, check=args.check, progress=True)
        print(f"{rules.describe()} {'whole game' if args.whole else 'moving phase'}: {time.perf_counter() - t0:.1f} s")
        if args.whole:
            start = (0, 0, rules.men, rules.men)
            s, p = result[start], plain[start]
            name = lambda v, d: VALUE_NAMES[int(v)] + ("" if v == DRAW else f" in {int(d)}")  # noqa: E731
            print(f"start: {name(s.value[0], s.plies[0])} (plain: {name(p.value[0], p.plies[0])})")
            first = (0, 1, rules.men, rules.men - 1)
            r, q = result[first], plain[first]
            print(
                f"first placements: {int((r.value == DRAW).sum())} of {len(r.value)} draw "
                f"(plain: {int((q.value == DRAW).sum())}); values changed {int((r.value != q.value).sum())}"
            )
        total = {"positions": 0, "states": 0, "changed": 0, "deeper": 0}
        print("subspace: positions states changed deeper | wins draws losses (plain positions, with the rule)")
        for key, row in ban_changes(result, plain).items():
            for k in total:
                total[k] += row[k]
            if row["states"] != row["positions"] or row["changed"] or row["deeper"]:
                counts = [row[k] for k in ("positions", "states", "changed", "deeper")]
                print(key, *counts, "|", row["wins"], row["draws"], row["losses"])
        print("total:", total, "(tiers not listed: every value as in the plain game, no ban)", flush=True)


if __name__ == "__main__":
    _main()
