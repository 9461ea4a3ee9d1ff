"""The solver's own forward check of the history rule's states, one moving subspace at a time:
its checksums (the plain slots' and the side table's, streamed from the file), then every state
by ``count_wrong`` (each state's stored value against its legal moves' successors, by
``verify.check_half``, on the solver's numbering: this module loads no solver kernel). For each
subspace only it and the subspaces its moves reach are read back (``store.load_store``). The
engine's tests and benchmarks use it; ``morris verify`` checks a database by
``solver.verify.history``, which shares nothing with this package."""

from __future__ import annotations

import numpy as np

from ..errors import MorrisError, RulesError
from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..storage.chunks import pieces
from ..storage.files import checksum_pieces, history_checksum_pieces
from ..tiers import removal_depth
from ..verify.history import reached
from .layout import HistorySubspace, Store
from .store import load_store
from .tables import history_tables, plain_rules


class MovingCheck:
    """``check(s)``: (checksums ok, states whose value is wrong, error) of the moving subspace
    ``s`` (a ``storage.SubspaceInfo``) of the database ``db``."""

    def __init__(self, db):
        self.db = db
        self.present = {(s.mover, s.opponent) for s in db.subspaces()}
        self.depth = removal_depth(db.rules)

    def reached(self, a: int, b: int) -> list[tuple[int, int]]:
        """Subspace (a, b) and those a move from it leads into (``reached``)."""
        return reached(a, b, self.depth, self.present)

    def check(self, s) -> tuple[bool, int, str | None]:
        a, b = s.mover, s.opponent
        try:
            ok = self._checksums_ok(s)
            store = load_store(self.db, self.reached(a, b))
            return ok, count_wrong(self.db.rules, store, a, b), None
        except MorrisError as e:
            return False, 0, str(e)

    def _checksums_ok(self, s) -> bool:
        side = self.db.history_group(s.mover, s.opponent)
        return (
            checksum_pieces(pieces(self.db.dataset(s.mover, s.opponent))) == s.checksum
            and history_checksum_pieces(pieces(side["keys"]), pieces(side["values"])) == s.history["checksum"]
        )


def verify_moving(rules: RuleSet, moving: dict[tuple[int, int], HistorySubspace]) -> dict[tuple[int, int], int]:
    """``count_wrong`` over every subspace: {subspace: states whose value is wrong}."""
    store = Store(list(moving.values()))
    return {(a, b): count_wrong(rules, store, a, b) for a, b in moving}


def count_wrong(rules: RuleSet, store: Store, a: int, b: int) -> int:
    """The states of subspace (a, b) whose stored value is not the one their moves give
    (``verify.check_half``), from the values of ``store``, which must hold every subspace a move
    from (a, b) reaches."""
    from .verify import check_half  # (numba compiles the check on first use, not on import)

    states = store.states_of[a, b]
    bad = np.zeros(states, dtype=np.bool_)
    err = np.zeros(3, np.int64)
    check_half(a, b, *store.args(), store.values, history_tables(rules), board_index(rules.board).tables, game_tables(plain_rules(rules)), bad, err)
    if err.any():
        raise RulesError(f"history verify: a successor of subspace {a}-{b} missing from the subspaces read ({err.tolist()})")
    return int(bad.sum())

