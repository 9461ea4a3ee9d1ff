"""The history rule's states laid out in arrays: a subspace's (``HistorySubspace``) and several
subspaces' in flat arrays, as the kernels read them (``Store``), and the stored layout of a
database (plain slots, then a side table of keys ``slot << 20 | ban << 10 | pending``) and back.

What a solve hands on, what a lookup or ``morris verify`` reads back: numbering helpers of
``states`` only, no solver kernel (``kernels``, ``solve``), so a lookup or a check of a history
database loads none.
"""

from __future__ import annotations

import numpy as np

from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from .states import (
    BLOCK_BITS, CHUNK, B0, C0, SLOTS, V0, block_firsts, blocks_of, canonical_per_chunk, count_keys, count_plain, place_keys, place_plain,
    to_side_table,
)
from .tables import history_tables

MEN = 13  # info's dimensions: men 0 ... 12 a side


class HistorySubspace:
    """The solved states of a subspace, numbered by slots (``states``): ``counts`` (states per
    slot), ``block_first`` and ``state_values`` in that order. ``values``/``keys`` give the stored
    layout: ``values[slot]`` for the plain positions (DUP at a duplicate slot), then
    ``values[slots + i]`` for the state of side-table key ``keys[i]`` (``slot << 20 | ban << 10 |
    pending``, ascending)."""

    def __init__(self, a: int, b: int, slots: int, counts: np.ndarray, block_first: np.ndarray, state_values: np.ndarray, rules: RuleSet):
        self.a, self.b, self.slots = a, b, slots
        self.counts, self.block_first, self.state_values = counts, block_first, state_values
        self.rules = rules
        self._stored: tuple[np.ndarray, np.ndarray] | None = None
        self.timing: dict = {}  # seconds of the group's steps: index_s, init_s, levels_s (and levels)

    @classmethod
    def from_layout(cls, rules: RuleSet, a: int, b: int, keys: np.ndarray, values: np.ndarray) -> HistorySubspace:
        """The inverse of ``keys``/``values``: a subspace as stored, numbered by slots again (a
        slot's states are its plain position, then its keys in order)."""
        slots = len(values) - len(keys)
        store = Store.allocate([(a, b, slots)])
        store.fill_counts(a, b, [values[:slots]], [keys])
        store.allocate_values(np.uint16)
        store.fill_values(a, b, [values[:slots]], [(keys, values[slots:])])
        return store.subspace(a, b, rules)

    @property
    def states(self) -> int:
        return len(self.state_values)

    def side_offsets(self) -> tuple[np.ndarray, int]:
        """(canonical slots before each CHUNK of slots, side-table entries in all)."""
        canon = canonical_per_chunk(self.counts)
        canon_before = np.zeros(len(canon), dtype=np.int64)
        np.cumsum(canon[:-1], out=canon_before[1:])
        return canon_before, self.states - int(canon.sum())

    def side_piece(self, c_lo: int, c_hi: int, canon_before: np.ndarray, nx: int, plain: np.ndarray,
                   keys: np.ndarray | None = None, xvals: np.ndarray | None = None):
        """The stored layout of the CHUNKs of slots c_lo ... c_hi - 1 (of ``side_offsets``):
        their plain values into ``plain`` (the whole subspace's), and their side-table keys and
        values (new arrays, unless given), returned."""

        def entry(c):  # the side-table entry of chunk c's first slot
            return nx if c >= len(canon_before) else int(self.block_first[(c * CHUNK) >> BLOCK_BITS]) - int(canon_before[c])

        first = entry(c_lo)
        if keys is None:
            keys, xvals = np.empty(entry(c_hi) - first, np.int64), np.empty(entry(c_hi) - first, np.uint16)
        to_side_table(self.a, self.b, self.slots, c_lo, c_hi, self.counts, self.block_first, canon_before, self.state_values,
                      history_tables(self.rules), board_index(self.rules.board).tables, plain, keys, xvals, first)
        return keys, xvals

    def _layout(self) -> tuple[np.ndarray, np.ndarray]:
        if self._stored is None:
            canon_before, nx = self.side_offsets()
            keys = np.empty(nx, dtype=np.int64)
            values = np.empty(self.slots + nx, dtype=np.uint16)  # the plain slots, then the side table's
            self.side_piece(0, len(canon_before), canon_before, nx, values[: self.slots], keys, values[self.slots :])
            self._stored = (keys, values)
        return self._stored

    @property
    def keys(self) -> np.ndarray:
        return self._layout()[0]

    @property
    def values(self) -> np.ndarray:
        return self._layout()[1]



INPUT_TOP = 0xFF  # inputs whose largest code is at most this are held in a byte a state


class Store:
    """Several subspaces' states in flat arrays, as the kernels read them: ``info[a, b]`` =
    (first state, slots, first count, first block), -1 where the store lacks (a, b).
    ``Store(parts)`` copies the parts into new arrays; ``allocate`` makes the arrays once, to be
    filled in place (``fill_counts``, ``allocate_values``, ``fill_values``), with ``subspace``
    views into them: nothing is held twice."""

    def __init__(self, parts: list[HistorySubspace] = (), dtype=np.uint16):
        self.allocate_layout([(p.a, p.b, p.slots) for p in parts])
        for p in parts:
            self.counts_of(p.a, p.b)[:] = p.counts
        self.allocate_values(dtype)  # (block_first from the counts)
        for p in parts:
            self.values_of(p.a, p.b)[:] = p.state_values

    @classmethod
    def allocate(cls, dims: list[tuple[int, int, int]]) -> Store:
        """A store of the subspaces (a, b, slots), counts and blocks allocated, values not yet."""
        st = cls.__new__(cls)
        st.allocate_layout(dims)
        return st

    def allocate_layout(self, dims) -> None:
        self.info = np.full((MEN, MEN, 4), -1, dtype=np.int64)
        c = bl = 0
        for a, b, slots in dims:
            self.info[a, b, 1:] = (slots, c, bl)
            c += slots
            bl += blocks_of(slots)
        self.dims = list(dims)
        self.counts = np.zeros(c + 1, np.uint8)
        self.block_first = np.zeros(bl + 1, np.int64)
        self.values = None

    def counts_of(self, a: int, b: int) -> np.ndarray:
        c0, n = self.info[a, b, C0], self.info[a, b, SLOTS]
        return self.counts[c0 : c0 + n]

    def block_first_of(self, a: int, b: int) -> np.ndarray:
        b0, n = self.info[a, b, B0], blocks_of(self.info[a, b, SLOTS])
        return self.block_first[b0 : b0 + n]

    def values_of(self, a: int, b: int) -> np.ndarray:
        v0 = self.info[a, b, V0]
        return self.values[v0 : v0 + self.states_of[a, b]]

    def allocate_values(self, dtype) -> None:
        """Each subspace's states from its counts (``block_first`` filled here), then one array
        of values for all of them."""
        v = 0
        self.states_of = {}
        for a, b, _ in self.dims:
            n = block_firsts(self.counts_of(a, b), self.block_first_of(a, b))
            self.info[a, b, V0] = v
            self.states_of[a, b] = n
            v += n
        self.values = np.zeros(v + 1, dtype)

    def fill_counts(self, a: int, b: int, plains, keys) -> None:
        """Counts from the stored layout, read in pieces: ``plains`` the plain slots in order,
        ``keys`` the side table's keys (any pieces)."""
        counts = self.counts_of(a, b)
        lo = 0
        for p in plains:
            count_plain(p, lo, counts)
            lo += len(p)
        for k in keys:
            count_keys(k, counts)

    def fill_values(self, a: int, b: int, plains, sides) -> None:
        """Values from the stored layout, in pieces: ``plains`` the plain slots in order,
        ``sides`` (keys, values) of the side table in order."""
        counts, bfirst, values = self.counts_of(a, b), self.block_first_of(a, b), self.values_of(a, b)
        lo = 0
        for p in plains:
            place_plain(p, lo, counts, bfirst, values)
            lo += len(p)
        at = np.array([-1, 0], dtype=np.int64)
        for k, x in sides:
            place_keys(k, x, counts, bfirst, values, at)

    def subspace(self, a: int, b: int, rules: RuleSet) -> HistorySubspace:
        """Subspace (a, b) as views into the store's arrays."""
        return HistorySubspace(a, b, int(self.info[a, b, SLOTS]), self.counts_of(a, b), self.block_first_of(a, b), self.values_of(a, b), rules)

    def args(self):
        return self.info, self.counts, self.block_first


def input_dtype(top: int):
    """A byte a state where the largest code fits (what ``kernels.fold`` reads is the exact code)."""
    return np.uint8 if top <= INPUT_TOP else np.uint16

