"""The draw ranks' analysis as one numba kernel: ``ranks.rank_draws_plain`` step for step, on
arrays instead of Python lists (the plain version holds about 1.7 KB a draw; this one the graph's
arrays and a heap)."""

from __future__ import annotations

import heapq

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _sign(x):
    return (x > 0) - (x < 0)


@nb.njit(cache=True)
def _move(rank, tempo, mover_value):
    """``ranks.move_value``."""
    r = -rank
    if r == mover_value:
        return r, 0
    return r, -tempo + _sign(r - mover_value)


@nb.njit(cache=True)
def _push(heap, c, pt, rank, tempo, value_of, seq):
    pv = value_of[pt]
    r, t = _move(rank[c], tempo[c], pv)
    pk = r - pv
    if pk == 0:
        return seq
    heapq.heappush(heap, (-abs(pk), t * _sign(pk), seq, c, pt))
    return seq + 1


@nb.njit(cache=True)
def _push_once(heap, c, pt, k, marked, rank, tempo, value_of, seq):
    """``_push`` node c for tier pt unless group k has already queued it for that tier."""
    key = k * value_of.shape[0] + pt
    if marked[c] == key:
        return seq
    marked[c] = key
    return _push(heap, c, pt, rank, tempo, value_of, seq)


@nb.njit(cache=True)
def rank_groups(offset, tier_of, start, children, rstart, parents, value_of, group_tiers, group_start, rank, tempo):
    """Every node's (rank, tempo), group by group: ``group_tiers[group_start[k]:group_start[k+1]]``
    are the tier indices of the k-th group, in solving order. ``rank`` comes in as each node's
    own tier's value and ``tempo`` as 0 (what an undecided node keeps)."""
    n = tier_of.shape[0]
    decided = np.zeros(n, dtype=np.bool_)
    count = start[1:] - start[:-1]
    in_group = np.zeros(value_of.shape[0], dtype=np.bool_)
    marked = np.full(n, -1, dtype=np.int64)  # (group, parent tier) an outside child was queued for
    seq = 0
    heap = [(np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0))]
    heap.pop()
    for k in range(group_start.shape[0] - 1):
        tiers = group_tiers[group_start[k] : group_start[k + 1]]
        for i in tiers:
            in_group[i] = True
        for i in tiers:
            for v in range(offset[i], offset[i + 1]):
                for e in range(start[v], start[v + 1]):
                    c = children[e]
                    if in_group[tier_of[c]]:
                        continue
                    seq = _push_once(heap, c, i, k, marked, rank, tempo, value_of, seq)
        while len(heap) > 0:
            item = heapq.heappop(heap)
            c, pt = item[3], item[4]
            pv = value_of[pt]
            for e in range(rstart[c], rstart[c + 1]):
                p = parents[e]
                if tier_of[p] != pt or decided[p]:
                    continue
                r, t = _move(rank[c], tempo[c], pv)
                if r <= pv:
                    count[p] -= 1
                    if count[p] > 0:
                        continue
                rank[p] = r
                tempo[p] = t
                decided[p] = True
                # queue p once for each tier of the group its parents lie in
                for e2 in range(rstart[p], rstart[p + 1]):
                    q = parents[e2]
                    tq = tier_of[q]
                    if not in_group[tq]:
                        continue
                    seq = _push_once(heap, p, tq, k, marked, rank, tempo, value_of, seq)
        for i in tiers:
            in_group[i] = False
