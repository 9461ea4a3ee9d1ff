"""The frontier of a level as a bitmap: one bit a slot, where a list of slots took four bytes.

A level's decided positions are marked as they are decided (``add``) and read back in slot order,
a block at a time (``collect``). The order does not change any value: every position of one
level's frontier has the same value, so the decisions it leads to are the same in any order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...jit import helper
from ...rules.bits import ctz
from .atomic import atomic_or


def new_bitmap(slots: int) -> np.ndarray:
    return np.zeros((slots + 63) // 64, dtype=np.uint64)


@helper
def add(bits, s):
    bits[s >> 6] |= np.uint64(1) << np.uint64(s & 63)


@helper
def add_shared(bits, s):
    """``add`` where another thread may mark a slot of the same word at once."""
    atomic_or(bits, s >> 6, np.uint64(1) << np.uint64(s & 63))


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
            for half in range(2):  # 32 bits at a time: ctz works on int64 below bit 62
                x = np.int64((w >> np.uint64(32 * half)) & np.uint64(0xFFFFFFFF))
                base = (word << 6) + 32 * half
                while x:
                    out[k] = base + ctz(x)
                    k += 1
                    x &= x - 1
        word += 1
    return k, word
