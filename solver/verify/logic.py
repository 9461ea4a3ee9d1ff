"""The sources of the verify's logic and their digest, which ``LOGIC_VERSION`` stands for.

The logic is every module of ``solver.verify`` but its bookkeeping (which passes to reuse, and
where they are recorded), with the modules of the rules, the index, the tiers and the value
codes that they import, followed import by import. Comments and docstrings are left out of the
digest: editing them changes no verdict.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
# (and the package itself, which holds LOGIC_VERSION: the version names this digest, not a part of it)
BOOKKEEPING = {"solver.verify", "solver.verify.__init__", "solver.verify.logic", "solver.verify.evidence", "solver.verify.ledger", "solver.verify.resume"}
# what the checks' verdicts depend on, besides solver.verify (storage reads bytes; errors, jit and
# the engine's memory planning change no verdict)
LOGIC_PARTS = ("solver.verify", "solver.rules", "solver.index", "solver.tiers", "solver.values")
SKIPPED = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}


def logic_modules() -> list[str]:
    """The modules of the logic, sorted."""
    todo = [m for m in _package_modules() if m.startswith("solver.verify.") and m not in BOOKKEEPING]
    found: set[str] = set()
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        todo.extend(m for m in _imports(name) if m.startswith(LOGIC_PARTS) and m not in BOOKKEEPING)
    return sorted(found)


def sources_digest() -> str:
    """sha256 over the logic's modules: each one's name and its source without comments and
    docstrings."""
    digest = hashlib.sha256()
    for name in logic_modules():
        digest.update(f"{name}\n{code_text(_path(name).read_text())}\n".encode())
    return digest.hexdigest()


def code_text(source: str) -> str:
    """``source`` without its comments, docstrings, blank lines and trailing blanks (tokenize
    finds them; the rest of the text is kept as written)."""
    lines = source.splitlines(keepends=True)
    cut: list[tuple[tuple[int, int], tuple[int, int]]] = []
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)]
    before = None  # the last token that is not layout
    for i, t in enumerate(tokens):
        if t.type == tokenize.COMMENT:
            cut.append((t.start, t.end))
        elif t.type == tokenize.STRING and (before is None or before.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)):
            after = next((u for u in tokens[i + 1 :] if u.type not in (tokenize.NL, tokenize.COMMENT)), None)
            if after is None or after.type in (tokenize.NEWLINE, tokenize.ENDMARKER):  # a string alone on its line
                cut.append((t.start, t.end))
        if t.type not in (tokenize.NL, tokenize.COMMENT):
            before = t
    for (r0, c0), (r1, c1) in reversed(cut):  # (rows from 1, columns of the line's characters)
        head, tail = lines[r0 - 1][:c0], lines[r1 - 1][c1:]
        lines[r0 - 1 : r1] = [head + tail]
    return "\n".join(line.rstrip() for line in "".join(lines).splitlines() if line.strip())


def _package_modules() -> list[str]:
    return [".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts) for p in sorted(PACKAGE.rglob("*.py"))]


def _path(name: str) -> Path:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _imports(name: str) -> set[str]:
    """The solver modules ``name`` imports (at module level or in a function), as modules: a name
    imported from a module stands for that module."""
    path = _path(name)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                out.add(f"{module}.{alias.name}" if _exists(f"{module}.{alias.name}") else module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("solver") and _exists(m)}


def _exists(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return (path / "__init__.py").exists() or path.with_suffix(".py").exists()
