"""A slow, plain reference solver for the moving phase, to check the fast engine against.

Everything here is written from the board data alone (``solver.rules.boards`` and the options of a
``solver.rules.RuleSet``); nothing comes from ``solver.rules.movegen`` or ``solver.rules.game``. There is no
symmetry reduction: every position is solved separately.

A position is a pair of point masks ``(mover, opp)``: the men of the side to move and of its
opponent, bit ``i`` = point ``i`` of the board (``board.index``). All men are on the board (the
moving phase). Subspace ``(a, b)`` holds every position with ``a`` men of the side to move and
``b`` of the opponent.

Values (RULES.md, "Values"), for the side to move:

- lost in 0 plies: the side to move has fewer than 3 men, or has no legal move (blocked=loses),
  or (mill-wins) the opponent has a mill on the board;
- win in ``1 + min`` plies over the successors that are losses;
- loss in ``1 + max`` plies over the successors when all of them are wins;
- draw otherwise.

Removals (RULES.md): a move that closes a mill removes one opponent man; under
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
level that decides nothing ends the iteration; what is left is a draw.

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
``MoveGen(rules).moves(mover, opp)``: the positions after each legal move (seen from the mover)
``MoveGen(rules).is_lost(mover, opp)``: whether the side to move has already lost
``build_graph(rules, subspaces)`` -> ``Graph``, ``solve_graph(graph) -> (value, plies)``,
``split(graph, value, plies)`` -> the dict above; ``check_solution(graph, value, plies)`` asserts
    the defining equations on every position (an engine's values in the graph's order can be
    checked the same way).
``masks(board, "a1 d1 g1", "a4 b4 c4") -> (mover, opp)``

Command line: ``python tests/reference.py six --max-men 4``,
``python tests/reference.py standard --subspace 3,3 [--option flying=never] [-j 2]``.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

from solver.rules import RuleSet

WIN, DRAW, LOSS = 1, 0, -1
VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}


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
    """Legal moves of the moving phase under a rule set, from the board data only."""

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
        self.lasker = rules.lasker == "on"  # only for move lists with men in hand

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

    # -- moves ------------------------------------------------------------------------------------
    def moves(self, mover: int, opp: int, hand: int = 0) -> list[tuple[int, int]]:
        """The positions after every legal move, as ``(mover_after, opp_after)`` (still from the
        mover's side), one per distinct result. A blocked side that passes gets ``(mover, opp)``.
        Empty when the side to move is blocked and blocked=loses. Does not test for a game over.
        ``hand``: the mover's men in hand, for comparing move lists of the placing phase (a side
        with men in hand places one, or under Lasker's rule places or moves); the solver itself
        only calls it with none."""
        empty = self.full & ~(mover | opp)
        out: list[tuple[int, int]] = []
        if hand:
            for to in bits(empty):
                self._arrive(out, mover | (1 << to), to, opp)
            if not self.lasker:
                return out
        flying = self.flying and mover.bit_count() + hand == 3
        for frm in bits(mover):
            for to in bits(empty if flying else self.neighbours[frm] & empty):
                self._arrive(out, (mover & ~(1 << frm)) | (1 << to), to, opp)
        if not out and self.passes:
            out.append((mover, opp))  # the pass: the opponent moves next
        return out

    def _arrive(self, out: list, after: int, to: int, opp: int) -> None:
        """Append the positions after a man of the mover arrives on ``to`` (``after``: the mover's
        men then), one per choice of removals."""
        formed = 0  # mills through ``to`` that the arriving man completes
        for m in self.mills_at[to]:
            if after & m == m:
                formed += 1
        if formed == 0 or self.mill_wins:
            # (under mill-wins a mill wins at once, without a removal: the opponent to move faces
            # a mill and has lost)
            out.append((after, opp))
        else:
            # per-mill: one removal per mill closed, however many
            count = formed if self.per_mill else 1
            for opp_after in sorted(self.after_removals(opp, count)):
                out.append((after, opp_after))

    def is_lost(self, mover: int, opp: int, moves: list | None = None, hand: int = 0) -> bool:
        """Whether the side to move has already lost (the game is over, 0 plies)."""
        if mover.bit_count() + hand < 3:
            return True
        if self.mill_wins and self.has_mill(opp):
            return True
        if moves is None:
            moves = self.moves(mover, opp, hand)
        return not moves  # blocked, under blocked=loses (a pass is a move otherwise)

    def successors(self, mover: int, opp: int) -> list[tuple[int, int]]:
        """The positions after each legal move, seen from the new side to move: (opp', mover')."""
        return [(o, m) for m, o in self.moves(mover, opp)]


# ---------------------------------------------------------------------------------------------
# Positions and the successor graph
# ---------------------------------------------------------------------------------------------


def enumerate_subspace(n: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position with ``a`` men of the side to move and ``b`` of the opponent on an
    ``n``-point board, sorted by (mover mask, opponent mask)."""
    movers = sorted(sum(1 << i for i in c) for c in combinations(range(n), a))
    mover_out, opp_out = [], []
    for mv in movers:
        free = [i for i in range(n) if not (mv >> i) & 1]
        opps = sorted(sum(1 << i for i in c) for c in combinations(free, b))
        mover_out.extend([mv] * len(opps))
        opp_out.extend(opps)
    return np.array(mover_out, dtype=np.int64), np.array(opp_out, dtype=np.int64)


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


def position_key(mover: int, opp: int) -> int:
    return (mover << 32) | opp


@dataclass
class Graph:
    """All positions of some subspaces, with their successors.

    Positions are numbered globally: subspace ``subspaces[k]`` holds numbers
    ``offsets[k] .. offsets[k+1]-1``. ``succ[indptr[i]:indptr[i+1]]`` are the numbers of the
    successors of position ``i`` that are positions of these subspaces; a successor in which the
    new side to move has fewer than 3 men (lost at once) is not numbered: ``wins_at_once[i]``
    says position ``i`` has one. ``lost[i]``: the side to move has already lost (no successors).
    """

    rules: RuleSet
    subspaces: list[tuple[int, int]]
    offsets: np.ndarray
    mover: np.ndarray
    opp: np.ndarray
    lost: np.ndarray
    wins_at_once: np.ndarray
    indptr: np.ndarray
    succ: np.ndarray

    @property
    def size(self) -> int:
        return len(self.mover)

    def owner(self) -> np.ndarray:
        """owner[e] = the position whose successor list holds edge ``e``."""
        return np.repeat(np.arange(self.size, dtype=np.int32), np.diff(self.indptr))


def _rows(gen: MoveGen, number: dict[int, int], movers: list[int], opps: list[int], progress: bool):
    """The graph rows of the positions ``zip(movers, opps)``: (lost, wins_at_once, number of
    successors, successor numbers), each an array."""
    size = len(movers)
    lost = np.zeros(size, dtype=bool)
    wins_at_once = np.zeros(size, dtype=bool)
    n_succ = np.zeros(size, dtype=np.int64)
    succ = array("i")
    for i, (m, o) in enumerate(zip(movers, opps)):
        if progress and i % 200_000 == 0:
            print(f"  {i}/{size}", flush=True)
        moves = gen.moves(m, o)
        if gen.is_lost(m, o, moves):
            lost[i] = True
            continue
        assert moves, "a side that has not lost has a move"
        row = []
        for m_after, o_after in moves:
            # seen from the new side to move: (opp_after, mover_after)
            if o_after.bit_count() < 3:
                wins_at_once[i] = True
            else:
                row.append(number[(o_after << 32) | m_after])  # position_key
        succ.extend(row)
        n_succ[i] = len(row)
    return lost, wins_at_once, n_succ, np.array(succ, dtype=np.int32)


_WORK = None  # (gen, number, movers, opps), handed to forked workers


def _rows_worker(bounds):
    gen, number, movers, opps = _WORK
    lo, hi = bounds
    return _rows(gen, number, movers[lo:hi], opps[lo:hi], False)


def build_graph(rules: RuleSet, subspaces, progress: bool = False, workers: int = 1) -> Graph:
    """The successor graph of ``subspaces`` and the subspaces they lead to. ``workers`` > 1
    builds the rows in that many forked processes (the same rows, in the same order)."""
    global _WORK
    subspaces = closure(rules, subspaces)
    n = len(rules.board_data.points)
    gen = MoveGen(rules)
    movers, opps, offsets = [], [], [0]
    for a, b in subspaces:
        mv, op = enumerate_subspace(n, a, b)
        movers.append(mv)
        opps.append(op)
        offsets.append(offsets[-1] + len(mv))
    mover = np.concatenate(movers)
    opp = np.concatenate(opps)
    mover_list, opp_list = mover.tolist(), opp.tolist()
    number = {position_key(m, o): i for i, (m, o) in enumerate(zip(mover_list, opp_list))}
    size = len(mover)

    if workers <= 1:
        parts = [_rows(gen, number, mover_list, opp_list, progress)]
    else:
        import multiprocessing

        chunks = 8 * workers
        cuts = [size * k // chunks for k in range(chunks + 1)]
        _WORK = (gen, number, mover_list, opp_list)
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts = []
                for k, part in enumerate(pool.imap(_rows_worker, zip(cuts, cuts[1:]))):
                    parts.append(part)
                    if progress:
                        print(f"  {cuts[k + 1]}/{size}", flush=True)
        finally:
            _WORK = None
    lost, wins_at_once, n_succ, succ = (np.concatenate(x) for x in zip(*parts))
    del parts
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(n_succ, out=indptr[1:])
    return Graph(
        rules=rules,
        subspaces=subspaces,
        offsets=np.array(offsets, dtype=np.int64),
        mover=mover,
        opp=opp,
        lost=lost,
        wins_at_once=wins_at_once,
        indptr=indptr,
        succ=succ,
    )


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

    # level 0: the positions already lost
    value[g.lost] = LOSS
    plies[g.lost] = 0
    decided[g.lost] = True

    level = 0
    while True:
        level += 1
        v_succ = value[succ]  # the state after level-1, for every edge
        p_succ = plies[succ]
        decided_succ = decided[succ]

        # wins at L: a successor lost in L-1 plies (a successor that is lost at once counts at L=1)
        loss_prev = decided_succ & (v_succ == LOSS) & (p_succ == level - 1)
        has_loss_prev = np.zeros(size, dtype=bool)
        has_loss_prev[owner[loss_prev]] = True
        if level == 1:
            has_loss_prev |= g.wins_at_once
        new_win = ~decided & has_loss_prev

        # losses at L: every successor a win (none lost at once), the longest in L-1 plies
        is_win = decided_succ & (v_succ == WIN)
        n_win = np.bincount(owner[is_win], minlength=size)
        all_win = (n_win == n_succ) & ~g.wins_at_once
        win_prev = is_win & (p_succ == level - 1)
        has_win_prev = np.zeros(size, dtype=bool)
        has_win_prev[owner[win_prev]] = True
        new_loss = ~decided & all_win
        # an undecided position whose successors are all wins has its longest at L-1: had they all
        # been shorter, it would have been decided at an earlier level
        assert not np.any(new_loss & ~has_win_prev), "level iteration out of order"
        assert not np.any(new_loss & (n_succ == 0)), "a position without moves that has not lost"
        assert not np.any(new_win & new_loss)

        if not new_win.any() and not new_loss.any():
            break
        value[new_win] = WIN
        plies[new_win] = level
        value[new_loss] = LOSS
        plies[new_loss] = level
        decided |= new_win | new_loss
        # Drop the edges of decided positions: only undecided positions are judged at a level, and
        # each keeps all of its edges, so the counts above stay complete.
        keep = ~decided[owner]
        owner = owner[keep]
        succ = succ[keep]
    return value, plies


def check_solution(g: Graph, value: np.ndarray, plies: np.ndarray) -> None:
    """Assert that (value, plies) satisfy the definition on every position of ``g``: a lost
    position is a loss in 0; a win is 1 + the least plies of its successors that are losses (a
    successor lost at once counts 0); a loss has only wins as successors and is 1 + the most of
    their plies; a draw has no loss successor and at least one draw successor. (With the draws as
    the positions left undecided this pins the solution down; an engine's output can be handed
    in as it is, in the graph's order.)"""
    size = g.size
    owner = g.owner()
    v_s, p_s = value[g.succ], plies[g.succ]
    n_succ = np.diff(g.indptr)
    win, draw, loss = value == WIN, value == DRAW, value == LOSS
    assert np.all(win | draw | loss)
    assert np.all(plies[draw] == -1) and np.all(plies[~draw] >= 0)

    # lost at once
    assert np.all(loss[g.lost] & (plies[g.lost] == 0)) and np.all(n_succ[g.lost] == 0)
    assert not np.any(g.lost & g.wins_at_once)
    assert np.all(g.lost == (loss & (plies == 0))), "loss in 0 plies only when the game is over"

    # least plies of a loss successor (0 for a successor lost at once), else a large number
    big = np.iinfo(np.int32).max
    least_loss = np.full(size, big, dtype=np.int64)
    e = v_s == LOSS
    np.minimum.at(least_loss, owner[e], p_s[e])
    least_loss[g.wins_at_once] = 0
    assert np.all(least_loss[win] + 1 == plies[win]), "a win is 1 + its shortest loss successor"

    n_win = np.bincount(owner[v_s == WIN], minlength=size)
    n_draw = np.bincount(owner[v_s == DRAW], minlength=size)
    most_win = np.full(size, -1, dtype=np.int64)
    e = v_s == WIN
    np.maximum.at(most_win, owner[e], p_s[e])
    inner_loss = loss & ~g.lost
    assert np.all(n_win[inner_loss] == n_succ[inner_loss]) and not np.any(g.wins_at_once[inner_loss])
    assert np.all(n_succ[inner_loss] > 0)
    assert np.all(most_win[inner_loss] + 1 == plies[inner_loss]), "a loss is 1 + its longest win successor"

    assert np.all(least_loss[draw] == big), "a draw has no loss successor"
    assert np.all(n_draw[draw] > 0), "a draw has a draw successor"


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


def split(g: Graph, value: np.ndarray, plies: np.ndarray) -> dict[tuple[int, int], Subspace]:
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


def summary(result: dict[tuple[int, int], Subspace]) -> dict[tuple[int, int], dict[str, int]]:
    """Per subspace: positions, wins, draws, losses, longest win, longest loss."""
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


def _main(argv=None) -> None:
    """python tests/reference.py RULES [--max-men N | --subspace A,B] [--option K=V ...] [-j W]"""
    import argparse
    import time

    from solver.rules import make_rules

    ap = argparse.ArgumentParser(description="Solve the moving phase with the reference solver.")
    ap.add_argument("rules")
    ap.add_argument("--max-men", type=int)
    ap.add_argument("--subspace", action="append", default=[], help="A,B (repeatable)")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE (repeatable)")
    ap.add_argument("-j", "--workers", type=int, default=1)
    args = ap.parse_args(argv)
    rules = make_rules(args.rules, args.option or None)
    subspaces = [tuple(int(x) for x in s.split(",")) for s in args.subspace] or None
    t0 = time.perf_counter()
    g = build_graph(
        rules,
        subspaces
        or [(a, b) for a in range(3, (args.max_men or rules.men) + 1) for b in range(3, (args.max_men or rules.men) + 1)],
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
