"""How the project compiles its numba code: one decorator for the per-position helpers.

Numba strips reference counting from a function whose arguments are plain arrays and scalars,
but not from one that takes a named tuple of arrays (``GameTables``, ``IndexTables``): there each
call increfs and decrefs the tables' arrays atomically, and with several threads those counters
bounce between cores (the chain to 5 men ran about 10% slower with the tables in tuples, and a
batch of ranks twice as slow). The helpers called once or more per position allocate nothing, so
they are compiled without the runtime (numba's ``_nrt=False``, the flag its own benchmarks of
refcount costs use): no counting at all. A helper that allocated would fail to compile, not
misbehave. Kernels that allocate (``parallel=True`` loops with their buffers) use ``nb.njit``.

A call between numba functions is not inlined by LLVM, and numba passes each array as its whole
struct, word by word on the stack (seven words a 1-d array, the tables' tuples some hundred): a
helper called per position with the tables costs more in the call than in its work. ``inlined``
has numba inline such a helper into its callers (the placing verify's per-position fold and
``mills_formed``: 1.62x on a full-size Lasker tier); each
caller then compiles its own copy, so that compiling takes longer.

A helper that is called, not inlined, compiles once for each tuple of argument types it meets, and
numba types a ``prange`` index as int64 before its parallel pass and as uint64 after it, and a
variable first set to 0 as the literal 0 until it is unified; and a count read from a uint8 array
in one caller is an int64 in another. So the kernels pass such values as ``np.int64(...)`` (the
placing verify's batch check compiled four times over, 11.9 CPU-s of the default tests, and once
after).
"""

from __future__ import annotations

import numba
import numba as nb
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .errors import RulesError


def helper(fn):
    """``numba.njit`` for a helper that allocates nothing: cached, without reference counting."""
    return nb.njit(cache=True, _nrt=False)(fn)


def inlined(fn):
    """``helper``, inlined by numba into each caller (see the module's note)."""
    return nb.njit(cache=True, _nrt=False, inline="always")(fn)


def called(dispatcher):
    """The twin of an ``inlined`` helper that its callers call instead: for a kernel that
    compiles to faster code with the calls (the history rule's forward check: its one loop,
    with every helper inlined, ran 1.15x to 1.35x slower). The twin shares the helper's source,
    and so its entry in numba's cache: both compile to the same code."""
    return helper(dispatcher.py_func)


def use_threads(threads: int | None) -> None:
    """Run the kernels on ``threads`` threads (default: every core numba was started with)."""
    if not threads:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise RulesError(f"--threads {threads}: this machine runs 1 to {limit} threads")
    numba.set_num_threads(threads)


# A hint to the processor to start loading an array element that is needed a little later
# (``prefetch(arr, i)``): LLVM's ``llvm.prefetch``, for reads, kept in every cache level; a no-op
# without the JIT. The engine's and the verifier's kernels ask for scattered slots with it.
@intrinsic
def _prefetch(typingctx, arr, idx):
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        arrty, idxty = sig.args
        ary = context.make_array(arrty)(context, builder, args[0])
        i = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [i])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
        # read (0), keep in all cache levels (3), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


if numba.config.DISABLE_JIT:

    def prefetch(arr, i):
        pass

else:
    prefetch = _prefetch
