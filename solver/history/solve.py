"""The moving phase under the history rule, group by group (``solve_moving``).

Groups are taken as the plain engine takes them: a subspace and its twin, by the men on the
board, fewest first (a removal leads into a group solved before). Each group's states are
numbered (``states``), judged (``kernels.init_group``) and settled level by level
(``kernels.level_step``); its values are then what later groups' removals read. A run holds one
group and the subspaces its removals lead into (``solve_moving(keep=False)``, reading solved
groups back through ``load``); ``solve_whole`` holds everything, for the small games.
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import RulesError
from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from . import kernels as k
from ..values import DUP
from .states import BLOCK_BITS, KEY_SHIFT, V0, subspace_index, to_side_table
from .tables import check_supported, history_tables, plain_rules

MEN = 13  # info's dimensions: men 0 ... 12 a side


class HistorySubspace:
    """The solved states of a subspace, numbered by slots (``states``): ``counts`` (states per
    slot), ``block_first`` and ``state_values`` in that order. ``values``/``keys`` give the stored
    layout: ``values[slot]`` for the plain positions (DUP at a duplicate slot), then
    ``values[slots + i]`` for the state of side-table key ``keys[i]`` (``slot << 20 | ban << 10 |
    pending``, ascending)."""

    def __init__(self, a: int, b: int, slots: int, counts: np.ndarray, block_first: np.ndarray, state_values: np.ndarray, rules: RuleSet):
        self.a, self.b, self.slots = a, b, slots
        self.counts, self.block_first, self.state_values = counts, block_first, state_values
        self.rules = rules
        self._stored: tuple[np.ndarray, np.ndarray] | None = None
        self.timing: dict = {}  # seconds of the group's steps: index_s, init_s, levels_s (and levels)

    @classmethod
    def from_layout(cls, rules: RuleSet, a: int, b: int, keys: np.ndarray, values: np.ndarray) -> HistorySubspace:
        """The inverse of ``keys``/``values``: a subspace as stored, numbered by slots again (a
        slot's states are its plain position, then its keys in order)."""
        slots = len(values) - len(keys)
        plain = values[:slots]
        per_slot = np.bincount(keys >> KEY_SHIFT, minlength=slots) if len(keys) else np.zeros(slots, np.int64)
        counts = (plain != DUP).astype(np.int64) + per_slot
        firsts = np.zeros(slots + 1, dtype=np.int64)
        np.cumsum(counts, out=firsts[1:])
        state_values = np.empty(int(firsts[-1]), dtype=np.uint16)
        live = plain != DUP
        state_values[firsts[:-1][live]] = plain[live]
        if len(keys):
            slot = keys >> KEY_SHIFT
            # the place of each key among its slot's: its rank in the sorted keys less the slot's first key
            first_key = np.zeros(slots + 1, dtype=np.int64)
            np.cumsum(per_slot, out=first_key[1:])
            state_values[firsts[slot] + 1 + np.arange(len(keys)) - first_key[slot]] = values[slots:]
        blocks = (slots + (1 << BLOCK_BITS) - 1) >> BLOCK_BITS
        block_first = firsts[: slots : 1 << BLOCK_BITS].copy()
        assert len(block_first) == blocks
        return cls(a, b, slots, counts.astype(np.uint8), block_first, state_values, rules)

    @property
    def states(self) -> int:
        return len(self.state_values)

    def _layout(self) -> tuple[np.ndarray, np.ndarray]:
        if self._stored is None:
            counts = self.counts.astype(np.int64)
            firsts = np.zeros(self.slots, dtype=np.int64)
            np.cumsum(counts[:-1], out=firsts[1:])
            extra = np.zeros(self.slots, dtype=np.int64)
            np.cumsum(np.maximum(counts - 1, 0)[:-1], out=extra[1:])
            nx = int(np.maximum(counts - 1, 0).sum())
            plain = np.empty(self.slots, dtype=np.uint16)
            keys = np.empty(nx, dtype=np.int64)
            xvals = np.empty(nx, dtype=np.uint16)
            to_side_table(self.a, self.b, self.slots, self.counts, firsts, extra, self.state_values,
                          history_tables(self.rules), board_index(self.rules.board).tables, plain, keys, xvals)
            self._stored = (keys, np.concatenate([plain, xvals]))
        return self._stored

    @property
    def keys(self) -> np.ndarray:
        return self._layout()[0]

    @property
    def values(self) -> np.ndarray:
        return self._layout()[1]


def moving_groups(subs) -> list[list[tuple[int, int]]]:
    subs = set(subs)
    out, seen = [], set()
    for a, b in sorted(subs, key=lambda s: (s[0] + s[1], s)):
        if (a, b) in seen:
            continue
        group = sorted({(a, b), (b, a)} & subs)
        seen |= set(group)
        out.append(group)
    return out


def removal_targets(rules: RuleSet, a: int, b: int) -> list[tuple[int, int]]:
    """The moving subspaces a move of (a, b) that removes leads into (with 3 men or more)."""
    return [(b - r, a) for r in range(1, rules.most_removals(a) + 1) if b - r >= 3]


def closure(rules: RuleSet, subs) -> list[tuple[int, int]]:
    """``subs``, their twins (a move without a removal leads there) and every moving subspace
    their removals lead into."""
    out, todo = set(), list(subs)
    while todo:
        a, b = todo.pop()
        if (a, b) in out or a < 3 or b < 3:
            continue
        out.add((a, b))
        todo.append((b, a))
        todo.extend(removal_targets(rules, a, b))
    return sorted(out)


class Store:
    """Several subspaces' states in flat arrays, as the kernels read them: ``info[a, b]`` =
    (first state, slots, first count, first block), -1 where the store lacks (a, b)."""

    def __init__(self, parts: list[HistorySubspace]):
        self.info = np.full((MEN, MEN, 4), -1, dtype=np.int64)
        v = c = bl = 0
        for p in parts:
            self.info[p.a, p.b] = (v, p.slots, c, bl)
            v += p.states
            c += p.slots
            bl += len(p.block_first)
        self.counts = np.concatenate([p.counts for p in parts] + [np.zeros(1, np.uint8)])
        self.block_first = np.concatenate([p.block_first for p in parts] + [np.zeros(1, np.int64)])
        self.values = np.concatenate([p.state_values for p in parts] + [np.zeros(1, np.uint16)])

    def args(self):
        return self.info, self.counts, self.block_first


def solve_group(rules: RuleSet, group: list[tuple[int, int]], inputs: list[HistorySubspace]) -> list[HistorySubspace]:
    """The states of ``group`` (a subspace and its twin) solved, reading ``inputs`` (what its
    removals lead into)."""
    ht = history_tables(rules)
    g = game_tables(plain_rules(rules))
    bix = board_index(rules.board)
    ix = bix.tables
    t0 = time.perf_counter()
    halves = []
    for a, b in group:
        slots = bix.slots(a, b)
        counts, block_first = subspace_index(a, b, slots, ht, ix)
        halves.append(HistorySubspace(a, b, slots, counts, block_first, np.empty(int(counts.sum(dtype=np.int64)), np.uint16), rules))
    gs = Store(halves)
    src = Store(inputs)
    value = gs.values
    count = np.zeros(len(value), np.uint8)
    parts, part0 = [], np.full((MEN, MEN), -1, dtype=np.int64)
    for h in halves:
        part0[h.a, h.b] = len(parts)
        parts += [(h.a, h.b, lo, min(h.slots, lo + k.PART)) for lo in range(0, h.slots, k.PART)]
    parts = np.array(parts, dtype=np.int64).reshape(-1, 4)
    lowest = np.full(len(parts), k.NONE, np.uint32)
    touched = np.full(len(parts), k.NONE, np.uint32)
    err = np.zeros(3, np.int64)
    t1 = time.perf_counter()
    k.init_group(parts, *gs.args(), value, count, *src.args(), src.values, lowest, ht, ix, g, err)
    t2 = time.perf_counter()
    first, levels = int(lowest.min(initial=k.NONE)), 0
    while first != k.NONE and not err.any():
        first = int(k.level_step(first - 1, parts, part0, *gs.args(), value, count, *src.args(), src.values, lowest, touched, ht, ix, g, err))
        levels += 1
    t3 = time.perf_counter()
    if err.any():
        raise RulesError(f"history engine: inconsistent states in group {group} (missing successors, predecessors, overflows: {err.tolist()})")
    k.finish(value)
    for h in halves:
        v0 = gs.info[h.a, h.b, V0]
        h.state_values = value[v0 : v0 + h.states].copy()
        h.timing = {"index_s": round(t1 - t0, 3), "init_s": round(t2 - t1, 3), "levels_s": round(t3 - t2, 3), "levels": levels}
    return halves


def solve_moving(rules: RuleSet, subspaces, progress=None, stored=frozenset(), load=None, keep: bool = True) -> dict[tuple[int, int], HistorySubspace]:
    """Every state of the moving subspaces ``subspaces`` and of what their removals reach, group
    by group; ``progress(group, halves)`` hears each group solved. A group whose subspaces are all
    in ``stored`` is skipped, and what a later group reads of it comes from ``load(a, b)`` (a
    ``HistorySubspace``). With ``keep`` False, a group's states are dropped once no later group
    reads them, so that a run holds one group and its inputs: the result then holds what is left."""
    check_supported(rules)
    groups = [g for g in moving_groups(closure(rules, subspaces))]
    reads = [sorted({t for a, b in g for t in removal_targets(rules, a, b)}) for g in groups]
    result: dict[tuple[int, int], HistorySubspace] = {}
    for i, group in enumerate(groups):
        if all(s in stored for s in group):
            continue
        inputs = []
        for t in reads[i]:
            if t not in result:
                if load is None:
                    raise RulesError(f"history engine: subspace {t[0]}-{t[1]} is needed but neither solved nor given")
                result[t] = load(*t)
            inputs.append(result[t])
        for h in solve_group(rules, group, inputs):
            result[h.a, h.b] = h
        if progress:
            progress(group, [result[s] for s in group])
        if not keep:
            later = {t for r in reads[i + 1 :] for t in r}
            for t in list(result):
                if t not in later:
                    del result[t]
    return result


def solve_whole(rules: RuleSet, progress=None) -> tuple[dict[tuple[int, int], HistorySubspace], dict[tuple, np.ndarray]]:
    """The whole game: the moving phase's states (``solve_moving``), then the tiers with men in
    hand, which hold plain positions only (no man moves while men are in hand, so no ban is made
    there, and the first position of the moving phase carries none): the plain engine's placing
    passes, reading the moving tiers' plain states. Returns (moving states, {placing tier: values})."""
    from ..engine import placing
    from ..engine.order import placing_groups
    from ..tiers import whole_game_tiers

    check_supported(rules)
    plain = plain_rules(rules)
    tiers = whole_game_tiers(plain)
    moving = solve_moving(rules, [(t[0], t[1]) for t in tiers if t[2] == t[3] == 0 and min(t[0], t[1]) >= 3], progress)
    index = board_index(rules.board)
    placed: dict[tuple, np.ndarray] = {}

    def solved(t):
        if t[2] == t[3] == 0:
            h = moving[t[0], t[1]]
            return h.values[: h.slots]
        return placed[t]

    for group in placing_groups(plain):
        for r in placing.solve_group(plain, index, group, solved):
            placed[r.tier] = r.values
    return moving, placed


def verify_moving(rules: RuleSet, moving: dict[tuple[int, int], HistorySubspace]) -> dict[tuple[int, int], int]:
    """``verify.check_half`` over every subspace: {subspace: states whose value is wrong}."""
    from .verify import check_half

    ht = history_tables(rules)
    g = game_tables(plain_rules(rules))
    ix = board_index(rules.board).tables
    store = Store(list(moving.values()))
    out = {}
    err = np.zeros(3, np.int64)
    for (a, b), h in moving.items():
        bad = np.zeros(h.states, dtype=np.bool_)
        check_half(a, b, *store.args(), store.values, ht, ix, g, bad, err)
        out[a, b] = int(bad.sum())
    if err.any():
        raise RulesError(f"history verify: a successor missing from the subspaces checked ({err.tolist()})")
    return out


def lookup(moving: dict[tuple[int, int], HistorySubspace], rules: RuleSet, text: str) -> int:
    """The stored value (``solver.values``' code) of a moving-phase position written with the
    history rule's suffix (``notation.parse_history_position``), from ``solve_moving``'s result.
    A record that is not live is dropped (the state is then the plain one, or has the other)."""
    from ..rules.notation import parse_history_position
    from .records import live
    from .states import state_numbers
    from .tables import encode_ban

    pos, ban, pending = parse_history_position(text, rules)
    ht = history_tables(rules)
    m, o = pos.mover, pos.opponent
    b_code = int(live(encode_ban(ban, rules), m, o, ht))
    p_code = int(live(encode_ban(pending, rules), o, m, ht))
    store = Store(list(moving.values()))
    ix = board_index(rules.board).tables
    n = state_numbers(*(np.array([x], np.int64) for x in (m, o, b_code, p_code)), *store.args(), ht, ix)[0]
    if n < 0:
        raise RulesError(f"{text!r}: no such state in the subspaces solved")
    return int(store.values[n])
