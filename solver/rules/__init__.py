"""The rules: boards as data, rule sets, the text notation, and move generation.

``boards`` (points, lines, mills, symmetries) and ``rulesets`` (docs/rules.md's options) describe a
game; ``notation`` reads and writes positions and moves; ``movegen`` holds the numba kernels of
move generation and the game-over test, fed by ``tables.game_tables``; ``game`` wraps them for
Python callers. Importing this package does not import numba (``morris --help`` stays light).
"""

from .boards import BOARDS, Board
from .notation import Move, Position, format_move, format_position, parse_move, parse_position
from .rulesets import NAMED, RuleSet, get_rules, make_rules, with_options

__all__ = [
    "BOARDS", "Board", "Move", "Position", "format_move", "format_position", "parse_move", "parse_position",
    "NAMED", "RuleSet", "get_rules", "make_rules", "with_options",
]
