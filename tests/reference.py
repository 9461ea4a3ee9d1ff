"""A slow, plain reference solver, to check the fast engine against: the moving phase, and whole
games (placing, moving, Lasker's rule).

Everything here is written from the board data alone (``solver.rules.boards`` and the options of a
``solver.rules.RuleSet``); nothing comes from ``solver.rules.movegen`` or ``solver.rules.game``. There is no
symmetry reduction: every position is solved separately.

A position of the moving phase is a pair of point masks ``(mover, opp)``: the men of the side to
move and of its opponent, bit ``i`` = point ``i`` of the board (``board.index``). All men are on the
board. Subspace ``(a, b)`` holds every position with ``a`` men of the side to move and ``b`` of the
opponent.

A position of the whole game adds the men each side still has in hand: ``(mover, opp, hand_mover,
hand_opp)``. Tier ``(a, b, ha, hb)`` holds every board with ``a`` men of the side to move and ``b``
of the opponent, with ``ha`` and ``hb`` men in hand; the moving phase is the tiers ``(a, b, 0, 0)``.
A side with men in hand places one (or, under Lasker's rule, places or moves); after a move the
position seen from the new side to move is ``(opp', mover', hb, ha - placed)``; a pass (blocked=
passes) leaves boards and hands alone and hands the turn over.

Values (docs/rules.md, "Values"), for the side to move:

- lost in 0 plies: the side to move has fewer than 3 men on the board and in hand, or (mill-wins)
  the opponent has a mill on the board, or it has no legal move (blocked=loses);
- a draw at once (full-board=draw): every point of the board is taken, whatever the hands (Twelve
  Men's Morris); with full-board=blocked that is just a position without moves;
- win in ``1 + min`` plies over the successors that are losses (a successor whose new side to move
  has fewer than 3 men counts as lost in 0);
- loss in ``1 + max`` plies over the successors when all of them are wins;
- draw otherwise.

Removals (docs/rules.md): a move that closes a mill removes one opponent man; under
``double-mill=per-mill`` it removes one man per mill it closes, however many (no cap: on the diagonal
board a placement can close three). The reference knows how many mills a move closes by counting
them itself: the mills of the board's mill list (``board.mills``) that pass through the destination
point and are complete for the mover once its man stands there. Nothing comes from the solver's
``mills_formed`` or its move rows. The men are removed one after another, each chosen among the men
removable at that moment (removing one can break a mill of the opponent), and a move is one
distinct position after it, so orders that reach the same men are one move.

Solved level by level: level 0 is the positions already lost; at level L every undecided position
with a successor lost at L-1 becomes a win at L, and every undecided position whose successors are
all wins, the longest at L-1, becomes a loss at L (both judged on the state after level L-1). A
level that decides nothing ends the iteration; what is left is a draw. A graph may also carry
successors outside it whose values are already known (``Graph.ext_*``): they take part in the same
levels. The whole game is solved that way one strongly connected group of tiers at a time, the
groups that others lead to first (a placement empties a hand for good, a removal takes a man for
good, so only moves and passes lead back into a group).

API
---
``solve_reference(rules, max_men=None, subspaces=None, workers=1) -> dict[(a, b), Subspace]``
    ``Subspace(mover, opp, plies, value)``: numpy arrays, sorted by ``(mover, opp)``; ``value`` is
    ``WIN`` (1), ``DRAW`` (0) or ``LOSS`` (-1), ``plies`` is -1 for draws. Without ``subspaces``,
    every (a, b) with 3 <= a, b <= max_men (default ``rules.men``); with ``subspaces`` (e.g.
    ``[(3, 3)]``) just those and the subspaces they lead to (``closure``).
``cached_solve(rules, max_men=None, subspaces=None)``: the same, remembered (read-only arrays).
``lookup(result, mover, opp) -> ("win" | "draw" | "loss", plies or None)``
``summary(result) -> {(a, b): {positions, wins, draws, losses, longest_win, longest_loss}}``
``MoveGen(rules).moves(mover, opp, hand=0)``: the positions after each legal move (seen from the
    mover); ``MoveGen(rules).is_lost(mover, opp, moves=None, hand=0)``: whether the side to move has
    already lost; ``status(...)``: "loss", "draw" (a full board) or None.
``build_graph(rules, subspaces)`` -> ``Graph``, ``solve_graph(graph) -> (value, plies)``,
``split(graph, value, plies)`` -> the dict above; ``check_solution(graph, value, plies)`` asserts
    the defining equations on every position (an engine's values in the graph's order can be
    checked the same way).
``masks(board, "a1 d1 g1", "a4 b4 c4") -> (mover, opp)``

Whole games (``Tier = (a, b, ha, hb)``):

``tier_successors(rules, tier)``, ``whole_closure(rules, tiers)``: the tiers moves can lead to,
    from the tier numbers alone (tiers whose new side to move has fewer than 3 men are left out).
``reachable_tiers(rules)``: the tiers of the positions reachable from the start, by a forward
    search over positions.
``solve_whole_reference(rules, tiers=None, workers=1, progress=False) -> dict[Tier, Subspace]``:
    every position of ``whole_closure(rules, tiers)``, default the whole game from the start
    ``(0, 0, men, men)``, one group of tiers at a time (``tier_components``); ``check=True``
    asserts ``check_solution`` on each group. ``cached_whole(rules, tiers=None)``: the same,
    remembered.
``lookup_whole(result, mover, opp, hand_mover, hand_opp)``, ``start_value(result, rules)``.
``build_whole_graph(rules, tiers=None)``: the whole closure as one graph (``build_graph`` with
    4-tuples does the same), to check a solution against (``whole_values(graph, result)``).

Command line: ``python tests/reference.py six --max-men 4``,
``python tests/reference.py standard --subspace 3,3 [--option flying=never] [-j 2]``,
``python tests/reference.py three --whole``, ``python tests/reference.py six --whole -o men=4 -j 2``,
``python tests/reference.py twelve --whole --tier 11,11,1,1``.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
import time
from typing import NamedTuple

import numpy as np

from solver.rules import RuleSet

WIN, DRAW, LOSS = 1, 0, -1
VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}

Tier = tuple[int, int, int, int]


# ---------------------------------------------------------------------------------------------
# Move generation, in plain Python
# ---------------------------------------------------------------------------------------------


_BITS: dict[int, list[int]] = {}


def bits(mask: int) -> list[int]:
    """The point indices set in ``mask``, lowest first (cached: treat the list as read-only)."""
    out = _BITS.get(mask)
    if out is None:
        if len(_BITS) > 500_000:
            _BITS.clear()
        out = _BITS[mask] = _bits(mask)
    return out


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask  # the lowest set bit
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def masks(board, mover_points: str, opp_points: str) -> tuple[int, int]:
    """``masks(board, "a1 d1 g1", "a4 b4 c4")`` -> (mover mask, opponent mask)."""

    def one(text: str) -> int:
        m = 0
        for name in text.split():
            m |= 1 << board.index[name]
        return m

    return one(mover_points), one(opp_points)


class MoveGen:
    """Legal moves under a rule set, from the board data only: slides and flights of the moving
    phase, and with men in hand placements (or, under Lasker's rule, placements and moves)."""

    def __init__(self, rules: RuleSet):
        board = rules.board_data
        self.rules = rules
        self.n = len(board.points)
        self.full = (1 << self.n) - 1
        self.neighbours = [sum(1 << j for j in nb) for nb in board.neighbours]
        self.mills = [sum(1 << board.index[p] for p in mill) for mill in board.mills]
        # the mills through each point
        self.mills_at = [[m for m in self.mills if (m >> i) & 1] for i in range(self.n)]
        self.flying = rules.flying == "at-3"
        assert rules.flying in ("at-3", "never")
        self.forfeit = rules.removal_from_mills == "forfeit"
        assert rules.removal_from_mills in ("any", "forfeit")
        self.per_mill = rules.double_mill == "per-mill"
        assert rules.double_mill in ("one", "per-mill")
        self.optional = rules.removal == "optional"
        assert rules.removal in ("compulsory", "optional")
        self.passes = rules.blocked == "passes"
        assert rules.blocked in ("loses", "passes")
        self.mill_wins = rules.mill_wins == "on"
        assert rules.mill_wins in ("off", "on")
        self.lasker = rules.lasker == "on"  # with men in hand: place or move
        assert rules.lasker in ("off", "on")
        self.full_draw = rules.full_board == "draw"  # a full board is a draw at once
        assert rules.full_board in ("draw", "blocked")
        # caches: the arrivals of the last (mover, hand) asked for, and removal outcomes per opponent
        self._arrivals_key: tuple[int, int] | None = None
        self._arrivals: list[tuple[int, int, int]] = []
        self._removal_cache: dict[tuple[int, int], tuple[int, ...]] = {}

    # -- mills and removals ----------------------------------------------------------------------
    def men_in_mills(self, men: int) -> int:
        """The men of ``men`` that stand in one of its (complete) mills."""
        out = 0
        for m in self.mills:
            if men & m == m:
                out |= m
        return out

    def has_mill(self, men: int) -> bool:
        return any(men & m == m for m in self.mills)

    def removable(self, opp: int) -> list[int]:
        """The opponent men that one removal may take (as single-bit masks). Men outside mills;
        when every man stands in a mill, any man (standard) or none: the removal is forfeited."""
        in_mills = self.men_in_mills(opp)
        outside = opp & ~in_mills
        if outside:
            return [1 << i for i in bits(outside)]
        if self.forfeit:
            return []
        return [1 << i for i in bits(opp)]

    def after_removals(self, opp: int, count: int) -> set[int]:
        """The opponent's men after ``count`` removals (1, or one per mill closed under per-mill),
        each chosen after the one before under the mill rule. With optional removal the mover
        may stop before any of them. A forfeited removal leaves the men as they are."""
        outcomes = {opp}
        for _ in range(count):
            nxt = set()
            for o in outcomes:
                choices = self.removable(o)
                if not choices:  # forfeited: nothing to remove
                    nxt.add(o)
                for man in choices:
                    nxt.add(o & ~man)
            if self.optional:
                nxt |= outcomes
            outcomes = nxt
        return outcomes

    def _removals(self, opp: int, count: int) -> tuple[int, ...]:
        """sorted(after_removals(opp, count)), remembered."""
        key = (opp, count)
        out = self._removal_cache.get(key)
        if out is None:
            if len(self._removal_cache) > 300_000:
                self._removal_cache.clear()
            out = self._removal_cache[key] = tuple(sorted(self.after_removals(opp, count)))
        return out

    def mills_closed(self, after: int, to: int) -> int:
        """The mills through ``to`` that a man arriving there completes (``after``: the mover's men
        with it)."""
        formed = 0
        for m in self.mills_at[to]:
            if after & m == m:
                formed += 1
        return formed

    # -- moves ------------------------------------------------------------------------------------
    def arrivals(self, mover: int, hand: int = 0) -> list[tuple[int, int, int]]:
        """Every way a man of the mover can arrive on a point not its own, whatever the opponent
        holds: ``(bit of the point, the mover's men after, removals owed)`` in the order of the move
        list (placements by point, then moves by origin and point). Removals owed: 0 without a
        mill (or under mill-wins, where the mill wins without one), else 1, or one per mill closed
        under per-mill. The last (mover, hand) is remembered: positions come sorted by mover."""
        key = (mover, hand)
        if key == self._arrivals_key:
            return self._arrivals
        out = []
        free = self.full & ~mover
        if hand:
            for to in bits(free):
                after = mover | (1 << to)
                out.append((1 << to, after, self._owed(after, to)))
        if not hand or self.lasker:
            flying = self.flying and mover.bit_count() + hand == 3
            for frm in bits(mover):
                rest = mover & ~(1 << frm)
                for to in bits(free if flying else self.neighbours[frm] & free):
                    after = rest | (1 << to)
                    out.append((1 << to, after, self._owed(after, to)))
        self._arrivals_key, self._arrivals = key, out
        return out

    def _owed(self, after: int, to: int) -> int:
        formed = self.mills_closed(after, to)
        if formed == 0 or self.mill_wins:
            # (under mill-wins a mill wins at once, without a removal: the opponent to move faces
            # a mill and has lost)
            return 0
        return formed if self.per_mill else 1  # per-mill: one removal per mill closed, however many

    def moves(self, mover: int, opp: int, hand: int = 0) -> list[tuple[int, int]]:
        """The positions after every legal move, as ``(mover_after, opp_after)`` (still from the
        mover's side), one per distinct result. A blocked side that passes gets ``(mover, opp)``.
        Empty when the side to move is blocked and blocked=loses. Does not test for a game over.
        ``hand``: the mover's men in hand: a side with men in hand places one on an empty point,
        or under Lasker's rule places or moves (and flies when its men on the board and in hand
        make 3)."""
        out: list[tuple[int, int]] = []
        for to_bit, after, owed in self.arrivals(mover, hand):
            if opp & to_bit:
                continue
            if owed == 0:
                out.append((after, opp))
            else:
                for opp_after in self._removals(opp, owed):
                    out.append((after, opp_after))
        if not out and self.passes:
            out.append((mover, opp))  # the pass: the opponent moves next
        return out

    def is_drawn(self, mover: int, opp: int) -> bool:
        """A full board under full-board=draw: the game is over, drawn (whatever the hands)."""
        return self.full_draw and (mover | opp) == self.full

    def ended(self, mover: int, opp: int, hand: int = 0) -> str | None:
        """``status`` as far as it can be told without the moves: "loss" (fewer than 3 men, or
        the opponent's mill under mill-wins), "draw" (a full board), else None."""
        if mover.bit_count() + hand < 3:
            return "loss"
        if self.mill_wins and self.has_mill(opp):
            return "loss"
        if self.is_drawn(mover, opp):
            return "draw"
        return None

    def status(self, mover: int, opp: int, hand: int = 0, moves: list | None = None) -> str | None:
        """"loss" when the side to move has already lost (0 plies), "draw" when the game is over
        as a draw (a full board under full-board=draw), None while it goes on. A loss by men or by
        the opponent's mill comes before the full board; the full board before a lack of moves."""
        st = self.ended(mover, opp, hand)
        if st is not None:
            return st
        if moves is None:
            moves = self.moves(mover, opp, hand)
        return None if moves else "loss"  # blocked, under blocked=loses (a pass is a move otherwise)

    def is_lost(self, mover: int, opp: int, moves: list | None = None, hand: int = 0) -> bool:
        """Whether the side to move has already lost (the game is over, 0 plies)."""
        return self.status(mover, opp, hand, moves) == "loss"

    def successors(self, mover: int, opp: int) -> list[tuple[int, int]]:
        """The positions after each legal move, seen from the new side to move: (opp', mover')."""
        return [(o, m) for m, o in self.moves(mover, opp)]


# ---------------------------------------------------------------------------------------------
# Positions, subspaces and tiers
# ---------------------------------------------------------------------------------------------


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@lru_cache(maxsize=64)
def _k_subsets(n: int, k: int) -> np.ndarray:
    """Every mask of ``k`` of ``n`` points, ascending (read-only)."""
    if n <= 16 or k == 0:
        out = np.array(sorted(sum(1 << i for i in c) for c in combinations(range(n), k)), dtype=np.int64)
    else:
        out = []
        for high in range(1 << (n - 16)):  # by the high points, then every low part
            need = k - high.bit_count()
            if 0 <= need <= 16:
                out.append((high << 16) + _k_subsets(16, need))
        out = np.concatenate(out)
    out.flags.writeable = False
    return out


def enumerate_subspace(n: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position with ``a`` men of the side to move and ``b`` of the opponent on an
    ``n``-point board, sorted by (mover mask, opponent mask)."""
    empty = np.zeros(0, dtype=np.int64)
    if a < 0 or b < 0 or a + b > n:
        return empty, empty.copy()
    movers = _k_subsets(n, a)
    free_n = n - a
    sub = _k_subsets(free_n, b)  # the opponent's men as a subset of the free points, ascending
    every = _k_subsets(n, b)
    m_out, o_out = [], []
    if len(every) <= 4 * free_n * len(sub):
        # the b-subsets of the whole board that miss the mover's men, a batch of movers at a time
        batch = max(1, 8_000_000 // len(every))
        for lo in range(0, len(movers), batch):
            mv = movers[lo : lo + batch]
            rows, cols = np.nonzero((every[None, :] & mv[:, None]) == 0)  # row by row: sorted
            m_out.append(mv[rows])
            o_out.append(every[cols])
    else:
        # deposit each subset of the free points onto the mover's free points (keeps the order)
        sub_bits = (sub[:, None] >> np.arange(free_n)) & 1  # C x free_n
        batch = max(1, 4_000_000 // len(sub))
        for lo in range(0, len(movers), batch):
            mv = movers[lo : lo + batch]
            free = np.nonzero(((mv[:, None] >> np.arange(n)) & 1) == 0)[1].reshape(len(mv), free_n)
            opp = np.zeros((len(mv), len(sub)), dtype=np.int64)
            for j in range(free_n):  # subset bit j goes to the mover's j-th free point
                opp |= (np.int64(1) << free[:, j : j + 1].astype(np.int64)) * sub_bits[None, :, j]
            m_out.append(np.repeat(mv, len(sub)))
            o_out.append(opp.reshape(-1))
    if not m_out:
        return empty, empty.copy()
    return np.concatenate(m_out), np.concatenate(o_out)


def enumerate_tier(n: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The boards of any tier (a, b, ha, hb): they do not depend on the hands."""
    return enumerate_subspace(n, a, b)


@lru_cache(maxsize=256)
def most_removed(rules: RuleSet, men: int) -> int:
    """At least the most men one move of a side with ``men`` men removes: 1, or under per-mill
    one per mill closed; k mills closed at once all pass through the arriving man's point and
    their other points must hold the mover's other men (from the board's mill list)."""
    if rules.double_mill != "per-mill":
        return 1
    board = rules.board_data
    most = 1
    for p in board.points:
        through = [set(m) - {p} for m in board.mills if p in m]
        for k in range(2, len(through) + 1):
            if any(len(set().union(*ms)) <= men - 1 for ms in combinations(through, k)):
                most = max(most, k)
    return most


def closure(rules: RuleSet, subspaces) -> list[tuple[int, int]]:
    """``subspaces`` and every subspace their moves lead to (removals lower the opponent's men;
    subspaces where the side to move has fewer than 3 men are game over and left out)."""
    todo = [tuple(s) for s in subspaces]
    seen: set[tuple[int, int]] = set()
    while todo:
        a, b = todo.pop()
        if (a, b) in seen:
            continue
        assert a >= 3 and b >= 3, (a, b)
        seen.add((a, b))
        for removed in range(most_removed(rules, a) + 1):
            if b - removed >= 3:
                todo.append((b - removed, a))
    return sorted(seen)


def tier_successors(rules: RuleSet, tier) -> set[Tier]:
    """The tiers that the moves of tier ``(a, b, ha, hb)``'s positions can lead to, from the tier
    numbers and the rules alone, seen from the new side to move: a placement gives ``(b - r, a + 1,
    hb, ha - 1)``, a move or a pass ``(b - r, a, hb, ha)``, ``r`` the men removed (0 up to the most
    one move removes; none under mill-wins). Tiers whose new side to move has fewer than 3 men on
    the board and in hand are game over and left out; a tier whose side to move has already lost
    by its men, or whose board is full under full-board=draw, leads nowhere."""
    a, b, ha, hb = (int(x) for x in tier)
    n = rules.board_data.n
    out: set[Tier] = set()
    if a + ha < 3:
        return out
    if rules.full_board == "draw" and a + b == n:
        return out
    empty = a + b < n
    kinds = []  # (the mover's men on the board after, in hand after)
    if ha > 0 and empty:
        kinds.append((a + 1, ha - 1))  # placements
    if (ha == 0 or rules.lasker == "on") and a > 0 and empty:
        kinds.append((a, ha))  # slides and flights
    for a2, h2 in kinds:
        most = 0 if rules.mill_wins == "on" or a2 < 3 else most_removed(rules, a2)
        for r in range(min(most, b) + 1):
            if b - r + hb >= 3:
                out.add((b - r, a2, hb, h2))
    if rules.blocked == "passes" and not (ha > 0 and empty) and b + hb >= 3:
        out.add((b, a, hb, ha))  # a pass (placing is always possible while a point is free)
    return out


def whole_closure(rules: RuleSet, tiers, stop=()) -> list[Tier]:
    """``tiers`` and every tier reachable from them by ``tier_successors``, sorted; the tiers in
    ``stop`` are reached but not followed."""
    n = rules.board_data.n
    todo = [tuple(int(x) for x in t) for t in tiers]
    seen: set[Tier] = set()
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        assert len(t) == 4 and min(t) >= 0 and t[0] + t[1] <= n, t
        seen.add(t)
        if t not in stop:
            todo.extend(tier_successors(rules, t))
    return sorted(seen)


def tier_components(rules: RuleSet, tiers, stop=()) -> list[list[Tier]]:
    """The strongly connected groups of ``tiers`` under ``tier_successors`` (each sorted), every
    group after the groups its tiers lead to (Tarjan's algorithm, which finishes them in that
    order). ``tiers`` must be closed under ``tier_successors``, but for the tiers in ``stop``,
    which count as leading nowhere."""
    tiers = sorted(tuple(t) for t in tiers)
    succ = {t: [] if t in stop else sorted(tier_successors(rules, t)) for t in tiers}
    index: dict[Tier, int] = {}
    low: dict[Tier, int] = {}
    stack: list[Tier] = []
    on_stack: set[Tier] = set()
    out: list[list[Tier]] = []
    counter = 0
    for root in tiers:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            t, i = work.pop()
            if i == 0:
                index[t] = low[t] = counter
                counter += 1
                stack.append(t)
                on_stack.add(t)
            nexts = succ[t]
            if i < len(nexts):
                work.append((t, i + 1))
                u = nexts[i]
                if u not in index:
                    work.append((u, 0))
                elif u in on_stack:
                    low[t] = min(low[t], index[u])
                continue
            if work:  # hand the low link up to the parent
                parent = work[-1][0]
                low[parent] = min(low[parent], low[t])
            if low[t] == index[t]:
                comp = []
                while True:
                    u = stack.pop()
                    on_stack.discard(u)
                    comp.append(u)
                    if u == t:
                        break
                out.append(sorted(comp))
    return out


def reachable_tiers(rules: RuleSet, probes: int = 300, seed: int = 0) -> list[Tier]:
    """The tiers of the positions reachable from the start (empty board, White to move, both hands
    ``rules.men``), by a forward search over positions. Positions that are game over count when
    reached (they are not searched on); tiers whose side to move has fewer than 3 men on the board
    and in hand are left out.

    The search goes tier by tier, each group of tiers (``tier_components``) after the groups that
    lead to it, so a tier's reachable positions are all known when its turn comes; a tier is not
    searched on when every tier its numbers can lead to (``whole_closure`` of it) has been found
    already: no position of it can add one. ``probes`` random games played first find the tiers
    that come up often (only a shortcut: the result does not depend on them)."""
    import random

    gen = MoveGen(rules)
    start: Tier = (0, 0, rules.men, rules.men)
    tiers = whole_closure(rules, [start])
    comps = tier_components(rules, tiers)
    below: dict[Tier, set[Tier]] = {}  # every tier a tier's numbers lead to (itself included)
    for comp in comps:  # sinks first
        reach = set(comp)
        for t in comp:
            for u in tier_successors(rules, t):
                if u not in reach:
                    reach |= below[u]
        for t in comp:
            below[t] = reach

    def step(m: int, o: int, hm: int, ho: int):
        """The positions after each move (None when the game is over), as (mover, opp, hands)."""
        moves = gen.moves(m, o, hm)
        if gen.status(m, o, hm, moves) is not None:
            return None
        a = m.bit_count()
        return [(o2, m2, ho, hm - (m2.bit_count() - a)) for m2, o2 in moves]

    found: set[Tier] = {start}  # by the probes and by the search: every one reached by real moves
    rng = random.Random(seed)
    for _ in range(probes):
        pos = (0, 0, rules.men, rules.men)
        for _ in range(400):
            nxt = step(*pos)
            if not nxt:
                break
            pos = rng.choice(nxt)
            if pos[0].bit_count() + pos[2] < 3:  # the new side to move has lost
                break
            found.add((pos[0].bit_count(), pos[1].bit_count(), pos[2], pos[3]))

    # every reachable position of a tier, as mover << 24 | opp
    reached: dict[Tier, array] = {t: array("q") for t in tiers}
    reached[start].append(0)
    for comp in reversed(comps):  # sources first
        done = {t: np.zeros(0, dtype=np.int64) for t in comp}
        while True:
            progress = False
            for t in comp:
                keys = np.unique(np.frombuffer(reached[t], dtype=np.int64)) if len(reached[t]) else done[t]
                new = np.setdiff1d(keys, done[t], assume_unique=True)
                reached[t] = array("q", keys.tobytes())
                done[t] = keys
                if not len(new) or below[t] <= found:
                    continue
                progress = True
                _, _, hm, ho = t
                for key in new.tolist():
                    after = step(key >> 24, key & 0xFFFFFF, hm, ho)
                    for o2, m2, h1, h2 in after or ():
                        if o2.bit_count() + h1 < 3:
                            continue  # the new side to move has lost: nothing to store
                        u = (o2.bit_count(), m2.bit_count(), h1, h2)
                        reached[u].append((o2 << 24) | m2)
                        found.add(u)
            if not progress:
                break
        for t in comp:
            del reached[t]  # everything after this group comes from it or later groups
    return sorted(found)


def position_key(mover: int, opp: int) -> int:
    return (mover << 32) | opp


@dataclass
class Graph:
    """All positions of some subspaces (moving phase) or tiers (whole game), with their successors.

    Positions are numbered globally: subspace or tier ``subspaces[k]`` holds numbers
    ``offsets[k] .. offsets[k+1]-1``, sorted by (mover, opp); ``subspaces`` holds ``(a, b)`` pairs
    for the moving phase, ``(a, b, ha, hb)`` tiers otherwise. ``succ[indptr[i]:indptr[i+1]]`` are
    the numbers of the successors of position ``i`` that are positions of this graph; a successor
    in which the new side to move has fewer than 3 men on the board and in hand (lost at once) is
    not numbered: ``wins_at_once[i]`` says position ``i`` has one. ``lost[i]``: the side to move has
    already lost (no successors); ``drawn[i]``: the game is over as a draw (a full board under
    full-board=draw; no successors).

    Successors outside the graph whose values are known already (the tiers solved before, when
    the whole game is solved a group of tiers at a time) are summed up per position:
    ``ext_least_loss`` (the fewest plies of one that is a loss, else ``NONE``), ``ext_most_win``
    (the most plies of one that is a win, else -1), ``ext_draw`` (one is a draw). None: there are
    none.
    """

    rules: RuleSet
    subspaces: list
    offsets: np.ndarray
    mover: np.ndarray
    opp: np.ndarray
    lost: np.ndarray
    wins_at_once: np.ndarray
    indptr: np.ndarray
    succ: np.ndarray
    drawn: np.ndarray | None = None
    ext_least_loss: np.ndarray | None = None
    ext_most_win: np.ndarray | None = None
    ext_draw: np.ndarray | None = None

    NONE = np.iinfo(np.int32).max  # ext_least_loss where no outside successor is a loss

    @property
    def size(self) -> int:
        return len(self.mover)

    @property
    def tiers(self) -> list[Tier]:
        """``subspaces`` as tiers: a moving-phase subspace (a, b) is tier (a, b, 0, 0)."""
        return [tuple(s) if len(s) == 4 else (s[0], s[1], 0, 0) for s in self.subspaces]

    def hands(self) -> tuple[np.ndarray, np.ndarray]:
        """(hand_mover, hand_opp) of every position."""
        counts = np.diff(self.offsets)
        t = self.tiers
        return (
            np.repeat(np.array([x[2] for x in t], dtype=np.int8), counts),
            np.repeat(np.array([x[3] for x in t], dtype=np.int8), counts),
        )

    def owner(self) -> np.ndarray:
        """owner[e] = the position whose successor list holds edge ``e``."""
        return np.repeat(np.arange(self.size, dtype=np.int32), np.diff(self.indptr))

    def outside(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(least plies of a loss successor outside the graph, a successor lost at once counting
        0, else NONE; most plies of a win successor outside, else -1; a draw successor outside)."""
        if self.ext_least_loss is None:
            least = np.full(self.size, self.NONE, dtype=np.int32)
        else:
            least = self.ext_least_loss.copy()
        least[self.wins_at_once] = 0
        most = np.full(self.size, -1, dtype=np.int32) if self.ext_most_win is None else self.ext_most_win
        draw = np.zeros(self.size, dtype=bool) if self.ext_draw is None else self.ext_draw
        return least, most, draw

    def terminal_draws(self) -> np.ndarray:
        return np.zeros(self.size, dtype=bool) if self.drawn is None else self.drawn


# ---- building the graph: rows of successors, in (forked) chunks -------------------------------

_SHIFT = 24  # a board key: mover << 24 | opp (boards of up to 24 points)
_LOCAL = (1 << 48) - 1  # the board part of a key; above it, the tier's number in the solve


@dataclass
class _Build:
    """What the rows of one graph need (handed to forked workers as a global)."""

    gen: MoveGen
    tiers: list  # every tier of the solve, sorted: a key's number (key >> 48) is an index into it
    movers: dict  # tier number -> int64 masks of the side to move (the graph's tiers)
    opps: dict
    # tier number -> (after a move, after a placement): [men removed] -> the successor tier's key
    # base, or -1 (the new side to move has lost: a win at once), -2 (a tier outside the solve)
    dest: dict
    inside: np.ndarray  # bool per tier number: a tier of this graph
    keys: np.ndarray  # the keys of the graph's positions, ascending = the graph's order
    outside: dict  # tier number -> (board keys, value, plies) of a tier solved before


def _dest(tiers: list[Tier], number: dict[Tier, int], tier: Tier) -> tuple[list[int], list[int]]:
    a, b, ha, hb = tier
    out = []
    for placed in (0, 1):
        row = []
        for r in range(b + 1):
            new = (b - r, a + placed, hb, ha - placed)
            if b - r + hb < 3:
                row.append(-1)  # the new side to move has lost: a win at once
            elif new in number:
                row.append(number[new] << 48)
            else:
                row.append(-2)
        out.append(row)
    return out[0], out[1]


def _chunk_rows(ctx: _Build, k: int, lo: int, hi: int):
    """The rows of positions ``lo .. hi-1`` of tier number ``k``: (lost, drawn, wins_at_once,
    successors in the graph per position, their numbers, ext_least_loss, ext_most_win, ext_draw)."""
    a, b, ha, hb = ctx.tiers[k]
    gen = ctx.gen
    after_move, after_place = ctx.dest[k]
    movers = ctx.movers[k][lo:hi].tolist()
    opps = ctx.opps[k][lo:hi].tolist()
    size = hi - lo
    lost = bytearray(size)
    drawn = bytearray(size)
    wins_at_once = bytearray(size)
    counts = array("q", bytes(8 * size))
    keys = array("q")
    add = keys.append
    moves_of, ended = gen.moves, gen.ended
    # Without Lasker's rule a position's moves are all placements (men in hand) or all moves: one
    # row of successor tiers (a pass, the one exception, goes the general way). d0 < 0 switches
    # the shortcut off.
    one_kind = after_place if ha > 0 else after_move
    d0 = one_kind[0] if not gen.lasker else -3
    for i in range(size):
        m = movers[i]
        o = opps[i]
        st = ended(m, o, ha)
        if st is None:
            moves = moves_of(m, o, ha)
            if not moves:
                st = "loss"  # blocked (under blocked=passes a pass is a move)
        if st is not None:
            if st == "loss":
                lost[i] = 1
            else:
                drawn[i] = 1
            continue
        c = 0
        if d0 >= 0 and moves[0][0] != m:
            # every move of the position is of one kind (no pass): the successor tier follows from
            # the men removed alone, and none at all keeps the opponent's mask
            base = d0 | (o << _SHIFT)
            for m_after, o_after in moves:
                if o_after == o:
                    add(base | m_after)
                    c += 1
                    continue
                d = one_kind[b - o_after.bit_count()]
                if d >= 0:
                    add(d | (o_after << _SHIFT) | m_after)
                    c += 1
                elif d == -1:
                    wins_at_once[i] = 1
                else:
                    raise AssertionError(f"a move of tier {ctx.tiers[k]} leaves the solve: {(m, o, m_after, o_after)}")
        else:
            for m_after, o_after in moves:
                # seen from the new side to move: (o_after, m_after, hb, ha - placed)
                d = (after_place if m_after.bit_count() > a else after_move)[b - o_after.bit_count()]
                if d >= 0:
                    add(d | (o_after << _SHIFT) | m_after)
                    c += 1
                elif d == -1:
                    wins_at_once[i] = 1
                else:
                    raise AssertionError(f"a move of tier {ctx.tiers[k]} leaves the solve: {(m, o, m_after, o_after)}")
        counts[i] = c

    edge = np.frombuffer(keys, dtype=np.int64) if len(keys) else np.zeros(0, dtype=np.int64)
    count = np.frombuffer(counts, dtype=np.int64)
    owner = np.repeat(np.arange(size, dtype=np.int64), count)
    number = edge >> 48
    inside = ctx.inside[number]
    inner = edge[inside]
    succ = np.searchsorted(ctx.keys, inner)
    assert np.array_equal(ctx.keys.take(succ, mode="clip"), inner), "a successor missing from the graph"
    n_succ = np.bincount(owner[inside], minlength=size)
    least = np.full(size, Graph.NONE, dtype=np.int32)
    most = np.full(size, -1, dtype=np.int32)
    draw = np.zeros(size, dtype=bool)
    if not inside.all():
        out_edge, out_owner, out_number = edge[~inside], owner[~inside], number[~inside]
        for t in np.unique(out_number).tolist():
            sel = out_number == t
            tkeys, tvalue, tplies = ctx.outside[t]
            local = out_edge[sel] & _LOCAL
            j = np.searchsorted(tkeys, local)
            assert np.array_equal(tkeys.take(j, mode="clip"), local), "a successor missing from a solved tier"
            fold_solved(tvalue[j], tplies[j], out_owner[sel], least, most, draw)
    as_bool = lambda x: np.frombuffer(x, dtype=np.uint8).astype(bool)  # noqa: E731
    return (
        as_bool(lost),
        as_bool(drawn),
        as_bool(wins_at_once),
        n_succ,
        succ.astype(np.int32),
        least,
        most,
        draw,
    )


_WORK = None  # the _Build of the graph being built, handed to forked workers


def fold_solved(v, p, w, least, most, draw) -> None:
    """Fold successors already solved (values v, plies p) into their owners w: the quickest
    loss (``least``), the slowest win (``most``) and whether one is a draw."""
    e = v == LOSS
    np.minimum.at(least, w[e], p[e])
    e = v == WIN
    np.maximum.at(most, w[e], p[e])
    draw[w[v == DRAW]] = True


def _chunk_worker(job):
    return _chunk_rows(_WORK, *job)


def _build(
    rules: RuleSet,
    tiers: list[Tier],
    group: list[Tier],
    solved: dict | None = None,
    workers: int = 1,
    progress: bool = False,
    labels: list | None = None,
) -> Graph:
    """The graph of the tiers ``group`` (a part of ``tiers``, the whole solve, sorted); a successor
    in another tier is looked up in ``solved`` (tier number -> (board keys, value, plies)).
    ``labels``: the graph's ``subspaces`` (default ``group``). ``workers`` > 1 builds the rows in
    that many forked processes (the same rows, in the same order)."""
    global _WORK
    n = len(rules.board_data.points)
    assert n <= _SHIFT, "board keys hold 24 points"
    number = {t: k for k, t in enumerate(tiers)}
    group = sorted(group)
    ks = [number[t] for t in group]
    movers, opps, offsets = {}, {}, [0]
    for k, t in zip(ks, group):
        movers[k], opps[k] = enumerate_tier(n, t[0], t[1])
        offsets.append(offsets[-1] + len(movers[k]))
    size = offsets[-1]
    inside = np.zeros(len(tiers), dtype=bool)
    inside[ks] = True
    keys = np.concatenate([(k << 48) | (movers[k] << _SHIFT) | opps[k] for k in ks]) if ks else np.zeros(0, np.int64)
    ctx = _Build(
        gen=MoveGen(rules),
        tiers=tiers,
        movers=movers,
        opps=opps,
        dest={k: _dest(tiers, number, t) for k, t in zip(ks, group)},
        inside=inside,
        keys=keys,
        outside=solved or {},
    )
    chunk = max(2_000, min(200_000, size // (8 * max(1, workers)) + 1))
    jobs = [(k, lo, min(lo + chunk, len(movers[k]))) for k in ks for lo in range(0, len(movers[k]), chunk)]
    if workers <= 1 or size < 20_000:
        parts = []
        for j, job in enumerate(jobs):
            parts.append(_chunk_rows(ctx, *job))
            if progress and (j + 1) % 10 == 0:
                print(f"  {sum(len(p[0]) for p in parts)}/{size}", flush=True)
    else:
        import multiprocessing

        _WORK = ctx
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts = []
                done = 0
                for j, part in enumerate(pool.imap(_chunk_worker, jobs)):
                    parts.append(part)
                    done += len(part[0])
                    if progress and (j + 1) % 10 == 0:
                        print(f"  {done}/{size}", flush=True)
        finally:
            _WORK = None
    if parts:
        lost, drawn, wins_at_once, n_succ, succ, least, most, draw = (np.concatenate(x) for x in zip(*parts))
    else:
        lost = drawn = wins_at_once = draw = np.zeros(0, dtype=bool)
        n_succ, succ = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
        least = most = np.zeros(0, dtype=np.int32)
    del parts
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(n_succ, out=indptr[1:])
    external = solved is not None
    return Graph(
        rules=rules,
        subspaces=list(labels) if labels is not None else group,
        offsets=np.array(offsets, dtype=np.int64),
        mover=_joined([movers[k] for k in ks]),
        opp=_joined([opps[k] for k in ks]),
        lost=lost,
        wins_at_once=wins_at_once,
        indptr=indptr,
        succ=succ,
        drawn=drawn,
        ext_least_loss=least if external else None,
        ext_most_win=most if external else None,
        ext_draw=draw if external else None,
    )


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)


def build_graph(rules: RuleSet, subspaces, progress: bool = False, workers: int = 1) -> Graph:
    """The successor graph of ``subspaces`` and the subspaces they lead to. ``workers`` > 1
    builds the rows in that many forked processes (the same rows, in the same order).
    Given tiers ``(a, b, ha, hb)`` instead, the whole-game graph of ``whole_closure``
    (``build_whole_graph``)."""
    subspaces = [tuple(int(x) for x in s) for s in subspaces]
    if subspaces and len(subspaces[0]) == 4:
        return build_whole_graph(rules, subspaces, workers=workers, progress=progress)
    subspaces = closure(rules, subspaces)
    tiers = [(a, b, 0, 0) for a, b in subspaces]
    return _build(rules, tiers, tiers, workers=workers, progress=progress, labels=subspaces)


def build_whole_graph(rules: RuleSet, tiers=None, workers: int = 1, progress: bool = False) -> Graph:
    """One graph of every position of ``whole_closure(rules, tiers)`` (default: the whole game
    from the start), with no outside successors: to check a solution against (``check_solution``
    with ``whole_values``) or to solve in one go."""
    if tiers is None:
        tiers = [(0, 0, rules.men, rules.men)]
    tiers = whole_closure(rules, tiers)
    return _build(rules, tiers, tiers, workers=workers, progress=progress)


# ---------------------------------------------------------------------------------------------
# Level-by-level solution
# ---------------------------------------------------------------------------------------------


def solve_graph(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    """(value, plies) of every position of ``g``: value WIN/DRAW/LOSS, plies -1 for draws."""
    size = g.size
    # The edges of the positions still undecided (all of them at first; see the end of the loop).
    owner = g.owner()
    succ = g.succ
    n_succ = np.diff(g.indptr)
    value = np.full(size, DRAW, dtype=np.int8)  # DRAW = undecided until the end
    plies = np.full(size, -1, dtype=np.int32)
    decided = np.zeros(size, dtype=bool)
    # outside the graph: lost at once (0), or solved before
    least_out, most_out, draw_out = g.outside()
    no_loss = (least_out != Graph.NONE) | draw_out  # a successor outside that is no win
    last_out = max(int(least_out[least_out != Graph.NONE].max(initial=0)), int(most_out.max(initial=0)))

    # level 0: the positions already lost, and the drawn ends (decided as draws)
    value[g.lost] = LOSS
    plies[g.lost] = 0
    decided[g.lost] = True
    decided |= g.terminal_draws()

    # What an edge needs to know of its successor after level L-1, one byte per position:
    # LOST_PREV lost in L-1 plies, WON a win, WON_PREV a win in L-1 plies (0: anything else).
    LOST_PREV, WON, WON_PREV = 1, 2, 3
    dropped = 0  # edges of positions decided since the edges were last filtered
    level = 0
    while True:
        level += 1
        state = np.zeros(size, dtype=np.int8)
        state[(value == LOSS) & (plies == level - 1)] = LOST_PREV
        won = value == WIN
        state[won] = WON
        state[won & (plies == level - 1)] = WON_PREV
        s_succ = state[succ]  # the state after level-1, for every edge

        # wins at L: a successor lost in L-1 plies (a successor that is lost at once counts at L=1)
        has_loss_prev = least_out == level - 1
        has_loss_prev[owner[s_succ == LOST_PREV]] = True
        new_win = ~decided & has_loss_prev

        # losses at L: every successor a win (none lost at once), the longest in L-1 plies
        n_win = np.bincount(owner[s_succ >= WON], minlength=size)
        all_win = (n_win == n_succ) & ~no_loss & (most_out <= level - 1)
        has_win_prev = most_out == level - 1
        has_win_prev[owner[s_succ == WON_PREV]] = True
        del s_succ
        new_loss = ~decided & all_win
        # an undecided position whose successors are all wins has its longest at L-1: had they all
        # been shorter, it would have been decided at an earlier level
        assert not np.any(new_loss & ~has_win_prev), "level iteration out of order"
        assert not np.any(new_loss & (n_succ == 0) & (most_out < 0)), "a position without moves that has not lost"
        assert not np.any(new_win & new_loss)

        if not new_win.any() and not new_loss.any():
            if level > last_out:  # nothing outside can decide anything later
                break
            continue
        value[new_win] = WIN
        plies[new_win] = level
        value[new_loss] = LOSS
        plies[new_loss] = level
        decided |= new_win | new_loss
        # Drop the edges of decided positions: only undecided positions are judged at a level, and
        # each keeps all of its edges, so the counts above stay complete. (Only once a quarter of
        # the edges left belong to decided positions: the rest of the time they are just ignored.)
        dropped += int(n_succ[new_win | new_loss].sum())
        if 4 * dropped >= len(succ):
            keep = ~decided[owner]
            owner = owner[keep]
            succ = succ[keep]
            del keep
            dropped = 0
    return value, plies


def solve_group(g: Graph, check: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """``solve_graph`` of one group's graph, its solution checked against the defining equations
    where ``check``; (value, plies, seconds of the solve)."""
    t0 = time.perf_counter()
    value, plies = solve_graph(g)
    seconds = time.perf_counter() - t0
    if check:
        check_solution(g, value, plies)
    return value, plies, seconds


def check_solution(g: Graph, value: np.ndarray, plies: np.ndarray) -> None:
    """Assert that (value, plies) satisfy the definition on every position of ``g``: a lost
    position is a loss in 0; a drawn end (full board) is a draw without successors; a win is 1 +
    the least plies of its successors that are losses (a successor lost at once counts 0); a loss
    has only wins as successors and is 1 + the most of their plies; a draw has no loss successor
    and at least one draw successor. Successors outside the graph count with their known values
    (``Graph.ext_*``). (With the draws as the positions left undecided this pins the solution
    down; an engine's output can be handed in as it is, in the graph's order.)"""
    size = g.size
    owner = g.owner()
    v_s, p_s = value[g.succ], plies[g.succ]
    n_succ = np.diff(g.indptr)
    win, draw, loss = value == WIN, value == DRAW, value == LOSS
    assert np.all(win | draw | loss)
    assert np.all(plies[draw] == -1) and np.all(plies[~draw] >= 0)
    least_out, most_out, draw_out = g.outside()
    no_out = (least_out == Graph.NONE) & (most_out < 0) & ~draw_out  # no successor outside

    # lost at once
    assert np.all(loss[g.lost] & (plies[g.lost] == 0)) and np.all(n_succ[g.lost] == 0)
    assert not np.any(g.lost & g.wins_at_once) and np.all(no_out[g.lost])
    assert np.all(g.lost == (loss & (plies == 0))), "loss in 0 plies only when the game is over"
    # drawn at once: no successors
    ended = g.terminal_draws()
    assert np.all(draw[ended]) and np.all(n_succ[ended] == 0) and np.all(no_out[ended]), "a drawn end"
    assert not np.any(ended & g.lost)

    # least plies of a loss successor (0 for a successor lost at once), else a large number
    big = Graph.NONE
    least_loss = least_out.astype(np.int64)
    e = v_s == LOSS
    np.minimum.at(least_loss, owner[e], p_s[e])
    assert np.all(least_loss[win] + 1 == plies[win]), "a win is 1 + its shortest loss successor"

    n_win = np.bincount(owner[v_s == WIN], minlength=size)
    n_draw = np.bincount(owner[v_s == DRAW], minlength=size)
    most_win = most_out.astype(np.int64)
    e = v_s == WIN
    np.maximum.at(most_win, owner[e], p_s[e])
    inner_loss = loss & ~g.lost
    assert np.all(n_win[inner_loss] == n_succ[inner_loss]), "a loss has only win successors"
    assert np.all(least_out[inner_loss] == big) and not np.any(draw_out[inner_loss])
    assert np.all((n_succ[inner_loss] > 0) | (most_out[inner_loss] >= 0))
    assert np.all(most_win[inner_loss] + 1 == plies[inner_loss]), "a loss is 1 + its longest win successor"

    inner_draw = draw & ~ended
    assert np.all(least_loss[inner_draw] == big), "a draw has no loss successor"
    assert np.all((n_draw[inner_draw] > 0) | draw_out[inner_draw]), "a draw has a draw successor"


@lru_cache(maxsize=8)
def cached_solve(rules: RuleSet, max_men: int | None = None, subspaces: tuple | None = None):
    """``solve_reference`` remembered per arguments (for tests that share a solution; the arrays
    are read-only). ``subspaces`` must be a tuple of (a, b) tuples."""
    result = solve_reference(rules, max_men=max_men, subspaces=subspaces)
    for s in result.values():
        for arr in s:
            arr.flags.writeable = False
    return result


class Subspace(NamedTuple):
    mover: np.ndarray  # int64 masks of the side to move, sorted by (mover, opp)
    opp: np.ndarray  # int64 masks of the opponent
    plies: np.ndarray  # int32, -1 for draws
    value: np.ndarray  # int8: WIN 1, DRAW 0, LOSS -1


def split(g: Graph, value: np.ndarray, plies: np.ndarray) -> dict:
    """{subspace or tier: Subspace} of a graph's solution."""
    out = {}
    for k, ab in enumerate(g.subspaces):
        s = slice(int(g.offsets[k]), int(g.offsets[k + 1]))
        out[ab] = Subspace(g.mover[s], g.opp[s], plies[s], value[s])
    return out


def solve_reference(
    rules: RuleSet, max_men: int | None = None, subspaces=None, progress: bool = False, workers: int = 1
) -> dict[tuple[int, int], Subspace]:
    """Solve every position of the subspaces (a, b), 3 <= a, b <= max_men (default rules.men), or
    of ``subspaces`` and the subspaces they lead to. See the module docstring."""
    if subspaces is None:
        top = rules.men if max_men is None else max_men
        subspaces = [(a, b) for a in range(3, top + 1) for b in range(3, top + 1)]
    g = build_graph(rules, subspaces, progress=progress, workers=workers)
    value, plies = solve_graph(g)
    return split(g, value, plies)


def lookup(result: dict[tuple[int, int], Subspace], mover: int, opp: int) -> tuple[str, int | None]:
    """("win" | "draw" | "loss", plies or None for a draw) of one position. A side to move with
    fewer than 3 men has lost in 0 plies."""
    if mover & opp:
        raise ValueError("the two sides share a point")
    if mover.bit_count() < 3:
        return "loss", 0
    s = result[(mover.bit_count(), opp.bit_count())]
    keys = (s.mover << 32) | s.opp
    key = position_key(mover, opp)
    i = int(np.searchsorted(keys, key))
    if i >= len(keys) or int(keys[i]) != key:
        raise KeyError((mover, opp))
    v = int(s.value[i])
    return VALUE_NAMES[v], (None if v == DRAW else int(s.plies[i]))


def summary(result: dict) -> dict:
    """Per subspace (or tier): positions, wins, draws, losses, longest win, longest loss."""
    out = {}
    for ab, s in sorted(result.items()):
        win, loss = s.value == WIN, s.value == LOSS
        out[ab] = {
            "positions": len(s.value),
            "wins": int(win.sum()),
            "draws": int((s.value == DRAW).sum()),
            "losses": int(loss.sum()),
            "longest_win": int(s.plies[win].max()) if win.any() else -1,
            "longest_loss": int(s.plies[loss].max()) if loss.any() else -1,
        }
    return out


# ---------------------------------------------------------------------------------------------
# Whole games
# ---------------------------------------------------------------------------------------------


def solve_whole_reference(
    rules: RuleSet, tiers=None, workers: int = 1, progress: bool = False, report=None, check: bool = False, given=None
) -> dict[Tier, Subspace]:
    """Solve every position of ``whole_closure(rules, tiers)`` (default ``[(0, 0, men, men)]``:
    the whole game from the start). {tier: Subspace}, as ``solve_reference``. ``given``: {tier:
    Subspace} of tiers whose values are taken as they are (every position of each, e.g. from
    another solver), not solved: the closure stops at them, and the result leaves them out.

    One strongly connected group of tiers at a time (``tier_components``), the groups its moves
    lead to first: each group is one ``Graph`` whose successors in earlier groups count with their
    values (``Graph.ext_*``), solved by ``solve_graph``. ``report(group, graph, build_s,
    solve_s)`` is called after each group (``progress`` prints a line). ``check``: assert
    ``check_solution`` on each group's graph (with its outside successors: together, the defining
    equations on every position)."""

    if tiers is None:
        tiers = [(0, 0, rules.men, rules.men)]
    given = given or {}
    tiers = whole_closure(rules, tiers, stop=given)
    number = {t: k for k, t in enumerate(tiers)}
    groups = [g for g in tier_components(rules, tiers, stop=given) if not set(g) <= given.keys()]
    # the last group that looks into each tier: its keys can go after that
    last_use: dict[Tier, int] = {}
    for i, group in enumerate(groups):
        for t in group:
            for u in tier_successors(rules, t):
                last_use[u] = i
    result: dict[Tier, Subspace] = {}
    solved: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for t, s in given.items():
        if t in number:
            keys = (s.mover << _SHIFT) | s.opp
            order = np.argsort(keys)
            solved[number[t]] = (keys[order], s.value[order], s.plies[order])
    for i, group in enumerate(groups):
        t0 = time.perf_counter()
        g = _build(rules, tiers, group, solved=solved, workers=workers)
        t1 = time.perf_counter()
        value, plies, solve_s = solve_group(g, check)
        t2 = t1 + solve_s
        if progress:
            print(
                f"  {', '.join(map(str, group))}: {g.size} positions, {len(g.succ)} edges inside; "
                f"build {t1 - t0:.1f} s, solve {t2 - t1:.1f} s",
                flush=True,
            )
        if report is not None:
            report(group, g, t1 - t0, t2 - t1)
        for t, s in split(g, value, plies).items():
            result[t] = s
            solved[number[t]] = ((s.mover << _SHIFT) | s.opp, s.value, s.plies)
        del g
        for t in list(solved):
            if last_use.get(tiers[t], -1) <= i:
                del solved[t]
    return result


def whole_values(g: Graph, result: dict) -> tuple[np.ndarray, np.ndarray]:
    """(value, plies) of a solve's ``result`` in the order of graph ``g`` (e.g. ``build_whole_graph``),
    for ``check_solution``."""
    parts = [result[t] for t in g.subspaces]
    for s, k in zip(parts, range(len(parts))):
        lo, hi = int(g.offsets[k]), int(g.offsets[k + 1])
        assert np.array_equal(s.mover, g.mover[lo:hi]) and np.array_equal(s.opp, g.opp[lo:hi])
    if not parts:
        return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int32)
    return np.concatenate([s.value for s in parts]), np.concatenate([s.plies for s in parts])


def cached_whole(rules: RuleSet, tiers=None) -> dict[Tier, Subspace]:
    """``solve_whole_reference`` remembered per arguments (read-only arrays, shared: do not
    change them). ``tiers``: (a, b, ha, hb) tuples, or None for the whole game from the start."""
    return _cached_whole(rules, None if tiers is None else tuple(sorted(tuple(int(x) for x in t) for t in tiers)))


@lru_cache(maxsize=8)
def _cached_whole(rules: RuleSet, tiers: tuple | None) -> dict[Tier, Subspace]:
    result = solve_whole_reference(rules, tiers=None if tiers is None else list(tiers))
    for s in result.values():
        for arr in s:
            arr.flags.writeable = False
    return result


def lookup_whole(result: dict, mover: int, opp: int, hand_mover: int, hand_opp: int) -> tuple[str, int | None]:
    """("win" | "draw" | "loss", plies or None for a draw) of one position of the whole game. A
    side to move with fewer than 3 men on the board and in hand has lost in 0 plies."""
    if mover & opp:
        raise ValueError("the two sides share a point")
    if mover.bit_count() + hand_mover < 3:
        return "loss", 0
    s = result[(mover.bit_count(), opp.bit_count(), hand_mover, hand_opp)]
    lo = int(np.searchsorted(s.mover, mover, side="left"))
    hi = int(np.searchsorted(s.mover, mover, side="right"))
    i = lo + int(np.searchsorted(s.opp[lo:hi], opp))
    if i >= hi or int(s.opp[i]) != opp:
        raise KeyError((mover, opp, hand_mover, hand_opp))
    v = int(s.value[i])
    return VALUE_NAMES[v], (None if v == DRAW else int(s.plies[i]))


def start_value(result: dict, rules: RuleSet) -> tuple[str, int | None]:
    """The value of the start: empty board, both hands ``rules.men``, White to move."""
    return lookup_whole(result, 0, 0, rules.men, rules.men)


def _peak_mib() -> tuple[float, float]:
    """Peak resident memory of this process and of its largest finished child, MiB (Linux)."""
    import resource

    return (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    )


def _main(argv=None) -> None:
    """python tests/reference.py RULES [--max-men N | --subspace A,B | --whole [--tier A,B,HA,HB]]
    [--option K=V ...] [-j W]"""
    import argparse

    from solver.rules import make_rules

    ap = argparse.ArgumentParser(description="Solve the moving phase or the whole game with the reference solver.")
    ap.add_argument("rules")
    ap.add_argument("--max-men", type=int)
    ap.add_argument("--subspace", action="append", default=[], help="A,B (repeatable)")
    ap.add_argument("--whole", action="store_true", help="the whole game (placing, moving), from the start")
    ap.add_argument(
        "--tier", action="append", default=[], help="with --whole: A,B,HA,HB (repeatable) instead of the start"
    )
    ap.add_argument("-o", "--option", action="append", default=[], help="NAME=VALUE (repeatable)")
    ap.add_argument("-j", "--workers", type=int, default=1)
    args = ap.parse_args(argv)
    rules = make_rules(args.rules, args.option or None)
    if args.whole:
        tiers = [tuple(int(x) for x in s.split(",")) for s in args.tier] or None
        rows = {}
        times = []

        def report(group, g, build_s, solve_s):
            times.append((build_s, solve_s))
            for t in g.subspaces:
                rows[t] = (len(group), build_s, solve_s)

        t0 = time.perf_counter()
        result = solve_whole_reference(rules, tiers, workers=args.workers, progress=True, report=report)
        t1 = time.perf_counter()
        total = sum(len(s.value) for s in result.values())
        print(
            f"{rules.describe()} whole game: {len(result)} tiers in {len(times)} groups, {total} positions; "
            f"build {sum(b for b, _ in times):.1f} s, solve {sum(s for _, s in times):.1f} s, all {t1 - t0:.1f} s"
        )
        start = (0, 0, rules.men, rules.men)
        if start in result:
            print("start:", start_value(result, rules))
        print("tier: positions wins draws losses longest_win longest_loss | group tiers, its build s, solve s")
        for t, row in summary(result).items():
            n_group, b, s = rows[t]
            print(
                t,
                row["positions"],
                row["wins"],
                row["draws"],
                row["losses"],
                row["longest_win"],
                row["longest_loss"],
                f"| {n_group} {b:.2f} {s:.2f}",
            )
        me, child = _peak_mib()
        print(f"peak memory: {me:.0f} MiB (this process), {child:.0f} MiB (largest worker)")
        return
    subspaces = [tuple(int(x) for x in s.split(",")) for s in args.subspace]
    top = args.max_men or rules.men
    t0 = time.perf_counter()
    g = build_graph(
        rules,
        subspaces or [(a, b) for a in range(3, top + 1) for b in range(3, top + 1)],
        progress=True,
        workers=args.workers,
    )
    t1 = time.perf_counter()
    value, plies = solve_graph(g)
    t2 = time.perf_counter()
    print(f"{rules.describe()}: {g.size} positions, {len(g.succ)} edges; build {t1 - t0:.1f} s, solve {t2 - t1:.1f} s")
    for ab, row in summary(split(g, value, plies)).items():
        print(ab, row)


if __name__ == "__main__":
    _main()
