"""The stored value of a position: one uint16, for the side to move. The only place it is decoded.

    0           a draw (while solving: not decided yet)
    plies + 1   a win (plies odd) or a loss (plies even) in ``plies`` plies to the end of the game
    DUP         a slot that holds no canonical position (see ``solver.index``)

The engine reserves three more codes below DUP while solving (``engine.kernels.codes``), so the
longest storable game is ``MAX_PLIES`` plies.
"""

from __future__ import annotations

import numpy as np

WIN, DRAW, LOSS = "win", "draw", "loss"
DUP = 0xFFFF
MAX_PLIES = 0xFFFB  # value = plies + 1 stays below the three working codes under DUP
# Handed to a kernel for a tier that no move of the position's tier reaches: never read, and
# empty, so that a kernel that checks a slot against the array's length (the placing pass does)
# reports a successor in a tier it was not given instead of reading a draw.
NO_VALUES = np.zeros(0, dtype=np.uint16)


def wins_in(plies):
    """Whether the side to move wins a game that ends ``plies`` plies from now: an odd number (its
    own move ends it), where an even number is a loss. The one place the parity is read: the
    kernels compile it (``engine.kernels.codes.wins_in``)."""
    return plies % 2 == 1


def encode(value: str, plies: int | None) -> int:
    """The stored code of a win, draw or loss in ``plies``."""
    if value == DRAW:
        return 0
    if value not in (WIN, LOSS) or plies is None or plies < 0 or plies > MAX_PLIES:
        raise ValueError(f"cannot encode {value!r} in {plies!r} plies")
    if wins_in(plies) != (value == WIN):
        raise ValueError(f"a {value} has an {'even' if value == WIN else 'odd'} number of plies, not {plies}")
    return plies + 1


def decode(v: int) -> tuple[str | None, int | None]:
    """(value, plies) of a stored code: ("win"|"loss", plies), ("draw", None), or (None, None)
    for a slot that holds no position."""
    v = int(v)
    if v == DUP:
        return None, None
    if v == 0:
        return DRAW, None
    plies = v - 1
    return (WIN if wins_in(plies) else LOSS), plies


def decode_many(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised ``decode``: (kind, plies) with kind 1 = win, 0 = draw, -1 = loss, -2 = no
    position, and plies -1 where there are none."""
    v = np.asarray(values).astype(np.int64)
    plies = np.where((v == 0) | (v == DUP), -1, v - 1)
    kind = np.where(v == DUP, -2, np.where(v == 0, 0, np.where(wins_in(plies), 1, -1))).astype(np.int8)
    return kind, plies


def describe(v: int) -> str:
    """A stored code in words: "win in 7", "draw", "no position (duplicate slot)"."""
    value, plies = decode(v)
    if value is None:
        return "no position (duplicate slot)"
    return value if plies is None else f"{value} in {plies}"
