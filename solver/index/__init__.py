"""Symmetry-reduced index of a subspace: (mover's men, opponent's men) <-> slot.

``tables`` builds a board's index tables once (``board_index``) and hands them to the kernels as
one ``IndexTables`` named tuple; ``kernels`` holds the numba rank, unrank and canonical-form
functions (scheme ``orbit-rep-colex/1``, described there and in the README's "Database layout").
"""

from ..rules.boards import MAX_POINTS, MAX_SYMMETRIES
from .tables import BoardIndex, IndexTables, board_index

__all__ = ["MAX_POINTS", "MAX_SYMMETRIES", "BoardIndex", "IndexTables", "board_index"]
