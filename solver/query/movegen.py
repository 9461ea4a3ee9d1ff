"""Which move generator a lookup runs: its source as plain Python while few positions have been
looked up (no numba to load: a lookup from the shell answers at once), the compiled kernels once
many have (then some microseconds a position against about 50)."""

from __future__ import annotations

import numpy as np

# Positions a database object looks up with the move generator run as plain Python, before it
# loads the compiled one (about a second).
PLAIN_POSITIONS = 5000


class MoveGenerators:
    """The choice for one database object: ``looked_up`` counts its positions so far, ``buf`` is
    the move rows' buffer (made with the first generator chosen)."""

    def __init__(self) -> None:
        self.looked_up = 0
        self.buf: np.ndarray | None = None

    def for_batch(self, count: int):
        """The move generator for a batch of ``count`` positions."""
        self.looked_up += count
        if self.looked_up <= PLAIN_POSITIONS:
            from ..rules.plain_movegen import movegen

            mg = movegen()
        else:
            from ..rules import movegen as mg
        if self.buf is None:
            self.buf = np.empty((mg.MAX_MOVES, 5), dtype=np.int64)
        return mg

    def warm_up(self, tables) -> None:
        """Take the compiled generator from now on, and load it (about half a second) on the game
        ``tables`` (``rules.tables.game_tables``)."""
        self.looked_up = max(self.looked_up, PLAIN_POSITIONS)
        mg = self.for_batch(1)
        mg.game_status(0, 0, 0, 0, tables, self.buf)
        mg.generate_moves(0, 0, 0, 0, tables, self.buf)
