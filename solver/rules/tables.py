"""The rules as the kernels see them: one named tuple of the board's tables and the options."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .rulesets import RuleSet


class GameTables(NamedTuple):
    """Board and rule options for the numba kernels (numba passes a named tuple as one value)."""

    n: int  # points on the board
    adj: np.ndarray  # adj[i]: bitmask of the points adjacent to point i
    mill_masks: np.ndarray  # one bitmask per mill
    point_mills: np.ndarray  # point_mills[i]: the masks of the mills through point i, 0-padded
    opts: np.ndarray  # RuleSet.kernel_options(), indexed by movegen.OPT_*


@lru_cache(maxsize=None)
def game_tables(rules: RuleSet) -> GameTables:
    b = rules.board_data
    return GameTables(b.n, b.adjacency_masks, b.mill_masks, b.point_mills, rules.kernel_options())
