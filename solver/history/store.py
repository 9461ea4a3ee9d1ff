"""Between the engine's states and a database's stored layout (``storage.files``: the plain slots
in /subspaces/<a-b>, the states with a record in /history/<a-b> as ascending keys ``slot << 20 |
ban << 10 | pending`` and their values).

- ``stored_key``: where a state of any orientation is stored (its canonical slot and code);
- ``load_moving``: every moving subspace of a database read back into the engine's numbering
  (``solve.HistorySubspace.from_layout``), what ``solve.verify_moving`` checks.
"""

from __future__ import annotations

import numpy as np

from ..index import board_index
from ..rules.rulesets import RuleSet
from .solve import HistorySubspace
from .states import KEY_SHIFT, canonical_state
from .tables import history_tables

__all__ = ["KEY_SHIFT", "stored_key", "load_moving"]


def stored_key(m: int, o: int, ban: int, pending: int, rules: RuleSet) -> tuple[int, int, int, int]:
    """(a, b, slot, code) of the state (m, o, ban, pending): its subspace, the canonical slot of
    its position, and the smallest code ``ban << 10 | pending`` among the images of its records
    under the symmetries that take the position there (0: the plain position)."""
    ix = board_index(rules.board).tables
    _, _, slot, code = canonical_state(m, o, ban, pending, ix, history_tables(rules), np.empty(16, dtype=np.int64))
    return int(m).bit_count(), int(o).bit_count(), int(slot), int(code)


def load_moving(db, rules: RuleSet, names=None) -> dict[tuple[int, int], HistorySubspace]:
    """Every moving subspace of the database ``db`` (a ``storage.Database``), or those of ``names``."""
    out = {}
    for s in db.subspaces():
        if names is None or s.name in names:
            keys = db.history_keys(s.mover, s.opponent)
            values = np.concatenate([db.values(s.mover, s.opponent), db.history_values(s.mover, s.opponent)])
            out[s.mover, s.opponent] = HistorySubspace.from_layout(rules, s.mover, s.opponent, keys, values)
    return out
