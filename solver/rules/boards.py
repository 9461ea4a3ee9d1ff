"""Boards as data: point names, adjacency, mills and symmetries.

A point's index is its position in the board string, which lists the points in alphabetical order
(docs/rules.md). Bit ``i`` of a mask is point ``i``. Everything downstream (move generation, index,
engine) receives these tables as arrays, so no code assumes 24 points or 16 mills.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations, product

import numpy as np

from ..errors import RulesError

# What the index can represent (solver.index): kernels.image reads three bytes of a mask, and the
# symmetry id is packed in 4 bits. A board beyond either is refused when it is built.
MAX_POINTS = 24
MAX_SYMMETRIES = 16


@dataclass(frozen=True)
class Board:
    name: str
    points: tuple[str, ...]  # alphabetical: the board-string order
    lines: tuple[tuple[str, ...], ...]  # drawn lines: consecutive points are adjacent
    mills: tuple[tuple[str, ...], ...]
    symmetries: tuple[tuple[int, ...], ...] = field(repr=False)  # perm[i] = image of point i
    diagram: str = field(repr=False)  # template: each point name is replaced by a man

    def __post_init__(self):
        if len(self.points) > MAX_POINTS:
            raise RulesError(f"the {self.name} board has {len(self.points)} points; at most {MAX_POINTS} are supported")
        if len(self.symmetries) > MAX_SYMMETRIES:
            raise RulesError(
                f"the {self.name} board has {len(self.symmetries)} symmetries; at most {MAX_SYMMETRIES} are supported"
            )
        if any(sorted(perm) != list(range(len(self.points))) for perm in self.symmetries):
            raise RulesError(f"the {self.name} board has a symmetry that is not a permutation of its points")

    @property
    def n(self) -> int:
        return len(self.points)

    @cached_property
    def index(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.points)}

    @cached_property
    def neighbours(self) -> tuple[frozenset[int], ...]:
        adj: list[set[int]] = [set() for _ in self.points]
        for line in self.lines:
            for u, v in zip(line, line[1:]):
                adj[self.index[u]].add(self.index[v])
                adj[self.index[v]].add(self.index[u])
        return tuple(frozenset(a) for a in adj)

    # ---- arrays for the kernels -------------------------------------------------------------
    @cached_property
    def adjacency_masks(self) -> np.ndarray:
        """adj[i] = bitmask of the points adjacent to point i."""
        return np.array([sum(1 << j for j in nb) for nb in self.neighbours], dtype=np.int64)

    @cached_property
    def mill_masks(self) -> np.ndarray:
        return np.array([sum(1 << self.index[p] for p in m) for m in self.mills], dtype=np.int64)

    @cached_property
    def point_mills(self) -> np.ndarray:
        """point_mills[i] = the masks of the mills through point i, padded with 0."""
        width = max(sum(1 for m in self.mills if p in m) for p in self.points)
        out = np.zeros((self.n, width), dtype=np.int64)
        for i, p in enumerate(self.points):
            ms = [mm for mm, m in zip(self.mill_masks, self.mills) if p in m]
            out[i, : len(ms)] = ms
        return out

    @cached_property
    def symmetry_array(self) -> np.ndarray:
        return np.array(self.symmetries, dtype=np.int8)

    def most_mills_closed(self, men: int, slide: bool) -> int:
        """The most mills one move closes at once for a side with ``men`` men on the board after
        it: mills through the point the man arrives on, whose other points hold the side's other
        men (so k of them need their other points to number ``men - 1`` at most). A ``slide``
        comes from a neighbour, left empty, so no mill through that neighbour closes; a placement
        or a flight comes from off the board or any other point."""
        most = 0
        for to in range(self.n):
            through = [frozenset(self.index[p] for p in m) - {to} for m in self.mills if self.points[to] in m]
            for origin in sorted(self.neighbours[to]) if slide else [-1]:
                usable = [m for m in through if origin not in m]
                for k in range(len(usable), most, -1):
                    if any(len(frozenset().union(*ms)) <= men - 1 for ms in combinations(usable, k)):
                        most = k
                        break
        return most

    def render(self, cells: dict[int, str]) -> str:
        """The diagram with ``cells[i]`` (one character) drawn on point i, '.' elsewhere."""
        lines = self.diagram.split("\n")
        out = []
        for line in lines[:-1]:  # the last line holds the file letters
            for i, p in enumerate(self.points):
                at = line.find(p, 2)  # skip the rank label
                if at >= 0:
                    # Keep the width: the man takes the name's first character, the line runs on.
                    after = line[at + 2] if at + 2 < len(line) else " "
                    fill = "-" if after == "-" else " "
                    line = line[:at] + cells.get(i, ".") + fill + line[at + 2 :]
            out.append(line.rstrip())
        out.append(lines[-1])
        return "\n".join(out)


def _grid_symmetries(names: tuple[str, ...], size: int, ring_swap: dict[int, int] | None):
    """Symmetries of a board drawn on a size x size grid: the dihedral group of the square,
    times the coordinate map that swaps inner and outer rings when ``ring_swap`` is given."""
    coords = {p: (ord(p[0]) - ord("a"), int(p[1:]) - 1) for p in names}
    where = {c: p for p, c in coords.items()}
    m = size - 1

    def dihedral(k: int, x: int, y: int) -> tuple[int, int]:
        for _ in range(k % 4):
            x, y = y, m - x
        return (m - x, y) if k >= 4 else (x, y)

    perms = []
    swaps = [False, True] if ring_swap else [False]
    for swap, k in product(swaps, range(8)):
        perm = []
        for p in names:
            x, y = coords[p]
            if swap:
                x, y = ring_swap[x], ring_swap[y]
            perm.append(names.index(where[dihedral(k, x, y)]))
        perms.append(tuple(perm))
    return tuple(perms)


def _make(name, lines, mills, size, ring_swap, diagram) -> Board:
    points = tuple(sorted({p for line in lines for p in line}, key=lambda p: (p[0], int(p[1:]))))
    return Board(
        name=name,
        points=points,
        lines=tuple(tuple(line) for line in lines),
        mills=tuple(tuple(m) for m in mills),
        symmetries=_grid_symmetries(points, size, ring_swap),
        diagram=diagram,
    )


_STD_MILLS = [
    # rows
    "a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3", "b2 d2 f2", "a1 d1 g1",
    # columns
    "a1 a4 a7", "b2 b4 b6", "c3 c4 c5", "d5 d6 d7", "d1 d2 d3", "e3 e4 e5", "f2 f4 f6", "g1 g4 g7",
]
_DIAGONAL_MILLS = ["a1 b2 c3", "a7 b6 c5", "g7 f6 e5", "g1 f2 e3"]
_STD_SWAP = {0: 2, 2: 0, 4: 6, 6: 4, 1: 1, 3: 3, 5: 5}

# Diagram templates: every point name starts at its file's column (a=2, b=6, ...), so that a man
# drawn over the name's first character keeps the columns straight.
_STD_DIAGRAM = """\
7 a7----------d7----------g7
6 |   b6------d6------f6  |
5 |   |   c5--d5--e5  |   |
4 a4--b4--c4      e4--f4--g4
3 |   |   c3--d3--e3  |   |
2 |   b2------d2------f2  |
1 a1----------d1----------g1
  a   b   c   d   e   f   g"""

_DIAG_DIAGRAM = """\
7 a7----------d7----------g7
6 | \\ b6------d6------f6 /|
5 |   | \\ c5--d5--e5 / |   |
4 a4--b4--c4      e4--f4--g4
3 |   | / c3--d3--e3 \\ |   |
2 | / b2------d2------f2 \\|
1 a1----------d1----------g1
  a   b   c   d   e   f   g"""

_SIX_LINES = [
    "a1 c1 e1", "e1 e3 e5", "a5 c5 e5", "a1 a3 a5",  # outer square
    "b2 c2 d2", "d2 d3 d4", "b4 c4 d4", "b2 b3 b4",  # inner square
    "a3 b3", "c1 c2", "d3 e3", "c4 c5",  # midpoints joined
]
_SIX_DIAGRAM = """\
5 a5------c5------e5
4 |   b4--c4--d4  |
3 a3--b3      d3--e3
2 |   b2--c2--d2  |
1 a1------c1------e1
  a   b   c   d   e"""

_THREE_LINES = [
    "a1 b1 c1", "a2 b2 c2", "a3 b3 c3", "a1 a2 a3", "b1 b2 b3", "c1 c2 c3", "a1 b2 c3", "a3 b2 c1",
]
_THREE_DIAGRAM = """\
3 a3--b3--c3
  | \\ | / |
2 a2--b2--c2
  | / | \\ |
1 a1--b1--c1
  a   b   c"""


def _split(specs):
    return [s.split() for s in specs]


STANDARD = _make("standard", _split(_STD_MILLS), _split(_STD_MILLS), 7, _STD_SWAP, _STD_DIAGRAM)
DIAGONAL = _make(
    "diagonal",
    _split(_STD_MILLS + _DIAGONAL_MILLS),
    _split(_STD_MILLS + _DIAGONAL_MILLS),
    7,
    _STD_SWAP,
    _DIAG_DIAGRAM,
)
SIX = _make("six", _split(_SIX_LINES), _split(_SIX_LINES[:8]), 5, {0: 1, 1: 0, 3: 4, 4: 3, 2: 2}, _SIX_DIAGRAM)
THREE = _make("three", _split(_THREE_LINES), _split(_THREE_LINES), 3, None, _THREE_DIAGRAM)

BOARDS: dict[str, Board] = {b.name: b for b in (STANDARD, DIAGONAL, SIX, THREE)}
