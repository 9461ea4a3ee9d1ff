"""Symmetry-reduced index of a subspace: (mover's men, opponent's men) <-> slot.

``tables`` builds a board's index tables once (``board_index``) and hands them to the kernels as
one ``IndexTables`` named tuple; ``kernels`` holds the numba rank, unrank and canonical-form
functions (scheme ``orbit-rep-colex/1``, described there and in the README's "Database layout").
``plain`` ranks positions without numba, from the orbit minima that ``cache`` keeps on disk: a
lookup from the shell then never loads a kernel. The names below are imported on first use, so
that importing ``solver.index.plain`` does not import numba.
"""

from ..rules.boards import MAX_POINTS, MAX_SYMMETRIES

__all__ = ["MAX_POINTS", "MAX_SYMMETRIES", "BoardIndex", "IndexTables", "board_index"]


def __getattr__(name: str):
    if name in ("BoardIndex", "IndexTables", "board_index"):
        from . import tables

        return getattr(tables, name)
    raise AttributeError(f"module 'solver.index' has no attribute {name!r}")
