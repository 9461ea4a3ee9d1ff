"""Decisions that wait for a level: removal outcomes sorted by level, and deferred losses."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...jit import helper
from .codes import is_level, wins_in
from .frontier import add


@helper
def level_zero(value, frontier):
    """Mark the positions lost already (level 0) in the frontier bitmap; return how many."""
    n = 0
    for s in range(value.shape[0]):
        if value[s] == 1:
            add(frontier, s)
            n += 1
    return n


@nb.njit(cache=True)
def schedule(removals, max_level):
    """Slots with a removal outcome, sorted by its level: (order, start of each level)."""
    hist = np.zeros(max_level + 2, dtype=np.int64)
    for s in range(removals.shape[0]):
        e = removals[s]
        if is_level(e):
            hist[e] += 1
    start = np.zeros(max_level + 3, dtype=np.int64)
    for lvl in range(max_level + 2):
        start[lvl + 1] = start[lvl] + hist[lvl]
    order = np.empty(start[max_level + 2], dtype=np.uint32)
    fill = start.copy()
    for s in range(removals.shape[0]):
        e = removals[s]
        if is_level(e):
            order[fill[e]] = s
            fill[e] += 1
    return order, start


@helper
def take_scheduled(lvl, order, start, value, count, frontier, nout):
    """Decide the positions whose removal outcome falls at this level (marked in ``frontier``)."""
    if lvl + 1 >= start.shape[0]:
        return nout
    for i in range(start[lvl], start[lvl + 1]):
        s = order[i]
        if value[s] != 0:
            continue
        if wins_in(lvl) or count[s] == 0:
            value[s] = lvl + 1
            add(frontier, s)
            nout += 1
    return nout


@helper
def take_deferred(lvl, deferred, ndef, value, count, frontier, nout):
    """Decide the deferred losses due at this level; drop them from the list."""
    keep = 0
    for i in range(ndef):
        s = deferred[i, 0]
        due = deferred[i, 1]
        if due == lvl:
            if value[s] == 0 and count[s] == 0:
                value[s] = lvl + 1
                add(frontier, s)
                nout += 1
        elif due > lvl:
            deferred[keep, 0] = s
            deferred[keep, 1] = due
            keep += 1
    return nout, keep


@helper
def max_removal_level(removals):
    m = 0
    for s in range(removals.shape[0]):
        e = removals[s]
        if is_level(e) and e > m:
            m = e
    return m
