"""Nine Men's Morris and relatives: rules, perfect-play databases, queries.

The package reads as the flow of the work, each layer importing only those before it:
``rules`` (boards, rule sets, notation, move generation) -> ``index`` (symmetry-reduced slots) ->
``tiers`` (men on the board and in hand: names, successors, groups) -> ``storage`` (HDF5 files)
-> ``engine`` (retrograde analysis), ``verify`` (its independent check) and ``query`` (lookups)
-> ``cli`` (the ``morris`` command). ``values`` is the stored value encoding, ``errors`` the
typed errors, ``jit`` how numba compiles and runs, ``numba_cache`` where it keeps what it compiled
(set on import: a directory per state of the sources).

``open_database(path)`` opens a solved database for queries (see ``solver.api``); ``decode`` reads
a stored value; the result types ``Probe``, ``MoveValue`` and ``Analysis`` and ``three_men_rule``
come from there too, and ``SolveRequest`` and ``SolveResult`` (``solver.solve.solve(request)``
solves one: the front door of ``morris solve``). They are imported on first use, so ``import solver.rules`` (and ``morris
--help``) stay light.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .numba_cache import use_source_keyed_cache

use_source_keyed_cache(Path(__file__).parent)

# (``solve``, the function, is ``solver.solve.solve``: ``solver.solve`` names its module)
__all__ = ["open_database", "MorrisDatabase", "Probe", "MoveValue", "Analysis", "three_men_rule", "decode", "SolveRequest", "SolveResult"]

if TYPE_CHECKING:  # pragma: no cover
    from .api import (
        Analysis,
        MorrisDatabase,
        MoveValue,
        Probe,
        SolveRequest,
        SolveResult,
        decode,
        open_database,
        three_men_rule,
    )


def __getattr__(name: str):
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
