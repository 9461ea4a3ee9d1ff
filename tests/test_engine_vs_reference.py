"""The engine against the plain-Python reference solver (tests/reference.py: own move generation, no
symmetry), position by position: values and plies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reference import DRAW, LOSS, WIN, solve_reference
from solver.database.storage import Database
from solver.engine.run import solve
from solver.index import board_index
from solver.rules import make_rules

quiet = {"progress": False, "echo": lambda s: None}


def _engine_values(db: Database, rules, a: int, b: int, movers: np.ndarray, opps: np.ndarray) -> np.ndarray:
    bi = board_index(rules.board)
    slots = bi.rank_many(movers, opps)
    return db.values(a, b)[slots]


def _compare_with_reference(tmp_path: Path, rules, max_men: int, subspaces=None):
    ref = solve_reference(rules, max_men=max_men, subspaces=subspaces)
    path = tmp_path / f"{rules.name}.h5"
    solve(rules, max_men, path, **quiet)
    with Database(path) as db:
        for (a, b), sub in ref.items():
            if a < 3 or b < 3:
                continue
            got = _engine_values(db, rules, a, b, sub.mover, sub.opp).astype(np.int64)
            want = np.where(sub.value == DRAW, 0, sub.plies + 1)
            assert np.all((sub.value != WIN) | (sub.plies % 2 == 1))
            assert np.all((sub.value != LOSS) | (sub.plies % 2 == 0))
            bad = np.nonzero(got != want)[0]
            assert bad.size == 0, f"{rules.name} {a}-{b}: {bad.size} of {got.size} positions differ"


def test_engine_matches_reference_six(tmp_path):
    _compare_with_reference(tmp_path, make_rules("six"), 4)


def test_engine_matches_reference_three(tmp_path):
    _compare_with_reference(tmp_path, make_rules("three"), 3)


@pytest.mark.parametrize(
    "name,options",
    [("six", ["double-mill=per-mill", "removal=optional"]), ("six", ["blocked=passes"]), ("six", ["removal-from-mills=forfeit"])],
)
def test_engine_matches_reference_options(tmp_path, name, options):
    _compare_with_reference(tmp_path, make_rules(name, options), 4)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["standard", "no-flying"])
def test_engine_matches_reference_3_3(tmp_path, name):
    _compare_with_reference(tmp_path, make_rules(name), 3)


