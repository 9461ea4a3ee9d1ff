"""Bit tricks on int64 bitboards, shared by the kernels."""

from __future__ import annotations

import numpy as np
from ..jit import helper

# ctz by de Bruijn multiplication: the top 6 bits of (lowest bit * DEBRUIJN) name the bit.
_DEBRUIJN = 0x03F79D71B4CB0A89
_CTZ_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _CTZ_TABLE[((1 << _i) * _DEBRUIJN & (2**64 - 1)) >> 58] = _i


@helper
def popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    # Bits 56..63 of the product hold the count. Compiled, the int64 product wraps and the count
    # (< 128) keeps the sign bit clear; in plain Python (NUMBA_DISABLE_JIT=1) nothing wraps, so
    # the mask drops what lies above bit 63. (No uint64 mask: mixed with int64, numba would pick
    # a float type.)
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@helper
def ctz(x):
    """Index of the lowest set bit of x (x > 0, below bit 62)."""
    return _CTZ_TABLE[((x & -x) * _DEBRUIJN >> 58) & 63]
