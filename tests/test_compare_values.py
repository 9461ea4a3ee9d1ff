"""``tools/compare_values.py``: two databases tier by tier (issue 23's count of the values
that the history rule's ban changes)."""

from __future__ import annotations

import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import compare_values  # noqa: E402

from solver.storage.write import copy_database  # noqa: E402
from solver.values import DUP, encode  # noqa: E402


def test_counts_of_a_made_change():
    a = np.array([encode("win", 3), 0, DUP, encode("loss", 4), encode("win", 5), 0], dtype=np.uint16)
    b = a.copy()
    b[0] = encode("win", 7)  # another value, the same kind
    b[1] = encode("loss", 2)  # a draw that loses
    b[4] = 0  # a win that draws
    got = compare_values.compare_arrays(a, b)
    assert got["positions"] == 5 and got["changed"] == 3 and got["kind_changed"] == 2
    assert got["draw>loss"] == 1 and got["win>draw"] == 1 and got["loss>win"] == 0
    with pytest.raises(ValueError, match="slot 2"):
        b[2] = 0
        compare_values.compare_arrays(a, b)


def test_two_databases_and_the_command(solved_db, tmp_path, capsys):
    """A copy of a solved database with one value changed: the tool finds that one change, in
    its tier, and nothing elsewhere; a database of another board is refused in one line."""
    src = solved_db("six", 4)
    dst = tmp_path / "copy.h5"
    copy_database(src, dst)
    with h5py.File(dst, "r+") as f:
        ds = f["subspaces"]["3-4"]
        v = ds[...]
        slot = int(np.flatnonzero((v != DUP) & (v % 2 == 1))[5])
        was = "win" if (int(v[slot]) - 1) % 2 == 1 else "loss"
        v[slot] = 0  # now a draw
        ds[...] = v
    assert compare_values.main([str(src), str(dst)]) == 0
    out = capsys.readouterr().out
    assert "| 3-4 |" in out and "| 4-4 |" not in out
    result = compare_values.compare(src, dst)
    assert {k for k, c in result.items() if c["changed"]} == {"3-4"} and result["3-4"][f"{was}>draw"] == 1
    assert compare_values.main([str(src), str(solved_db("standard", 4))]) == 1
    assert "board" in capsys.readouterr().err
