"""Numba's cache keyed by the sources (``solver.numba_cache``): a helper changed in another module
is compiled afresh, where numba's own cache would run its old code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from solver import numba_cache
from solver.numba_cache import KEEP, PREFIX, source_key

HELPER = "import numba\n\n@numba.njit(cache=True)\ndef h():\n    return {}\n"
KERNEL = "import numba\nfrom .helpers import h\n\n@numba.njit(cache=True)\ndef f():\n    return h()\n"


def _package(tmp_path: Path, keyed: bool) -> Path:
    """A package whose kernel (``kernel.f``) calls a helper of another module (``helpers.h``)."""
    pkg = tmp_path / ("keyed" if keyed else "plain")
    pkg.mkdir()
    init = ""
    if keyed:
        init = textwrap.dedent(f"""
            import sys
            from pathlib import Path
            sys.path.insert(0, {str(Path(numba_cache.__file__).parent)!r})
            from numba_cache import use_source_keyed_cache
            use_source_keyed_cache(Path(__file__).parent)
        """)
    (pkg / "__init__.py").write_text(init)
    (pkg / "helpers.py").write_text(HELPER.format(1))
    (pkg / "kernel.py").write_text(KERNEL)
    return pkg


def _run(pkg: Path, cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(pkg.parent)}
    code = f"from {pkg.name}.kernel import f; print(f())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()


def _change_helper(pkg: Path) -> None:
    kernel_stamp = (pkg / "kernel.py").stat().st_mtime_ns
    time.sleep(0.01)
    (pkg / "helpers.py").write_text(HELPER.format(2))
    os.utime(pkg / "kernel.py", ns=(kernel_stamp, kernel_stamp))  # the kernel's file untouched


def test_a_changed_helper_is_compiled_afresh(tmp_path):
    keyed = _package(tmp_path, keyed=True)
    cache = tmp_path / "cache"
    assert _run(keyed, cache) == "1"
    _change_helper(keyed)
    assert _run(keyed, cache) == "2"
    assert len([p for p in cache.iterdir() if p.name.startswith(PREFIX)]) == 2


def test_numbas_own_cache_keeps_the_old_helper(tmp_path):
    """Why the key is needed: one cache directory for every state of the sources runs the
    helper as it was when the kernel was first compiled."""
    plain = _package(tmp_path, keyed=False)
    cache = tmp_path / "cache"
    assert _run(plain, cache) == "1"
    _change_helper(plain)
    assert _run(plain, cache) == "1"


def test_the_key_follows_names_and_contents(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    first = source_key(tmp_path)
    assert source_key(tmp_path) == first
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    changed = source_key(tmp_path)
    assert changed != first
    (tmp_path / "sub" / "b.py").rename(tmp_path / "sub" / "c.py")
    assert source_key(tmp_path) not in (first, changed)
    (tmp_path / "notes.txt").write_text("not a source")
    assert source_key(tmp_path) == source_key(tmp_path)


def test_the_oldest_directories_are_pruned(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    root.mkdir()
    for i in range(KEEP + 3):
        d = root / f"{PREFIX}old{i}"
        d.mkdir()
        os.utime(d, (1000 + i, 1000 + i))
    (root / "someone-else").mkdir()
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text("z = 0\n")
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # restored after
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(root / f"{PREFIX}from-a-parent-process"))
    path = numba_cache.use_source_keyed_cache(src)
    assert path == root / (PREFIX + source_key(src))  # the parent's directory's parent reused
    assert os.environ["NUMBA_CACHE_DIR"] == numba.config.CACHE_DIR == str(path)
    left = sorted(p.name for p in root.iterdir())
    newest = [f"{PREFIX}old{i}" for i in range(3, KEEP + 3)]
    assert left == sorted([path.name, "someone-else", *newest])
