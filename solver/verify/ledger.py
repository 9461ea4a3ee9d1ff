"""The verify's ledger: the checks that passed, kept where they outlive the database.

A full verify of Morabaraba or Lasker takes hours, and a database can be lost before its game is
done (a new machine's empty ``data/``). It is then solved again, and its values, a function of the
rules alone, come out the same. A ledger (a JSON-lines file kept apart from the database)
records each subspace whose check passed, with the evidence the check recorded (``evidence``: the
logic version, the checksum of the values it read, the digest of the checksums of the tiers it
read, the statistics it counted). ``morris verify --log`` (``resume``) takes a subspace of a
database of the same rules as checked where that evidence holds for it now, its values and
reads read back (``evidence.reuse_refused``); any other subspace is checked in full. So the work
of a verify survives the loss of its database, and only the solve is repeated.

One JSON object a line: first the header (the rules), then one line a passed check, appended as
each check passes, so that a run cut off loses nothing finished; a line cut off in the middle is
passed over. Each line also names the code that made the check (``numba_cache.source_key`` of the
package, for the record). A ledger of version 1 (whose entries carry neither a logic version nor
checksums computed from the values read, so none could be reused) is refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import MismatchError
from ..numba_cache import source_key
from ..rules.rulesets import RuleSet
from ..storage.database import SubspaceInfo
from ..tiers import Tier
from .check import SubspaceCheck
from .evidence import ReadBack, reuse_refused

KIND = "morris verify ledger"
VERSION = 2
EVIDENCE = ("values", "reads", "logic", "counted", "states")  # a passed check's, as ``SubspaceCheck.to_dict``


class Ledger:
    """The passed checks of ``path`` for databases of ``rules``; the file is made, with its
    header, if it is new. A ledger of other rules, or of another version, is refused
    (MismatchError)."""

    def __init__(self, path: Path, rules: RuleSet):
        self.path, self.rules = Path(path), rules
        self.entries: dict[str, dict] = {}
        self.code = source_key(Path(__file__).resolve().parents[1])
        header = {"kind": KIND, "version": VERSION, "rules": rules.to_dict()}
        lines = self.path.read_text().splitlines() if self.path.exists() else []
        parsed = [x for x in (parse_line(line) for line in lines) if x is not None]
        if not parsed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps(header) + "\n")
            return
        first = parsed[0]
        if first.get("kind") != KIND:
            raise MismatchError(f"{self.path} is not a verify ledger")
        if first.get("version") != VERSION:
            raise MismatchError(
                f"{self.path} is a verify ledger of version {first.get('version')}, not {VERSION} (its passes cannot "
                "be reused: move it aside, and this verify starts a new one)"
            )
        if RuleSet.from_dict(first["rules"]) != rules:
            theirs = RuleSet.from_dict(first["rules"]).describe()
            raise MismatchError(f"{self.path} is the ledger of {theirs}, not of {rules.describe()}")
        for entry in parsed[1:]:
            if "subspace" in entry:
                self.entries[entry["subspace"]] = entry

    def vouches(self, s: SubspaceInfo, readback: ReadBack, present: set[Tier]) -> bool:
        """Whether a pass of ``s`` recorded here holds for its values and reads now
        (``evidence.reuse_refused``)."""
        entry = self.entries.get(s.name)
        return entry is not None and reuse_refused(entry, s, readback, present) is None

    def record(self, check: SubspaceCheck) -> None:
        """Add the passed ``check`` (appended at once, a whole line), with its evidence."""
        if not check.ok or check.reads is None:
            return
        d = check.to_dict()
        entry = {"subspace": check.name, **{k: d[k] for k in EVIDENCE}, "positions": check.positions,
                 "method": check.method, "seconds": round(check.seconds, 1), "code": self.code}
        with self.path.open("a") as f:
            f.write(json.dumps(entry) + "\n")
        self.entries[check.name] = entry


def parse_line(line: str) -> dict | None:
    """A JSON-lines file's line as a dict; None for a line cut off by a kill (or blank)."""
    try:
        x = json.loads(line)
    except json.JSONDecodeError:
        return None
    return x if isinstance(x, dict) else None
