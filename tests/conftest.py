"""Shared test setup: make the helper modules in tests/ (reference.py) importable as top-level
modules (``from reference import ...``) whatever pytest's import mode."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def solved_db(tmp_path_factory):
    """``solved_db(rule_set, max_men)``: the path of a database of that named rule set solved up to
    ``max_men``, built once per session and shared by the tests that ask for the same one (they
    only read it)."""
    from solver.engine.run import solve
    from solver.rules import get_rules

    built: dict[tuple[str, int], Path] = {}

    def get(rule_set: str, max_men: int) -> Path:
        if (rule_set, max_men) not in built:
            path = tmp_path_factory.mktemp("solved") / f"{rule_set}-{max_men}.h5"
            solve(get_rules(rule_set), max_men, path, progress=False, echo=lambda s: None)
            built[rule_set, max_men] = path
        return built[rule_set, max_men]

    return get
