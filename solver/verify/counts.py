"""The statistics of a tier counted again from the values the verify read, to be compared with
those stored beside them (``storage.SubspaceInfo``; the side table's attrs under the history
rule): the positions (slots that are not DUP), the wins, draws and losses, and the longest win
and loss (-1 where there is none). Counted here, by a kernel of the verify's own, not by the
writer's tally."""

from __future__ import annotations

import numba as nb
import numpy as np

from ..values import DUP
from .kernels import wins_in  # (the parity of solver.values, compiled)

COUNTS = ("positions", "win", "draw", "loss", "max_win", "max_loss")
POSITIONS, WIN, DRAW, LOSS, MAX_WIN, MAX_LOSS = range(6)
STATE_COUNTS = ("states", "win", "draw", "loss", "max_win", "max_loss")  # the history rule's side table


def new_counts() -> np.ndarray:
    """Counts of nothing yet, for ``add_counts``."""
    out = np.zeros(len(COUNTS), dtype=np.int64)
    out[MAX_WIN] = out[MAX_LOSS] = -1
    return out


def count(v: np.ndarray) -> np.ndarray:
    """The counts of the values ``v`` (``COUNTS``' order)."""
    out = new_counts()
    add_counts(v, out)
    return out


def add_counts(v: np.ndarray, into: np.ndarray) -> None:
    """Add the counts of the values ``v`` (a tier read a piece at a time) to ``into``."""
    parts = max(1, min(nb.get_num_threads(), v.shape[0] >> 20))  # (a thread per MiB of slots at most)
    _add_counts(v, into, parts)


@nb.njit(cache=True, parallel=True)
def _add_counts(v, into, parts):
    n = v.shape[0]
    part = np.zeros((parts, 6), dtype=np.int64)
    for p in nb.prange(parts):
        positions = win = draw = loss = 0
        longest_win = longest_loss = -1
        for s in range(n * p // parts, n * (p + 1) // parts):
            code = np.int64(v[s])
            if code == DUP:
                continue
            positions += 1
            if code == 0:
                draw += 1
            elif wins_in(code - 1):
                win += 1
                longest_win = max(longest_win, code - 1)
            else:
                loss += 1
                longest_loss = max(longest_loss, code - 1)
        part[p, 0], part[p, 1], part[p, 2], part[p, 3], part[p, 4], part[p, 5] = (
            positions, win, draw, loss, longest_win, longest_loss)
    for p in range(parts):
        for k in range(4):
            into[k] += part[p, k]
        into[4] = max(into[4], part[p, 4])
        into[5] = max(into[5], part[p, 5])


def as_dict(counts: np.ndarray) -> dict[str, int]:
    """The counts of a tier by name, with the longest game (``max_plies``) it stores."""
    out = {k: int(x) for k, x in zip(COUNTS, counts)}
    return {**out, "max_plies": max(out["max_win"], out["max_loss"])}


def as_states(counts: np.ndarray) -> dict[str, int]:
    """The counts of the history rule's states (plain positions and side table) by the names of
    the side table's attrs."""
    return {k: int(x) for k, x in zip(STATE_COUNTS, counts)}


def differences(stored: dict, counted: dict, where: str = "") -> list[str]:
    """"<where>win: stored 5, counted 6" for each count the stored statistics get wrong."""
    return [f"{where}{k}: stored {int(stored[k]):,}, counted {counted[k]:,}" for k in counted if int(stored[k]) != counted[k]]


def stored_counts(s) -> dict[str, int]:
    """The counts stored with tier ``s`` (a ``storage.SubspaceInfo``)."""
    return {k: int(getattr(s, k)) for k in (*COUNTS, "max_plies")}
