"""Between the engine's states and a database's stored layout (``storage.files``: the plain slots
in /subspaces/<a-b>, the states with a record in /history/<a-b> as ascending keys ``slot << 20 |
ban << 10 | pending`` and their values).

- ``stored_key``: where a state of any orientation is stored (its canonical slot and code);
- ``load_store``: moving subspaces of a database read back into one store, in the engine's
  numbering (what ``check.MovingCheck`` checks a subspace in); ``load_moving`` each subspace
  on its own;
- ``DatabaseInputs``: what ``solve.solve_moving`` reads of a database, piece by piece straight
  into the store of a group's inputs (no whole side table in memory: at 9 men its keys alone
  are 8 bytes a state).
"""

from __future__ import annotations

import numpy as np

from ..index import board_index
from ..rules.rulesets import RuleSet
from ..storage.chunks import pieces
from .layout import HistorySubspace, Store
from .states import KEY_SHIFT, canonical_state
from .tables import history_tables

__all__ = ["KEY_SHIFT", "stored_key", "load_store", "load_moving", "pieces", "DatabaseInputs"]


def stored_key(m: int, o: int, ban: int, pending: int, rules: RuleSet) -> tuple[int, int, int, int]:
    """(a, b, slot, code) of the state (m, o, ban, pending): its subspace, the canonical slot of
    its position, and the smallest code ``ban << 10 | pending`` among the images of its records
    under the symmetries that take the position there (0: the plain position)."""
    ix = board_index(rules.board).tables
    _, _, slot, code = canonical_state(m, o, ban, pending, ix, history_tables(rules), np.empty(16, dtype=np.int64))
    return int(m).bit_count(), int(o).bit_count(), int(slot), int(code)


def load_store(db, subspaces: list[tuple[int, int]]) -> Store:
    """The moving subspaces (a, b) of the database ``db`` (a ``storage.Database``) in one store."""
    store = Store.allocate([(a, b, db.info(a, b).slots) for a, b in subspaces])
    for a, b in subspaces:
        _fill_counts(db, a, b, store)
    store.allocate_values(np.uint16)
    for a, b in subspaces:
        _fill_values(db, a, b, store)
    return store


def load_moving(db, rules: RuleSet, names=None) -> dict[tuple[int, int], HistorySubspace]:
    """Every moving subspace of the database ``db``, or those of ``names``, each on its own."""
    return {
        (s.mover, s.opponent): load_store(db, [(s.mover, s.opponent)]).subspace(s.mover, s.opponent, rules)
        for s in db.subspaces()
        if names is None or s.name in names
    }


def _fill_counts(db, a, b, store) -> None:
    side = db.history_group(a, b)
    store.fill_counts(a, b, pieces(db.dataset(a, b)), pieces(side["keys"]))


def _fill_values(db, a, b, store) -> None:
    side = db.history_group(a, b)
    store.fill_values(a, b, pieces(db.dataset(a, b)), zip(pieces(side["keys"]), pieces(side["values"])))


class DatabaseInputs:
    """``solve_moving``'s ``load``: the subspaces of the database at ``path``, each read straight
    into a store of inputs (``solve.gather_inputs``): its counts first, then its values."""

    def __init__(self, path, rules: RuleSet):
        self.path, self.rules = path, rules

    def _db(self):
        from ..storage.database import Database

        return Database(self.path, self.rules)

    def top(self, a: int, b: int) -> int:
        """The largest code of subspace (a, b)'s states (a win or loss in n plies is n + 1)."""
        with self._db() as db:
            plain, side = db.dataset(a, b).attrs, db.history_group(a, b).attrs
            return 1 + max(int(x[k]) for x in (plain, side) for k in ("max_win", "max_loss"))

    def counts(self, a: int, b: int, store) -> None:
        with self._db() as db:
            _fill_counts(db, a, b, store)

    def values(self, a: int, b: int, store) -> None:
        with self._db() as db:
            _fill_values(db, a, b, store)
