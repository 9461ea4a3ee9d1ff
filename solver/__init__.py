"""Nine Men's Morris and relatives: rules, perfect-play databases, queries.

``open_database(path)`` opens a solved database for queries (see ``solver.api``).
"""

from .api import Analysis, MorrisDatabase, MoveValue, Probe, open_database, three_men_rule

__all__ = ["open_database", "MorrisDatabase", "Probe", "MoveValue", "Analysis", "three_men_rule"]
