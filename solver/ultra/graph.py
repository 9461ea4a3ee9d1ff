"""The drawn positions of a solved database and the drawing moves between them, as one graph.

Ranking draws needs only the draws: a drawn position's best moves are drawing moves (a move into
a position the opponent loses would make it a win; one into a position the opponent wins is worse
than any draw), so the graph keeps the draws and the edges between them. Nodes are numbered tier
by tier; a tier's draws in slot order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..index import board_index
from ..index.kernels import rank_position
from ..rules.bits import popcount
from ..rules.movegen import MAX_MOVES, ONGOING, apply_move, game_status, generate_moves
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..tiers import Tier
from ..values import DUP


def tier_code(t: Tier) -> int:
    """A tier as one int (the kernel's name for a successor's tier): 6 bits a number."""
    a, b, ha, hb = t
    return (a << 18) | (b << 12) | (ha << 6) | hb


@nb.njit(cache=True)
def successors_of(movers, opps, hand_me, hand_opp, g, ix):
    """Every position after each legal move of each position (all of one tier), seen from the
    new side to move: (row of the position, tier code, slot). Positions with no move (a full
    board's draw) have no rows; one row per move, so a position reached by two moves is listed
    twice (the ranking counts edges, not positions)."""
    buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
    cap = movers.shape[0] * 16 + 16
    src = np.empty(cap, dtype=np.int64)
    code = np.empty(cap, dtype=np.int64)
    slot = np.empty(cap, dtype=np.int64)
    k = 0
    for i in range(movers.shape[0]):
        me, opp = movers[i], opps[i]
        if game_status(me, opp, hand_me, hand_opp, g, buf) != ONGOING:
            continue
        nm = generate_moves(me, opp, hand_me, hand_opp, g, buf)
        for j in range(nm):
            m2, o2, h2 = apply_move(me, opp, hand_me, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
            if k == cap:
                cap *= 2
                src = np.concatenate((src, np.empty(cap - k, dtype=np.int64)))
                code = np.concatenate((code, np.empty(cap - k, dtype=np.int64)))
                slot = np.concatenate((slot, np.empty(cap - k, dtype=np.int64)))
            # the new side to move is the opponent: (opp, me, hand_opp, hand_me after the move)
            src[k] = i
            code[k] = (popcount(o2) << 18) | (popcount(m2) << 12) | (hand_opp << 6) | h2
            slot[k] = rank_position(o2, m2, ix)
            k += 1
    return src[:k], code[:k], slot[:k]


@dataclass
class DrawGraph:
    """Draws of every tier of a database and the drawing moves between them.

    ``tiers[i]`` holds nodes ``offset[i]`` to ``offset[i + 1] - 1``, its draws at ``slots[i]``
    (increasing); ``tier_of[node]`` is the index of the node's tier. Edges in CSR form:
    ``children[start[v]:start[v + 1]]`` are the nodes v's drawing moves lead to (one per move).
    ``moves[v]`` counts all of v's moves (0: a draw with no move, a full board).
    """

    tiers: list[Tier]
    slots: list[np.ndarray]
    offset: np.ndarray
    tier_of: np.ndarray
    start: np.ndarray
    children: np.ndarray
    moves: np.ndarray

    @property
    def nodes(self) -> int:
        return int(self.offset[-1])

    def node(self, t: Tier, slot: int) -> int:
        """The node of ``slot`` of tier ``t`` (-1 where that slot is no draw)."""
        i = self.tiers.index(t)
        s = self.slots[i]
        j = int(np.searchsorted(s, slot))
        return int(self.offset[i]) + j if j < s.size and s[j] == slot else -1


def draw_graph(db, rules: RuleSet | None = None) -> DrawGraph:
    """The draw graph of a database solved with ``--whole-game`` (every tier its draws move
    into must be there: a whole game's are)."""
    rules = rules or db.rules
    g = game_tables(rules)
    ix = board_index(rules.board).tables
    tiers = sorted(db.tier_keys())
    values = {t: db.values(*t) for t in tiers}
    slots = [np.flatnonzero(values[t] == 0).astype(np.int64) for t in tiers]
    offset = np.zeros(len(tiers) + 1, dtype=np.int64)
    offset[1:] = np.cumsum([s.size for s in slots])
    tier_of = np.repeat(np.arange(len(tiers)), [s.size for s in slots])
    lookup = {tier_code(t): i for i, t in enumerate(tiers)}
    srcs, dsts = [], []
    moves = np.zeros(int(offset[-1]), dtype=np.int64)
    for i, t in enumerate(tiers):
        a, b, ha, hb = t
        movers, opps, _ = board_index(rules.board).unrank_many(a, b, slots[i])
        src, code, slot = successors_of(movers, opps, ha, hb, g, ix)
        moves[offset[i] : offset[i + 1]] = np.bincount(src, minlength=slots[i].size)
        node = np.full(src.size, -1, dtype=np.int64)
        for c in np.unique(code):
            if int(c) not in lookup:
                raise ValueError(f"tier {t} moves into a tier the database lacks (code {int(c)})")
            j = lookup[int(c)]
            sel = code == c
            v = values[tiers[j]][slot[sel]]
            if np.any(v == DUP):
                raise ValueError(f"a move from tier {t} ranks into a slot of {tiers[j]} that holds no position")
            # a draw's slot is among the tier's draw slots, whose rank in them is its node
            node[sel] = np.where(v == 0, offset[j] + np.searchsorted(slots[j], slot[sel]), -1)
        keep = node >= 0
        srcs.append(offset[i] + src[keep])
        dsts.append(node[keep])
    src = np.concatenate(srcs) if srcs else np.zeros(0, dtype=np.int64)
    dst = np.concatenate(dsts) if dsts else np.zeros(0, dtype=np.int64)
    order = np.argsort(src, kind="stable")
    start = np.zeros(int(offset[-1]) + 1, dtype=np.int64)
    start[1:] = np.cumsum(np.bincount(src, minlength=int(offset[-1])))
    return DrawGraph(tiers, slots, offset, tier_of, start, dst[order], moves)
