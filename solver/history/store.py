"""Between the engine's states and a database's stored layout (``storage.files``: the plain slots
in /subspaces/<a-b>, the states with a record in /history/<a-b> as ascending keys ``slot << 20 |
ban << 10 | pending`` and their values).

- ``stored_key``: where a state of any orientation is stored (its canonical slot and code);
- ``from_stored``: a ``solve.HistorySubspace`` rebuilt from its stored keys and values (what
  ``solve.verify_moving`` checks), the inverse of its ``keys``/``values`` layout;
- ``load_moving``: every moving subspace of a database so rebuilt.
"""

from __future__ import annotations

import numpy as np

from ..index import board_index
from ..rules.rulesets import RuleSet
from ..values import DUP
from .solve import HistorySubspace
from .states import BLOCK_BITS, KEY_SHIFT, canonical_state
from .tables import history_tables

__all__ = ["KEY_SHIFT", "stored_key", "from_stored", "load_moving"]


def stored_key(m: int, o: int, ban: int, pending: int, rules: RuleSet) -> tuple[int, int, int, int]:
    """(a, b, slot, code) of the state (m, o, ban, pending): its subspace, the canonical slot of
    its position, and the smallest code ``ban << 10 | pending`` among the images of its records
    under the symmetries that take the position there (0: the plain position)."""
    ix = board_index(rules.board).tables
    _, _, slot, code = canonical_state(m, o, ban, pending, ix, history_tables(rules), np.empty(16, dtype=np.int64))
    return int(m).bit_count(), int(o).bit_count(), int(slot), int(code)


def from_stored(a: int, b: int, slots: int, keys: np.ndarray, values: np.ndarray, rules: RuleSet) -> HistorySubspace:
    """The subspace's states numbered as the engine numbers them (by slots: each canonical
    slot's plain position, then its states with a record in the order of their codes) from the
    stored layout: ``values[:slots]`` the plain slots (DUP at a duplicate slot), ``values[slots:]``
    the side table's values in the order of ``keys``."""
    plain, side = values[:slots], values[slots:]
    key_slot = keys >> KEY_SHIFT
    extra = np.bincount(key_slot, minlength=slots)
    counts = (plain != DUP).astype(np.int64) + extra
    firsts = np.zeros(slots + 1, dtype=np.int64)
    np.cumsum(counts, out=firsts[1:])
    state_values = np.empty(int(firsts[-1]), dtype=np.uint16)
    real = plain != DUP
    state_values[firsts[:-1][real]] = plain[real]
    kstart = np.zeros(slots + 1, dtype=np.int64)
    np.cumsum(extra, out=kstart[1:])
    state_values[firsts[key_slot] + 1 + np.arange(len(keys)) - kstart[key_slot]] = side
    block_first = firsts[:-1][:: 1 << BLOCK_BITS].copy()
    return HistorySubspace(a, b, slots, counts.astype(np.uint8), block_first, state_values, rules)


def load_moving(db, rules: RuleSet, names=None) -> dict[tuple[int, int], HistorySubspace]:
    """Every moving subspace of the database ``db`` (a ``storage.Database``), or those of ``names``."""
    out = {}
    for s in db.subspaces():
        if names is None or s.name in names:
            keys = db.history_keys(s.mover, s.opponent)
            values = np.concatenate([db.values(s.mover, s.opponent), db.history_values(s.mover, s.opponent)])
            out[s.mover, s.opponent] = from_stored(s.mover, s.opponent, s.slots, keys, values, rules)
    return out
