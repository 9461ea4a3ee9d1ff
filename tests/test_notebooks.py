"""The notebooks in ``notebooks/``: each one is executed (nbclient, a fresh kernel) on a small
database built here (Six Men's Morris up to 4 men; ``morris bench`` up to 4 men for the speed
notebook), fails the test when a cell fails, and must draw at least one plot. They are stored
without outputs (``python notebooks/strip_outputs.py``). Also here: the database methods the
notebooks read (``info``, ``values``, ``positions``), checked against the stored statistics and
the probes.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from solver import open_database
from solver.api import DUP, decode_many

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
# executed under -m slow only (4 to 10 s each: a kernel of their own, solves and timings); the
# default run executes the others
SLOW_NOTEBOOKS = {"perfect_play", "speed", "statistics"}
RUNS = [pytest.param(p, id=p.stem, marks=pytest.mark.slow) if p.stem in SLOW_NOTEBOOKS else pytest.param(p, id=p.stem) for p in NOTEBOOKS]


@pytest.fixture(scope="module")
def six_db(solved_db) -> Path:
    """Six Men's Morris up to 4 men (shared by the session)."""
    return solved_db("six", 4)


def test_there_are_notebooks():
    assert {p.stem for p in NOTEBOOKS} >= {"statistics", "perfect_play", "speed"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code), (
        f"{path.name} has outputs: python notebooks/strip_outputs.py"
    )


@pytest.mark.parametrize("path", RUNS)
def test_notebook_runs_and_plots(path, six_db, monkeypatch):
    monkeypatch.setenv("MORRIS_DB", str(six_db))
    monkeypatch.setenv("MORRIS_BENCH_MEN", "4")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as e:  # the failing cell and its traceback, not the kernel's noise
        pytest.fail(f"{path.name}: a cell failed:\n{e}")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    plots = [o for o in outputs if "image/png" in o.get("data", {})]
    assert plots, f"{path.name} drew no plot"


def test_what_the_notebooks_read(six_db):
    """``info`` is the stored statistics, ``values`` decode to them, and ``positions`` gives
    positions whose probes are the stored values; a duplicate slot or one out of range is refused."""
    with open_database(six_db) as db:
        for a, b in db.subspaces():
            info = db.info(a, b)
            kind, plies = decode_many(db.values(a, b))
            assert (int((kind == 1).sum()), int((kind == 0).sum()), int((kind == -1).sum())) == (info.win, info.draw, info.loss)
            assert info.positions == info.win + info.draw + info.loss and len(kind) == info.slots
            assert int(plies.max()) == info.max_plies
            rng = np.random.default_rng(a * 10 + b)
            slots = rng.choice(np.flatnonzero(kind != -2), size=50, replace=False)
            values = db.values(a, b)[slots]
            for pos, slot, v in zip(db.positions(a, b, slots), slots, values):
                assert (pos.white.bit_count(), pos.black.bit_count(), pos.side) == (a, b, "w")
                probe = db.probe(pos)
                k, p = decode_many(np.array([v]))
                assert probe.value == {1: "win", 0: "draw", -1: "loss"}[int(k[0])]
                assert probe.plies == (None if k[0] == 0 else int(p[0])), slot
        duplicate = int(np.flatnonzero(db.values(3, 3) == DUP)[0])
        with pytest.raises(ValueError, match="holds no position"):
            db.positions(3, 3, [duplicate])
        with pytest.raises(ValueError, match="run from 0"):
            db.positions(3, 3, [db.info(3, 3).slots])
