"""Ultra-strong play: the draws of a solved database ranked as Gévay and Danner's Malom ranks them.

``secval`` gives each tier Malom's sector value from the strong solution's statistics; ``graph``
collects the drawn positions and the drawing moves between them; ``ranks`` runs Malom's
multi-valued retrograde analysis over that graph; ``implicit`` runs it on the moving phase without
a graph (counts and un-moves, a few bytes a slot: the way to the 9-men game), ``placing`` on a
tier with men in hand (one pass), ``whole`` over the whole game, group by group; ``store``
computes them for a database (``morris rank``) and writes them beside its strong values
(``storage.ranks`` reads them); ``playout`` plays games
between strong, ultra-strong and fallible players (numba kernels, for ``benchmarks/bench_ultra.py``).
``docs/ultra-strong.md`` has the definitions, with references to Malom's source.

The names below are loaded on first use: a lookup that reads ranks imports ``secval`` alone, not
the numba kernels of ``graph`` and ``ranks``.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "DrawGraph": "graph",
    "draw_graph": "graph",
    "NO_RANK": "ranks",
    "DrawRanks": "ranks",
    "better": "ranks",
    "database_draw_ranks": "ranks",
    "move_value": "ranks",
    "rank_draws": "ranks",
    "rank_draws_plain": "ranks",
    "rank_game": "whole",
    "rank_moving_phase": "implicit",
    "SectorValues": "secval",
    "database_stats": "secval",
    "sector_values": "secval",
    "stored_secvals": "secval",
    "transient": "secval",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
