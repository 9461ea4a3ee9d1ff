"""``morris verify`` under the history rule, one moving subspace at a time: its checksums (the
plain slots' and the side table's, streamed from the file), then every state by
``solve.count_wrong`` (each state's stored value against its legal moves' successors,
independent of the solver). For each subspace only it and the subspaces its moves reach are read
back (``store.load_store``): at 9 men the moving phase's states do not fit in memory at once.
The tiers with men in hand are plain positions, which the plain verifier checks
(``verify.check``)."""

from __future__ import annotations

from ..errors import MorrisError
from ..storage.files import checksum_pieces, history_checksum_pieces
from ..tiers import removal_depth
from .solve import count_wrong
from .store import load_store, pieces


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


def reached(a: int, b: int, depth: int, present) -> list[tuple[int, int]]:
    """Moving subspace (a, b) and those a move from it leads into (the sides swap; a removal takes
    up to ``depth`` of the opponent's men), as far as ``present`` has them: a missing one shows
    as the error of a successor not found."""
    out = [(a, b)] + [(b - k, a) for k in range(depth + 1)]
    return [t for i, t in enumerate(out) if t in present and t not in out[:i]]
