"""Shared test setup: make the helper modules in tests/ (reference.py) importable as top-level
modules (``from reference import ...``) whatever pytest's import mode."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
