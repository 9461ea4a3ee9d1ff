"""The recorded run that ``morris solve --dry-run`` scales by this machine's speed on the pairs it
has timed (``moving.reference_factor``): wall seconds per pair, with the run's command, machine and
date, in ``reference_run.json`` (written by ``tools/results_table.py --reference``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PATH = Path(__file__).with_name("reference_run.json")


@dataclass(frozen=True)
class ReferenceRun:
    rules: str  # the rule set's description (``RuleSet.describe()``)
    command: str
    machine: str
    date: str
    seconds: dict[str, float]  # pair name -> wall seconds

    @property
    def host(self) -> str:
        """The machine and date, as the dry run names its reference."""
        return f"{self.machine}, {self.date}"


@cache
def load(path: Path = PATH) -> ReferenceRun:
    d = json.loads(path.read_text())
    return ReferenceRun(d["rules"], d["command"], d["machine"], d["date"], {k: float(v) for k, v in d["seconds"].items()})


_RUN = load()
HOST = _RUN.host
RULES = _RUN.rules
SECONDS = _RUN.seconds
