"""What a passed check records, and what it takes to take such a pass as the check's verdict
without checking again (``resume``: a verify's log; ``ledger``: passes kept across databases).

A passed check records (``SubspaceCheck.to_dict``) ``logic``, the verifier's ``LOGIC_VERSION``;
``values``, the sha256 of the values it read (computed from them, as loaded; under the history
rule the side table's too); ``reads``, the digest of the computed checksums of the tiers it read
(``reads.reads_digest``); and ``counted``, the statistics it counted (``states`` too under the
history rule), which matched the stored ones. A pass is reused only where the logic version is
the present one, the tier's values and those of every tier it reads, read back now
(``ReadBack``), give the recorded checksums, and the statistics and checksum stored beside the
tier are still those the check compared: the check would then read the same values under the
same logic and reach the same verdict. Any other tier is checked again.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ..errors import DatabaseError
from ..storage.chunks import pieces
from ..storage.database import Database, SubspaceInfo
from ..storage.files import checksum_pieces, history_checksum_pieces
from ..tiers import Tier
from . import LOGIC_VERSION
from .counts import add_counts, as_dict, as_states, new_counts, stored_counts
from .reads import read_tiers, reads_digest


def fingerprint(s: SubspaceInfo) -> str:
    """A tier's stored checksum, and its side table's under the history rule."""
    return s.checksum if not s.history else f"{s.checksum} {s.history['checksum']}"


def stored_states(s: SubspaceInfo) -> dict[str, int] | None:
    """The side table's stored counts of the history rule's states (None without one)."""
    return None if not s.history else {k: int(s.history[k]) for k in ("states", "win", "draw", "loss", "max_win", "max_loss")}


@dataclass
class ReadTier:
    fingerprint: str  # as ``fingerprint``, computed from the values read
    plain: str  # the checksum of the plain values alone (what a tier with men in hand reads of it)
    counted: dict  # the plain slots' counts (``counts.as_dict``)
    states: dict | None  # under the history rule, every state's (``counts.as_states``)


class ReadBack:
    """Tiers of ``db`` read back a piece at a time: the checksums of their values (and side
    tables) and their counts, each tier once."""

    def __init__(self, db: Database):
        self.db = db
        self.read: dict[Tier, ReadTier] = {}

    def __call__(self, t: Tier) -> ReadTier:
        if t not in self.read:
            try:
                self.read[t] = self._read(t)
            except (OSError, ValueError, zlib.error) as e:
                raise DatabaseError(f"tier {self.db.info(*t).name} in {self.db.info(*t).file} is corrupt: {e}") from None
        return self.read[t]

    def _read(self, t: Tier) -> ReadTier:
        s = self.db.info(*t)
        plain = new_counts()
        values = checksum_pieces(_counted(pieces(self.db.dataset(*t)), plain))
        if not s.history:
            return ReadTier(values, values, as_dict(plain), None)
        states = plain.copy()
        side = self.db.history_group(s.mover, s.opponent)
        fp = values + " " + history_checksum_pieces(pieces(side["keys"]), _counted(pieces(side["values"]), states))
        return ReadTier(fp, values, as_dict(plain), as_states(states))

    def reads_digest(self, rules, t: Tier, present: set[Tier]) -> str | None:
        """``reads_digest`` of what the check of ``t`` reads, read back now (None where the
        database lacks one of them): under the history rule a moving subspace's check reads the
        side tables too, a tier with men in hand the plain values alone."""
        reads = read_tiers(rules, t, present)
        if not present.issuperset(reads):
            return None
        sides = rules.reclose != "allowed" and not (t[2] or t[3])
        return reads_digest({x: self(x).fingerprint if sides else self(x).plain for x in reads})


def reuse_refused(entry: dict, s: SubspaceInfo, readback: ReadBack, present: set[Tier]) -> str | None:
    """Why the recorded pass ``entry`` cannot stand for the check of ``s`` now (None where it
    can): see the module's note."""
    if not entry.get("ok", True):
        return "it failed"
    if entry.get("logic") != LOGIC_VERSION:
        return f"checked by logic version {entry.get('logic')}, not {LOGIC_VERSION}"
    if entry.get("counted") != stored_counts(s) or entry.get("states") != stored_states(s):
        return "its stored statistics are not those the check counted"
    try:
        now = readback(s.tier)
        if not (entry.get("values") == now.fingerprint == fingerprint(s)):
            return "its values are not those the check read"
        if entry.get("reads") != readback.reads_digest(readback.db.rules, s.tier, present):
            return "what its check reads is not what it read"
    except DatabaseError as e:
        return str(e)
    return None


def _counted(pieces, into: np.ndarray):
    """``pieces`` as they are, their counts added to ``into`` on the way."""
    for piece in pieces:
        add_counts(piece, into)
        yield piece
