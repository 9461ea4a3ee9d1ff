"""``morris verify`` under the history rule: each moving subspace's checksums (the plain slots'
and the side table's), then every state by ``solve.verify_moving`` (each state's stored value
against its legal moves' successors, independent of the solver), on the states read back from
the database (``store.load_moving``). The tiers with men in hand are plain positions, which the
plain verifier checks (``verify.check``)."""

from __future__ import annotations

from ..errors import MorrisError
from ..storage.files import checksum, history_checksum
from .solve import verify_moving
from .store import load_moving


def check_moving(db, names: set[str]) -> dict[str, tuple[bool, int, str | None]]:
    """{subspace: (checksums ok, states whose value is wrong, error)} for the moving subspaces
    ``names`` of the database ``db`` (a ``storage.Database``); every moving subspace is read
    (the successors' states)."""
    out: dict[str, tuple[bool, int, str | None]] = {}
    try:
        moving = load_moving(db, db.rules)
    except MorrisError as e:
        return {name: (False, 0, str(e)) for name in names}
    bad = verify_moving(db.rules, moving)
    for s in db.subspaces():
        if s.name not in names:
            continue
        h = moving[s.mover, s.opponent]
        ok = checksum(h.values[: h.slots]) == s.checksum and history_checksum(h.keys, h.values[h.slots :]) == s.history["checksum"]
        out[s.name] = (ok, bad[s.mover, s.opponent], None)
    return out
