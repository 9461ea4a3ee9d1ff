"""The frontier of a level as a bitmap: one bit a slot, where a list of slots took four bytes.

A level's decided positions are marked as they are decided (``add``) and read back in slot order,
a block at a time (``collect``). The order does not change any value: every position of one
level's frontier has the same value, so the decisions it leads to are the same in any order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...jit import helper


def new_bitmap(slots: int) -> np.ndarray:
    return np.zeros((slots + 63) // 64, dtype=np.uint64)


@helper
def add(bits, s):
    bits[s >> 6] |= np.uint64(1) << np.uint64(s & 63)


@nb.njit(cache=True)
def collect(bits, word, out):
    """Slots of the set bits from word ``word`` on, whole words at a time while ``out`` has room
    for 64 more; the words read are cleared. Returns (how many, the next word to read)."""
    k = 0
    nwords = bits.shape[0]
    limit = out.shape[0] - 64
    while word < nwords and k <= limit:
        w = bits[word]
        if w:
            bits[word] = 0
            base = word << 6
            while w:
                low = w & (~w + np.uint64(1))
                out[k] = base + _bit_index(low)
                k += 1
                w ^= low
        word += 1
    return k, word


@helper
def _bit_index(low):
    """Index of the single set bit of ``low`` (a uint64 power of two)."""
    i = 0
    if low >> np.uint64(32):
        i += 32
        low >>= np.uint64(32)
    if low >> np.uint64(16):
        i += 16
        low >>= np.uint64(16)
    if low >> np.uint64(8):
        i += 8
        low >>= np.uint64(8)
    if low >> np.uint64(4):
        i += 4
        low >>= np.uint64(4)
    if low >> np.uint64(2):
        i += 2
        low >>= np.uint64(2)
    if low >> np.uint64(1):
        i += 1
    return i
