"""The move generator run as plain Python, for lookups of a few positions.

``solver.rules.movegen`` is plain Python that numba compiles: its functions are wrapped by
``solver.jit.helper`` and call ``popcount`` and ``ctz`` from ``solver.rules.bits``, the only two
places where numba comes in. Loading numba and the compiled code costs about a second; generating
the moves of a few positions in Python takes milliseconds. So ``movegen()`` runs movegen.py's own
source once more, under another module name whose ``..jit`` and ``.bits`` are plain stand-ins
(``helper`` and ``inlined`` return the function, popcount and ctz are Python's): one source of the rules, run
either way. ``tests/test_query_startup.py`` compares the two on random positions of every option.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from types import ModuleType

PACKAGE = "solver._plain"  # no folder: the stand-ins live in sys.modules only


def popcount(x) -> int:
    return int(x).bit_count()


def ctz(x) -> int:
    """Index of the lowest set bit of x (x > 0)."""
    x = int(x)
    return (x & -x).bit_length() - 1


def _module(name: str, package: bool = False, **attrs) -> ModuleType:
    m = ModuleType(name)
    if package:
        m.__path__ = []
    m.__dict__.update(attrs)
    return m


@cache
def movegen() -> ModuleType:
    """``solver.rules.movegen`` without numba (the same functions and constants)."""
    for m in (
        _module(PACKAGE, package=True),
        _module(f"{PACKAGE}.rules", package=True),
        _module(f"{PACKAGE}.jit", helper=lambda fn: fn, inlined=lambda fn: fn),
        _module(f"{PACKAGE}.rules.bits", popcount=popcount, ctz=ctz),
    ):
        sys.modules.setdefault(m.__name__, m)
    source = importlib.util.find_spec("solver.rules.movegen").origin  # imports solver.rules only
    spec = importlib.util.spec_from_file_location(f"{PACKAGE}.rules.movegen", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
