"""The package's layers: no import runs back up a layer, and the verifier shares no solver kernel.

rules -> index -> tiers -> storage -> engine, verify, query, ultra, books, history -> play, api, serve, solve, info
-> cli, with values, errors, jit, numba_cache and machine below everything. Read from the source (every ``import``
and ``from ... import``, at module level or inside a function), so a lazy import counts too. Then what the entry
points load (``sys.modules`` of a fresh interpreter): a lookup, a check or the server loads no solver kernel, the
history rule's included; and no two solver modules import each other.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
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
    {"play", "api", "serve", "solve", "info"},
    {"cli", "__main__", "__init__"},
]
LEVEL = {part: i for i, layer in enumerate(LAYERS) for part in layer}
# Siblings in one layer that may not import each other: the engine does not look values up or
# verify; lookups do not solve; the verifier reads the engine's value cache and nothing else of it,
# and nothing of the history rule's package (its check has its own records and numbering);
# the draw ranks (a retrograde analysis of their own) share the engine's retrograde kernels
# (un-moves, counts, atomics) and nothing else of it.
FORBIDDEN = {
    "engine": ("solver.verify", "solver.query", "solver.ultra"),
    "ultra": ("solver.engine.pair", "solver.engine.placing", "solver.engine.run", "solver.engine.cluster", "solver.engine.costs", "solver.verify", "solver.query"),
    "verify": ("solver.query", "solver.engine.kernels", "solver.engine.pair", "solver.engine.placing", "solver.engine.run", "solver.history"),
    "query": ("solver.engine", "solver.verify", "solver.history.solve", "solver.history.kernels", "solver.history.run"),
}
# Within the history rule's package: the layout, the database read back, lookups and the check
# import none of its solver (``history.check`` holds its own kernel, ``history.verify``).
HISTORY_READERS = ("layout", "groups", "store", "query", "check", "verify", "records", "states", "tables")
HISTORY_SOLVER = ("solver.history.solve", "solver.history.kernels", "solver.history.run", "solver.history.write", "solver.history.plan")


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


@pytest.mark.parametrize("name", HISTORY_READERS)
def test_the_history_rules_readers_import_none_of_its_solver(name):
    module = f"solver.history.{name}"
    names = imported(PACKAGE / "history" / f"{name}.py", module)
    wrong = sorted(n for n in names if n.startswith(HISTORY_SOLVER + ("solver.engine",)))
    assert not wrong, f"{module} imports {wrong}"


# A solver kernel (or what loads one) that a lookup, a check or the server never needs.
SOLVER_MODULES = ("solver.engine.", "solver.history.kernels", "solver.history.solve", "solver.history.run",
                  "solver.history.write", "solver.history.plan", "solver.ultra.")
# The verifier reads the engine's value cache and job order (``engine.held``, ``engine.order``:
# no kernel) and nothing else of the engine.
ALLOWED = {"solver.verify.check": ("solver.engine.held", "solver.engine.order")}


def loaded(*statements: str) -> list[str]:
    """The solver modules a fresh interpreter holds after ``statements``."""
    code = "; ".join(statements) + "; import sys, json; print(json.dumps(sorted(m for m in sys.modules if m.startswith('solver'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def kernels_in(mods: list[str], allowed=()) -> list[str]:
    return [m for m in mods if m.startswith(SOLVER_MODULES) and m not in allowed and m not in ("solver.engine",)]


@pytest.mark.parametrize(
    "module",
    ["solver.query", "solver.verify", "solver.verify.check", "solver.serve", "solver.cli.query", "solver.api",
     "solver.history.query", "solver.history.store", "solver.history.check", "solver.info"],
)
def test_an_entry_point_loads_no_solver_kernel(module):
    mods = loaded(f"import {module}")
    assert module in mods
    assert not kernels_in(mods, ALLOWED.get(module, ())), f"import {module} loads {kernels_in(mods, ALLOWED.get(module, ()))}"


def test_the_verify_loads_nothing_of_the_history_rules_package():
    """``morris verify``'s modules hold no ``solver.history`` module once imported: a bug of the
    solver's numbering or canonical forms cannot hide in its own check."""
    mods = loaded("import solver.verify, solver.verify.check, solver.verify.ledger, solver.verify.history")
    assert "solver.verify.history" in mods and "solver.verify.ledger" in mods
    assert not [m for m in mods if m.startswith("solver.history")]


@pytest.mark.slow
def test_a_lookup_and_a_check_of_a_history_database_load_no_solver_kernel(tmp_path):
    """Solve a small history-rule database (Six Men's Morris, 3 men, the same-man ban) in one
    interpreter; then a lookup and ``morris verify`` of it, each in a fresh one, load none of the
    solver's modules (the lookup reads the history rule's store; the verify nothing of the history
    rule's package at all: ``verify.history`` is its own)."""
    from click.testing import CliRunner

    from solver.cli import main

    path = tmp_path / "six3.h5"
    rules = ["--rules", "six", "-o", "men=3", "-o", "reclose=same-man"]
    assert CliRunner().invoke(main, ["solve", *rules, "--whole-game", "--db", str(path), "-q"]).exit_code == 0
    cli = "from solver.cli import main; main([{}], standalone_mode=False)"
    args = ", ".join(repr(a) for a in rules + ["--db", str(path)])
    for command in ("'query', " + args + ", 'W:a1,a3,b2 B:b4,c4,d3 w'", "'verify', " + args + ", '-q'"):
        mods = loaded(cli.format(command))
        if command.startswith("'query'"):
            assert "solver.history.store" in mods
        else:
            assert "solver.verify.history" in mods and not [m for m in mods if m.startswith("solver.history")]
        assert not kernels_in(mods, ALLOWED["solver.verify.check"]), f"morris {command}: loads {kernels_in(mods)}"


def top_level_imports(path: Path, module: str) -> set[str]:
    """The solver modules ``path`` imports when it is imported (module level, not in a function
    nor under ``if TYPE_CHECKING``), each the module itself where a name is one."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    known = {m for _, m in modules()}
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else [])) if node.level else node.module or ""
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in known or f"{full}.__init__" in known else base)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {n.removesuffix(".__init__") for n in out if n.startswith("solver")}


def test_no_two_solver_modules_import_each_other():
    """No cycle among the solver's modules' top-level imports (a cycle works or fails by the
    order of the first import: history.run and history.write imported each other once)."""
    graph = {}
    for path, module in modules():
        graph[module.removesuffix(".__init__")] = top_level_imports(path, module)
    graph = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"
