"""How many positions a subspace holds up to symmetry, without enumerating it.

Burnside's lemma: the number of orbits is the average, over the board's symmetries, of the
positions each one fixes. A position fixed by a permutation paints each of its cycles wholly
mover, opponent or empty, so the fixed positions are counted from the cycle lengths alone. This
is independent of the index: the tests compare it with the canonical slots the index enumerates.
"""

from __future__ import annotations

from functools import lru_cache

from ..errors import RulesError
from ..rules.boards import BOARDS, Board


def cycle_lengths(perm: tuple[int, ...]) -> list[int]:
    seen, lengths = set(), []
    for start in range(len(perm)):
        length, p = 0, start
        while p not in seen:
            seen.add(p)
            p = perm[p]
            length += 1
        if length:
            lengths.append(length)
    return lengths


def positions_up_to_symmetry(board: Board, a: int, b: int) -> int:
    """Positions with ``a`` men of the side to move and ``b`` of the other, up to symmetry."""
    total = 0
    for perm in board.symmetries:
        ways = {(0, 0): 1}  # paintings of the cycles so far with x mover and y opponent points
        for length in cycle_lengths(perm):
            grown: dict[tuple[int, int], int] = {}
            for (x, y), w in ways.items():
                for dx, dy in ((0, 0), (length, 0), (0, length)):
                    if x + dx <= a and y + dy <= b:
                        grown[(x + dx, y + dy)] = grown.get((x + dx, y + dy), 0) + w
            ways = grown
        total += ways.get((a, b), 0)
    if total % len(board.symmetries):  # (an explicit check: ``python -O`` drops asserts)
        raise RulesError(f"the symmetries of the {board.name} board do not form a group: Burnside's count is not whole")
    return total // len(board.symmetries)


@lru_cache(maxsize=None)
def subspace_positions(board_name: str, a: int, b: int) -> int:
    return positions_up_to_symmetry(BOARDS[board_name], a, b)
