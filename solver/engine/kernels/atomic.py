"""An atomic minimum, an atomic or and an atomic decrement on an array element, for threads that
may write the same slot (or bitmap word) at once.

The removal candidates' pass settles each winning removal's level where it finds it: several
threads can reach one position from different losses, and the position keeps the lowest level
(the quickest win). A plain read-compare-write could lose the lower of two racing levels; LLVM's
``atomicrmw umin`` cannot. The pull in the twin's order (``pull_flying``) marks positions
scattered over the bitmaps, two threads sometimes in one word: ``atomicrmw or``. The retrograde
analysis of a cycling group (``cycles``) counts down a position's undecided successors from
several threads, and the one that takes the last decides it: ``atomicrmw sub``, which returns
the count before. The history rule's engine counts a state's successors when a win first reaches
it, and two threads may do so at once: the first to store its count wins (``cmpxchg``). Plain
operations without the JIT (one thread).
"""

from __future__ import annotations

import numba
from numba.core import cgutils, types
from numba.extending import intrinsic


def _read_modify_write(op: str, fetch: bool = False):
    """An intrinsic (arr, i, v) doing LLVM's ``atomicrmw op`` on arr[i] with v, for an array of
    unsigned integers; with ``fetch`` it returns the element's value before."""

    def rmw(typingctx, arr, idx, val):
        if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer) or arr.dtype.signed:
            return None
        if not isinstance(idx, types.Integer) or not isinstance(val, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            arrty, idxty, valty = sig.args
            ary = context.make_array(arrty)(context, builder, args[0])
            i = context.cast(builder, args[1], idxty, types.intp)
            ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [i])
            v = context.cast(builder, args[2], valty, arrty.dtype)
            old = builder.atomic_rmw(op, ptr, v, "monotonic")
            return old if fetch else context.get_dummy_value()

        return (arr.dtype if fetch else types.void)(arr, idx, val), codegen

    rmw.__name__ = rmw.__qualname__ = f"atomic_{op}"  # one name per intrinsic
    return intrinsic(rmw)


def _compare_exchange(typingctx, arr, idx, expected, new):
    """An intrinsic (arr, i, expected, new): LLVM's ``cmpxchg`` on arr[i] (unsigned integers),
    returning the element's value before (``expected`` where the exchange was made)."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer) or arr.dtype.signed:
        return None

    def codegen(context, builder, sig, args):
        arrty, idxty, expty, newty = sig.args
        ary = context.make_array(arrty)(context, builder, args[0])
        i = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [i])
        e = context.cast(builder, args[2], expty, arrty.dtype)
        v = context.cast(builder, args[3], newty, arrty.dtype)
        pair = builder.cmpxchg(ptr, e, v, "monotonic", "monotonic")
        return builder.extract_value(pair, 0)

    return arr.dtype(arr, idx, expected, new), codegen


_compare_exchange.__name__ = _compare_exchange.__qualname__ = "atomic_cas"
_atomic_cas = intrinsic(_compare_exchange)
_atomic_min = _read_modify_write("umin")
_atomic_or = _read_modify_write("or")
_atomic_fetch_sub = _read_modify_write("sub", fetch=True)


if numba.config.DISABLE_JIT:

    def atomic_min(arr, i, v):
        if v < arr[i]:
            arr[i] = v

    def atomic_or(arr, i, v):
        arr[i] |= v

    def atomic_fetch_sub(arr, i, v):
        old = arr[i]
        arr[i] -= v
        return old

    def atomic_cas(arr, i, expected, new):
        old = arr[i]
        if old == expected:
            arr[i] = new
        return old

else:
    atomic_min = _atomic_min
    atomic_or = _atomic_or
    atomic_fetch_sub = _atomic_fetch_sub
    atomic_cas = _atomic_cas
