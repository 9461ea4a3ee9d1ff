"""Bit tricks on int64 bitboards, shared by the kernels.

Compiled, popcount and ctz are the processor's own instructions (LLVM's ctpop and cttz): the
kernels call them for every move and every rank. With ``NUMBA_DISABLE_JIT=1`` they are the plain
Python versions below, which the tests check against the compiled ones.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from ..jit import helper

# ctz by de Bruijn multiplication: the top 6 bits of (lowest bit * DEBRUIJN) name the bit.
_DEBRUIJN = 0x03F79D71B4CB0A89
_CTZ_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _CTZ_TABLE[((1 << _i) * _DEBRUIJN & (2**64 - 1)) >> 58] = _i


def popcount_plain(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF  # (no wrap in Python: the mask drops the rest)


def ctz_plain(x):
    """Index of the lowest set bit of x (x > 0, below bit 62)."""
    return int(_CTZ_TABLE[((x & -x) * _DEBRUIJN >> 58) & 63])


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))  # x == 0: undefined

    return x(x), codegen


if numba.config.DISABLE_JIT:
    popcount, ctz = popcount_plain, ctz_plain
else:

    @helper
    def popcount(x):
        return _ctpop(x)

    @helper
    def ctz(x):
        """Index of the lowest set bit of x (x > 0)."""
        return _cttz(x)
