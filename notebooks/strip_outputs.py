"""Strip the outputs of the notebooks before a commit (git keeps them without outputs; the tests
run them and fail on a notebook stored with outputs):

    python notebooks/strip_outputs.py            # every notebook in this folder
    python notebooks/strip_outputs.py X.ipynb    # the ones named
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat


def strip(path: Path) -> bool:
    """Remove outputs, execution counts and per-run metadata; True if the file changed."""
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    after = nbformat.writes(nb)
    if after != before:
        path.write_text(after)
    return after != before


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted(Path(__file__).parent.glob("*.ipynb"))
    for p in paths:
        print(f"{p}: {'stripped' if strip(p) else 'no outputs'}")
