"""The verify's ledger: the checks that passed, kept where they outlive the database.

A full verify of Morabaraba or Lasker takes hours, and a database can be lost before its game is
done (a new machine's empty ``data/``). It is then solved again, and its values, a function of the
rules alone, come out the same. A ledger (a JSON-lines file kept apart from the database)
records each subspace whose check passed: the checksum of its values (and of its side
table under the history rule) and a digest of the checksums of every subspace its check read.
A later verify of a database of the same rules takes a subspace as checked where both are the same
and its values, read back, still give the checksum stored beside them: its check would read the
same values and reach the same verdict. Any other subspace is checked in full. So the work of a
verify survives the loss of its database, and only the solve is repeated.

One JSON object a line: first the header (the rules), then one line a passed check, appended as
each check passes, so that a run cut off loses nothing finished; a line cut off in the middle is
passed over. Each line also names the code that made the check (``numba_cache.source_key`` of the
package, for the record): a check is taken whatever code made it, as a finished verify's verdict
is kept when the code moves on.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import MismatchError
from ..numba_cache import source_key
from ..rules.rulesets import RuleSet
from ..storage.chunks import pieces
from ..storage.database import Database, SubspaceInfo
from ..storage.files import checksum_pieces, history_checksum_pieces
from ..tiers import Tier, removal_depth
from .check import moving_reads, tier_reads
from .history import reached

KIND = "morris verify ledger"
VERSION = 1


def read_tiers(rules: RuleSet, t: Tier, present: set[Tier]) -> list[Tier]:
    """The subspaces the check of ``t`` reads besides itself: ``verify.check``'s reads
    (``moving_reads``, ``tier_reads``), or under the history rule a moving subspace's
    ``verify.history.reached`` as far as the database has them."""
    a, b, ha, hb = t
    if ha or hb:
        return tier_reads(rules, [t])[0][1:]
    if rules.reclose != "allowed":
        moving = {(x, y) for x, y, hx, hy in present if hx == hy == 0}
        return [(x, y, 0, 0) for x, y in reached(a, b, removal_depth(rules), moving)[1:]]
    return moving_reads(rules, [t])[0][1:]


def fingerprint(s: SubspaceInfo) -> str:
    """A subspace's stored checksum, and its side table's under the history rule."""
    return s.checksum if not s.history else f"{s.checksum} {s.history['checksum']}"


class Ledger:
    """The passed checks of ``path`` for the database whose subspaces are ``infos`` (one
    ``SubspaceInfo`` a tier) under ``rules``; the file is made, with its header, if it is new.
    A ledger of other rules is refused (MismatchError)."""

    def __init__(self, path: Path, rules: RuleSet, infos: list[SubspaceInfo]):
        self.path, self.rules = Path(path), rules
        self.infos = {s.tier: s for s in infos}
        self.entries: dict[str, dict] = {}
        self.code = source_key(Path(__file__).resolve().parents[1])
        header = {"kind": KIND, "version": VERSION, "rules": rules.to_dict()}
        lines = self.path.read_text().splitlines() if self.path.exists() else []
        parsed = [x for x in (_parse(line) for line in lines) if x is not None]
        if not parsed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps(header) + "\n")
            return
        first = parsed[0]
        if first.get("kind") != KIND or first.get("version") != VERSION:
            raise MismatchError(f"{self.path} is not a verify ledger of version {VERSION}")
        if RuleSet.from_dict(first["rules"]) != rules:
            theirs = RuleSet.from_dict(first["rules"]).describe()
            raise MismatchError(f"{self.path} is the ledger of {theirs}, not of {rules.describe()}")
        for entry in parsed[1:]:
            self.entries[entry["subspace"]] = entry

    def reads_digest(self, t: Tier) -> str | None:
        """The digest of the fingerprints of what the check of ``t`` reads (None where the
        database lacks one: such a check cannot pass)."""
        names = []
        for x in sorted(set(read_tiers(self.rules, t, set(self.infos))) - {t}):
            if x not in self.infos:
                return None
            names.append(f"{self.infos[x].name} {fingerprint(self.infos[x])}")
        return hashlib.sha256("\n".join(names).encode()).hexdigest()[:32]

    def vouches(self, s: SubspaceInfo) -> bool:
        """Whether a check of ``s`` passed before with the values it and its reads hold now (by
        their stored checksums: ``values_match`` reads its values back)."""
        entry = self.entries.get(s.name)
        return (
            entry is not None
            and entry["fingerprint"] == fingerprint(s)
            and entry["reads"] == self.reads_digest(s.tier)
        )

    def record(self, s: SubspaceInfo, method: str | None, seconds: float) -> None:
        """Add the passed check of ``s`` (appended at once, a whole line)."""
        reads = self.reads_digest(s.tier)
        if reads is None:
            return
        entry = {"subspace": s.name, "fingerprint": fingerprint(s), "reads": reads, "positions": s.positions,
                 "method": method, "seconds": round(seconds, 1), "code": self.code}
        with self.path.open("a") as f:
            f.write(json.dumps(entry) + "\n")
        self.entries[s.name] = entry


def values_match(db: Database, s: SubspaceInfo) -> bool:
    """Whether the values of ``s`` read back from the database give its stored checksum (and its
    side table's), a piece at a time."""
    ds = db.dataset(*s.tier)
    if checksum_pieces(pieces(ds)) != s.checksum:
        return False
    if s.history:
        side = db.history_group(s.mover, s.opponent)
        return history_checksum_pieces(pieces(side["keys"]), pieces(side["values"])) == s.history["checksum"]
    return True


def _parse(line: str) -> dict | None:
    try:
        x = json.loads(line)
    except json.JSONDecodeError:
        return None  # (a line cut off by a kill)
    return x if isinstance(x, dict) else None
