"""Looking up perfect play in a solved database: the Python API, shaped like python-chess's syzygy
module.

    >>> from solver import open_database
    >>> with open_database("data/standard.h5") as db:
    ...     db.probe("W:a1,d1,g1 B:a4,b4,c4 w")          # Probe(value='win', plies=..., ...)
    ...     db.evaluate_moves("W:a1,d1,g1 B:a4,b4,c4 w")  # every legal move, best first
    ...     db.best_moves("W:a1,d1,g1 B:a4,b4,c4 w")      # the moves that keep the value

Values follow docs/rules.md ("Values"): win, draw or loss for the side to move, with the plies to the
end of the game under perfect play (``None`` for a draw). A side to move that has already lost
(fewer than 3 men, blocked, or under mill-wins facing a mill) has lost in 0 plies and has no moves.

A move's value is for the player making it, and its plies are counted from the probed position:
a move into a position that is a loss in k plies for the opponent is a win in k + 1, one into a
win in k for the opponent a loss in k + 1; a move that ends the game at once (the opponent left
with two men, or with no move) is a win in 1.

Positions are probed from the side to move: the tier is (men of the side to move on the board,
men of the opponent on the board, men in hand of each), and the successors of a move lie in the
opponent's view. A database of the moving phase answers positions with no men in hand; one
solved with ``--whole-game`` answers the placing phase too. A position in a tier the database
lacks raises ``MissingSubspaceError``, naming the tier and the command that builds it; the
package's opening book of the rule set (``solver.books``) answers the tiers it holds where the
database lacks them, or stands in where there is none. Opening reads only the file's header and
catalogue; a probe reads the chunk its value lies in (``Database.read_slots``: inflated by ISA-L,
the last ones kept), and the ``*_many`` methods read the values of many positions with one read
per subspace.

A few lookups load no numba (about a second of a process's start): the moves come from the move
generator's source run as plain Python (``plain_movegen``), the slots from numpy and the board's
orbit minima cached on disk (``index.plain``; the first lookup on a board builds the index and
writes them). After ``movegen.PLAIN_POSITIONS`` positions a database object switches to the
compiled move generator, which is then faster.

The three-men ten-move rule ("three men each and no removal within ten moves is a draw") depends
on the game's history, so it is not part of a stored value; ``three_men_rule`` answers it from the
stored plies (see there), and ``Probe.three_men_rule`` / ``MoveValue.three_men_rule`` carry that
answer wherever both sides have exactly 3 men.

The modules, by job: ``results`` (``Probe``, ``MoveValue``, ``Analysis``), ``three_men`` (the
ten-move rule), ``database`` (``MorrisDatabase``, the reader and its batch pipeline), ``movegen``
(which move generator a lookup runs), ``draw_ranks`` (draw ranks read beside the values),
``history_rule`` (lookups under the history rule) and ``game`` (the start position's value).
"""

from .database import MorrisDatabase, open_database
# (Importable here besides ``__all__``: the game's value, and the plain generator's limit.)
from .game import describe_game, game_value, game_value_line, start_position
from .movegen import PLAIN_POSITIONS
from .results import Analysis, MoveValue, Probe
from .three_men import TEN_MOVE_PLIES, three_men_rule

__all__ = [
    "TEN_MOVE_PLIES",
    "Probe",
    "MoveValue",
    "Analysis",
    "MorrisDatabase",
    "open_database",
    "three_men_rule",
]
