"""Source checks of the parallel numba kernels, read with ``ast``: what numba compiles without a
word and then gets wrong.

A ``prange`` loop that binds a name its function also takes as an argument (``order`` for the
parts' order, then ``rows, ..., order, ... = level_scratch()`` inside the loop) compiled, and the
history engine's solve crashed with a segmentation fault on its smallest subspace (2026-11-27).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "solver"


def bound_names(target):
    """The plain names an assignment target binds (not a subscript's or an attribute's)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from bound_names(e)
    elif isinstance(target, ast.Starred):
        yield from bound_names(target.value)


def prange_rebinds(source: str) -> list[tuple[str, list[str]]]:
    """(function, names) for each parallel function whose ``prange`` loop binds one of its arguments."""
    out = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef) or not any("parallel" in ast.unparse(d) for d in fn.decorator_list):
            continue
        args = {a.arg for a in fn.args.args}
        for loop in ast.walk(fn):
            if not (isinstance(loop, ast.For) and "prange" in ast.unparse(loop.iter)):
                continue
            bound = set()
            for node in ast.walk(loop):
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        bound.update(bound_names(t))
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
                    bound.update(bound_names(node.target))
            if bound & args:
                out.append((fn.name, sorted(bound & args)))
    return out


def test_the_check_finds_a_rebound_argument():
    source = (
        "@nb.njit(parallel=True)\n"
        "def step(parts, order):\n"
        "    for r in nb.prange(parts.shape[0]):\n"
        "        c = order[r]\n"
        "        rows, order = scratch()\n"
        "        parts[c] = 0\n"
    )
    assert prange_rebinds(source) == [("step", ["order"])]


def test_no_parallel_loop_rebinds_an_argument_of_its_kernel():
    found = {str(p.relative_to(PACKAGE)): prange_rebinds(p.read_text()) for p in PACKAGE.rglob("*.py")}
    assert {p: f for p, f in found.items() if f} == {}
