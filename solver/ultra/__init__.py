"""Ultra-strong play: the draws of a solved database ranked as Gévay and Danner's Malom ranks them.

``secval`` gives each tier Malom's sector value from the strong solution's statistics; ``graph``
collects the drawn positions and the drawing moves between them; ``ranks`` runs Malom's
multi-valued retrograde analysis over that graph. ``docs/ultra-strong.md`` has the definitions,
with references to Malom's source.
"""

from .graph import DrawGraph, draw_graph
from .ranks import NO_RANK, DrawRanks, better, database_draw_ranks, move_value, rank_draws, rank_draws_plain
from .secval import SectorValues, database_stats, sector_values, transient

__all__ = [
    "NO_RANK",
    "DrawGraph",
    "DrawRanks",
    "SectorValues",
    "better",
    "database_draw_ranks",
    "database_stats",
    "draw_graph",
    "move_value",
    "rank_draws",
    "rank_draws_plain",
    "sector_values",
    "transient",
]
