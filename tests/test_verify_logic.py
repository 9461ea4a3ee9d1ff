"""The verifier's logic version (``solver.verify.LOGIC_VERSION``) is pinned to a digest of the
logic's sources (``solver.verify.logic``): a change of the checks' code without a new version
fails here, so that no pass recorded by other logic is reused (``morris verify --log``, the
ledger) as if this logic had made it."""

from __future__ import annotations

import json
from pathlib import Path

from solver.verify import LOGIC_VERSION
from solver.verify.logic import code_text, logic_modules, sources_digest

RECORD = Path(__file__).resolve().parent / "data" / "verify_logic.json"


def test_the_logic_version_stands_for_the_logic_sources():
    recorded = json.loads(RECORD.read_text())
    now = sources_digest()
    todo = (f"bump LOGIC_VERSION in solver/verify/__init__.py if the verdicts' logic changed, and write "
            f'{{"logic_version": <it>, "sources_sha256": "{now}"}} into {RECORD.relative_to(RECORD.parents[2])}')
    assert recorded["logic_version"] == LOGIC_VERSION, f"LOGIC_VERSION is {LOGIC_VERSION}, the record {recorded}: {todo}"
    assert recorded["sources_sha256"] == now, f"the verify's logic sources changed under LOGIC_VERSION {LOGIC_VERSION}: {todo}"


def test_the_logic_is_the_checks_and_what_they_import():
    mods = set(logic_modules())
    assert {"solver.verify.check", "solver.verify.kernels", "solver.verify.placing_kernels", "solver.verify.counts",
            "solver.verify.complete", "solver.verify.reads", "solver.rules.movegen", "solver.index.slots",
            "solver.tiers", "solver.values"} <= mods
    assert not mods & {"solver.verify.ledger", "solver.verify.resume", "solver.verify.evidence", "solver.storage.files",
                       "solver.engine.held", "solver.verify"}


def test_comments_and_docstrings_leave_the_digest_alone_and_code_does_not():
    source = 'def f(x):\n    """Doc."""\n    return x + 1  # one more\n'
    assert code_text(source) == code_text('def f(x):\n\n    # why\n    return x + 1\n')
    assert code_text(source) != code_text(source.replace("x + 1", "x + 2"))
    assert code_text(source) != code_text('def f(x):\n    """Doc."""\n    return (x\n    + 1)\n')  # (the text as written)
    assert "Doc" not in code_text(source) and "one more" not in code_text(source)
