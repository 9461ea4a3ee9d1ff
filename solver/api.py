"""The public Python API: open a solved database and look up perfect play.

    >>> from solver.api import open_database
    >>> with open_database("data/standard.h5") as db:
    ...     db.probe("W:a1,d1,g1 B:a4,b4,c4 w")

and solve one (``solve`` a ``SolveRequest``: the front door ``morris solve`` calls):

    >>> from solver.api import SolveRequest, make_rules, solve
    >>> result = solve(SolveRequest(make_rules("six"), "six.h5", max_men=4))

Everything here is defined in ``solver.query`` (lookups), ``solver.solve`` (solving),
``solver.values`` (the stored value encoding) and ``solver.rules`` (rule sets, positions and
moves); this module gathers what a user needs in one place.
"""

from .errors import (
    DatabaseError,
    DepthOverflow,
    IllegalMoveError,
    MismatchError,
    MissingSubspaceError,
    MorrisError,
    NotationError,
    OutsideDatabaseError,
    RulesError,
)
from .query import (
    TEN_MOVE_PLIES,
    Analysis,
    MorrisDatabase,
    MoveValue,
    Probe,
    open_database,
    three_men_rule,
)
from .rules import Move, Position, RuleSet, make_rules
from .solve import SolveRequest, SolveResult, solve
from .values import DRAW, DUP, LOSS, WIN, decode, decode_many, describe

__all__ = [
    "WIN", "DRAW", "LOSS", "DUP", "TEN_MOVE_PLIES", "decode", "decode_many", "describe",
    "Probe", "MoveValue", "Analysis", "MorrisDatabase", "open_database", "three_men_rule",
    "Move", "Position", "RuleSet", "make_rules", "SolveRequest", "SolveResult", "solve",
    "MorrisError", "RulesError", "NotationError", "IllegalMoveError", "DatabaseError", "MismatchError",
    "MissingSubspaceError", "OutsideDatabaseError", "DepthOverflow",
]
