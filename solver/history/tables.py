"""The tables the history rule's kernels read, built once per rule set (``history_tables``)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..errors import RulesError
from ..rules.rulesets import RuleSet

SAME_MAN, RUNNING_MILL = 1, 2
KINDS = {"same-man": SAME_MAN, "running-mill": RUNNING_MILL}
MAX_THROUGH = 4  # mills through one point: a running-mill record keeps one bit each
CODE_BITS = 10  # a state's code: ban << CODE_BITS | pending (as tests/reference_history.py)
POINT, MAN, IMAGE = 0, 1, 2  # the columns of HistoryTables.rec (IMAGE + g: under symmetry g)


class HistoryTables(NamedTuple):
    kind: int  # SAME_MAN or RUNNING_MILL
    n: int
    full: int  # every point
    adj: np.ndarray  # adj[p]: the points next to p
    fly: int  # 1 where a side with 3 men flies
    thr_mask: np.ndarray  # thr_mask[p, j]: the j-th mill through p (board.mills order), 0-padded
    thr_rest: np.ndarray  # the same mill without p
    thr_count: np.ndarray  # mills through p
    # per record code (0: none; then every code a record can have, ``record_tables``):
    # rec[code, POINT]: its point, rec[code, MAN]: its man's point (same-man; else 0),
    # rec[code, IMAGE + g]: its image under symmetry g. Lookups where the kernels would divide by
    # n: a code's row together, int16 (codes stay below 1 << CODE_BITS) so that the table stays in
    # the first-level cache (21 KB on 24 points); one field, since every array a tuple holds slows
    # each helper that takes it (measured: three unused ones cost predecessors 50 %)
    rec: np.ndarray
    mills: np.ndarray  # every mill's mask


def plain_rules(rules: RuleSet) -> RuleSet:
    """The same rules without the history rule: what the plain move generator and index read."""
    return replace(rules, reclose="allowed")


def check_supported(rules: RuleSet) -> None:
    """One line where the engine cannot solve the history rule under these options."""
    if rules.reclose not in KINDS:
        raise RulesError(f"reclose={rules.reclose} is not a history rule this engine solves")
    for bad, why in (
        (rules.lasker == "on", "Lasker's rule (a ban made while men are in hand)"),
        (rules.blocked == "passes", "blocked=passes"),
        (rules.mill_wins == "on", "mill-wins=on"),
    ):
        if bad:
            raise RulesError(f"the history rule's engine does not handle {why} yet")


@lru_cache(maxsize=None)
def history_tables(rules: RuleSet) -> HistoryTables:
    check_supported(rules)
    board = rules.board_data
    n = board.n
    mills = [int(m) for m in board.mill_masks]
    thr_mask = np.zeros((n, MAX_THROUGH), dtype=np.int64)
    thr_rest = np.zeros((n, MAX_THROUGH), dtype=np.int64)
    thr_count = np.zeros(n, dtype=np.int64)
    local = {}  # (point, mill index) -> j
    for p in range(n):
        for k, m in enumerate(mills):
            if (m >> p) & 1:
                j = int(thr_count[p])
                thr_mask[p, j] = m
                thr_rest[p, j] = m & ~(1 << p)
                local[p, k] = j
                thr_count[p] += 1
    perm = np.array(board.symmetries, dtype=np.int64)
    lperm = np.zeros((len(perm), n, MAX_THROUGH), dtype=np.int64)
    for g, pg in enumerate(perm):
        for k, m in enumerate(mills):
            img = sum(1 << int(pg[q]) for q in range(n) if (m >> q) & 1)
            kk = mills.index(img)
            for p in range(n):
                if (m >> p) & 1:
                    lperm[g, p, local[p, k]] = local[int(pg[p]), kk]
    adj = np.asarray(board.adjacency_masks, dtype=np.int64)
    kind = KINDS[rules.reclose]
    return HistoryTables(
        kind, n, (1 << n) - 1, adj, int(rules.flying == "at-3"), thr_mask, thr_rest, thr_count,
        record_tables(kind, n, thr_count, perm, lperm), np.array(mills, dtype=np.int64),
    )


def record_tables(kind: int, n: int, thr_count, perm, lperm) -> np.ndarray:
    """``HistoryTables.rec`` for every code up to the largest (same-man ``1 + q n + p``: n * n;
    running-mill ``1 + 16 p + local``: 16 n), from ``perm[g, p]`` (the image of point p under
    symmetry g) and ``lperm[g, p, j]`` (the local number, among the mills through perm[g, p],
    of the image of p's j-th mill)."""
    size = (n * n if kind == SAME_MAN else 16 * n) + 1
    rec = np.zeros((size, IMAGE + len(perm)), dtype=np.int16)
    for code in range(1, size):
        if kind == SAME_MAN:
            q, p = divmod(code - 1, n)
            rec[code, POINT], rec[code, MAN] = p, q
            rec[code, IMAGE:] = 1 + perm[:, q] * n + perm[:, p]
        else:
            p, local = divmod(code - 1, 16)
            rec[code, POINT] = p
            for g in range(len(perm)):
                out = 0
                for j in range(int(thr_count[p])):
                    if (local >> j) & 1:
                        out |= 1 << int(lperm[g, p, j])
                rec[code, IMAGE + g] = 1 + 16 * int(perm[g, p]) + out
    return rec


def encode_ban(ban, rules: RuleSet) -> int:
    """The record code (``records``) of a ``notation.Ban``, or 0 for None."""
    if ban is None:
        return 0
    n = rules.board_data.n
    if ban.frm >= 0:
        return 1 + ban.frm * n + ban.to
    ht = history_tables(rules)
    local = 0
    for j in range(int(ht.thr_count[ban.to])):
        k = [int(m) for m in rules.board_data.mill_masks].index(int(ht.thr_mask[ban.to, j]))
        if k in ban.mills:
            local |= 1 << j
    return 1 + 16 * ban.to + local
