"""The package's layers: no import runs back up a layer, and the verifier shares no solver kernel.

rules -> index -> tiers -> storage -> engine, verify, query, ultra, books, history -> play, api, serve -> cli,
with values, errors, jit, numba_cache and machine below everything. Read from the source (every ``import`` and
``from ... import``, at module level or inside a function), so a lazy import counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "solver"

# A layer may import its own package and the layers below it.
LAYERS = [
    {"values", "errors", "jit", "numba_cache", "machine"},
    {"rules"},
    {"index"},
    {"tiers"},
    {"storage"},
    {"engine", "verify", "query", "ultra", "books", "history"},
    {"play", "api", "serve"},
    {"cli", "__main__", "__init__"},
]
LEVEL = {part: i for i, layer in enumerate(LAYERS) for part in layer}
# Siblings in one layer that may not import each other: the engine does not look values up or
# verify; lookups do not solve; the verifier reads the engine's value cache and nothing else of it;
# the draw ranks (a retrograde analysis of their own) share the engine's retrograde kernels
# (un-moves, counts, atomics) and nothing else of it.
FORBIDDEN = {
    "engine": ("solver.verify", "solver.query", "solver.ultra"),
    "query": ("solver.engine", "solver.verify"),
    "ultra": ("solver.engine.pair", "solver.engine.placing", "solver.engine.run", "solver.engine.cluster", "solver.engine.costs", "solver.verify", "solver.query"),
    "verify": ("solver.query", "solver.engine.kernels", "solver.engine.pair", "solver.engine.placing", "solver.engine.run"),
}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        yield path, ".".join(parts)


def imported(path: Path, module: str) -> set[str]:
    """The absolute names of the solver modules (or packages) that ``path`` imports."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.startswith("solver"):
                out.add(name)
                out.update(f"{name}.{a.name}" for a in node.names)  # (a submodule, or a name in it)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("solver"))
    return out


def layer_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_is_in_a_layer():
    assert {layer_of(m) for _, m in modules()} <= set(LEVEL)
    assert {layer_of(n) for p, m in modules() for n in imported(p, m) if n != "solver"} <= set(LEVEL)


@pytest.mark.parametrize("path,module", list(modules()), ids=[m for _, m in modules()])
def test_no_import_runs_back_up_a_layer(path, module):
    mine = layer_of(module)
    wrong = []
    for name in sorted(imported(path, module)):
        theirs = layer_of(name)
        if name == "solver" or theirs == mine:  # (``from ... import values`` lists solver.values too)
            continue
        if LEVEL[theirs] > LEVEL[mine] or name.startswith(FORBIDDEN.get(mine, ("-",))):
            wrong.append(name)
    assert not wrong, f"{module} imports {wrong} (layer {mine} is below them)"


def test_relative_imports_are_read_at_their_level():
    """``imported`` resolves ``..storage.lock`` and ``.pair`` from engine/run.py: the test above
    sees real imports, not names it cannot place."""
    names = imported(PACKAGE / "engine" / "run.py", "solver.engine.run")
    assert "solver.storage.lock" in names and "solver.engine.pair" in names
    assert all(n.startswith("solver") for n in names)
