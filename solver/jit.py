"""How the project compiles its numba code: one decorator for the per-position helpers.

Numba strips reference counting from a function whose arguments are plain arrays and scalars,
but not from one that takes a named tuple of arrays (``GameTables``, ``IndexTables``): there each
call increfs and decrefs the tables' arrays atomically, and with several threads those counters
bounce between cores (the chain to 5 men ran about 10% slower with the tables in tuples, and a
batch of ranks twice as slow). The helpers called once or more per position allocate nothing, so
they are compiled without the runtime (numba's ``_nrt=False``, the flag its own benchmarks of
refcount costs use): no counting at all. A helper that allocated would fail to compile, not
misbehave. Kernels that allocate (``parallel=True`` loops with their buffers) use ``nb.njit``.
"""

from __future__ import annotations

import numba
import numba as nb

from .errors import RulesError


def helper(fn):
    """``numba.njit`` for a helper that allocates nothing: cached, without reference counting."""
    return nb.njit(cache=True, _nrt=False)(fn)


def use_threads(threads: int | None) -> None:
    """Run the kernels on ``threads`` threads (default: every core numba was started with)."""
    if not threads:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise RulesError(f"--threads {threads}: this machine runs 1 to {limit} threads")
    numba.set_num_threads(threads)
