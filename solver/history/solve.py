"""The moving phase under the history rule, group by group (``solve_moving``).

Groups are taken as the plain engine takes them: a subspace and its twin, by the men on the
board, fewest first (a removal leads into a group solved before). Each group's states are
numbered (``states``), judged (``kernels.init_half``) and settled level by level
(``kernels.level_half``); its values are then what later groups' removals read. Everything is
held in memory: the small games the reference checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RulesError
from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from . import kernels as k
from .states import K0, NKEYS, SLOTS, V0, subspace_keys
from .tables import check_supported, history_tables, plain_rules

MEN = 13  # info's dimensions: men 0 ... 12 a side


@dataclass
class HistorySubspace:
    """The values of a subspace's states: ``values[slot]`` for the plain positions, then
    ``values[slots + i]`` for the state of side-table key ``keys[i]``."""

    a: int
    b: int
    slots: int
    keys: np.ndarray
    values: np.ndarray


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


def closure(rules: RuleSet, subs) -> list[tuple[int, int]]:
    """``subs``, their twins (a move without a removal leads there) and every moving subspace
    their removals lead into."""
    most = rules.most_removals
    out, todo = set(), list(subs)
    while todo:
        a, b = todo.pop()
        if (a, b) in out or a < 3 or b < 3:
            continue
        out.add((a, b))
        todo.append((b, a))
        for r in range(1, most(a) + 1):
            todo.append((b - r, a))
    return sorted(out)


class Store:
    """States of several subspaces in flat arrays, as the kernels' ``info``/``values``/``keys``."""

    def __init__(self, parts: list[HistorySubspace]):
        self.info = np.full((MEN, MEN, 4), -1, dtype=np.int64)
        v = kk = 0
        for p in parts:
            self.info[p.a, p.b] = (v, p.slots, kk, len(p.keys))
            v += p.slots + len(p.keys)
            kk += len(p.keys)
        self.keys = np.concatenate([p.keys for p in parts]) if parts else np.zeros(1, np.int64)
        self.values = np.concatenate([p.values for p in parts]) if parts else np.zeros(1, np.uint16)
        if not len(self.keys):
            self.keys = np.zeros(1, np.int64)


def solve_moving(rules: RuleSet, subspaces, progress=None) -> dict[tuple[int, int], HistorySubspace]:
    """Every state of the moving subspaces ``subspaces`` and of what their removals reach."""
    check_supported(rules)
    ht = history_tables(rules)
    g = game_tables(plain_rules(rules))
    bix = board_index(rules.board)
    ix = bix.tables
    result: dict[tuple[int, int], HistorySubspace] = {}
    for group in moving_groups(closure(rules, subspaces)):
        parts = []
        for a, b in group:
            slots = bix.slots(a, b)
            keys = subspace_keys(a, b, slots, ht, ix)
            parts.append(HistorySubspace(a, b, slots, keys, np.zeros(slots + len(keys), np.uint16)))
        gs = Store(parts)
        solved = Store(list(result.values()))
        size = len(gs.values)
        count = np.zeros(size, np.int64)
        ext = np.zeros(size, np.uint16)
        sched = np.full(size, k.NONE, np.uint16)
        err = np.zeros(3, np.int64)
        for a, b in group:
            k.init_half(a, b, gs.info, gs.values, gs.keys, solved.info, solved.values, solved.keys, count, ext, sched, ht, ix, g, err)
        level, latest = 0, int(sched[sched != k.NONE].max(initial=0))
        while level <= latest:
            for a, b in group:
                _, late = k.level_half(a, b, level, gs.info, gs.values, gs.keys, count, ext, sched, ht, ix, g, err)
                latest = max(latest, late)
            level += 1
        if err.any():
            raise RulesError(f"history engine: inconsistent states in group {group}: {err.tolist()}")
        for p in parts:
            v0 = gs.info[p.a, p.b, V0]
            p.values = gs.values[v0 : v0 + p.slots + len(p.keys)].copy()
            result[p.a, p.b] = p
        if progress:
            progress(group, parts)
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


def lookup(moving: dict[tuple[int, int], HistorySubspace], rules: RuleSet, text: str) -> int:
    """The stored value (``solver.values``' code) of a moving-phase position written with the
    history rule's suffix (``notation.parse_history_position``), from ``solve_moving``'s result.
    The records are taken as live where they are (a dead one is the plain state)."""
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
    k = state_numbers(*(np.array([x], np.int64) for x in (m, o, b_code, p_code)), store.info, store.keys, ht, ix)[0]
    if k < 0:
        raise RulesError(f"{text!r}: no such state in the subspaces solved")
    return int(store.values[k])


def verify_moving(rules: RuleSet, moving: dict[tuple[int, int], HistorySubspace]) -> dict[tuple[int, int], int]:
    """``verify.check_half`` over every subspace: {subspace: states whose value is wrong}."""
    from .verify import check_half

    ht = history_tables(rules)
    g = game_tables(plain_rules(rules))
    ix = board_index(rules.board).tables
    store = Store(list(moving.values()))
    out = {}
    err = np.zeros(3, np.int64)
    for a, b in moving:
        h = moving[a, b]
        bad = np.zeros(h.slots + len(h.keys), dtype=np.bool_)
        check_half(a, b, store.info, store.values, store.keys, ht, ix, g, bad, err)
        out[a, b] = int(bad.sum())
    if err.any():
        raise RulesError(f"history verify: a successor missing from the subspaces checked ({err.tolist()})")
    return out
