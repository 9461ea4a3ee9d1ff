"""Name numba's compiled functions for ``perf``: runs a benchmark script in this process, then
writes ``/tmp/perf-<pid>.map`` (perf's map of JIT code: start, size, name per function), so that
``perf report`` shows the kernels and helpers by name instead of bare ``[JIT]`` addresses.

    perf record -F 499 -o /tmp/p.data python benchmarks/perf_numba.py benchmarks/bench_history.py \\
        --rules viking -o reclose=same-man --max-men 5 --solve-only
    perf report -i /tmp/p.data --sort sym

Every function is compiled in this process (``NUMBA_CACHE_DIR`` is set to a new empty directory
first: a function loaded from the cache has no module to name its symbols), so the first calls
take numba's compile time, and a benchmark's own first round should be left out of what is read.
With ``--objects DIR`` each compiled library's object code is written there too (``NAME-K.o``,
NAME the dispatcher's), so that ``objdump -d`` shows the instructions the samples fall on:
``perf script -F ip`` gives the sampled addresses, less a function's start (from the map) the
offsets into its code. On this VM perf samples a software clock: a sample names the instruction
after the one that was running, so a load or prefetch that waits shows on the instruction that
follows it. Not a test; ``tests/test_chain_tools.py`` checks that the map names a function.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

MAX_SIZE = 1 << 20  # bytes of code a function is given in the map at most


def compiled_libraries():
    """(dispatcher name, code library) of every numba function compiled in this process."""
    import gc

    from numba.core.registry import CPUDispatcher

    seen = set()
    for obj in gc.get_objects():
        if isinstance(obj, CPUDispatcher):
            for cres in list(obj.overloads.values()):
                lib = cres.library
                if id(lib) not in seen:
                    seen.add(id(lib))
                    yield obj.__name__, lib


def symbols(libraries) -> list[tuple[int, int, str]]:
    """(start, size, name) of every defined function of the libraries, by address; a function's
    size is taken as the distance to the next one (the map needs one, the module does not say),
    at most 1 MiB (the last one of a library's code would otherwise reach over to the next's)."""
    starts = {}
    for _, lib in libraries:
        try:
            module = lib._final_module  # (absent where a library was loaded from the cache)
        except AttributeError:
            continue
        for fn in module.functions:
            if not fn.is_declaration:
                addr = lib.get_pointer_to_function(fn.name)
                if addr:
                    starts[addr] = fn.name
    ordered = sorted(starts.items())
    return [(a, min(ordered[i + 1][0] - a if i + 1 < len(ordered) else 4096, MAX_SIZE), n) for i, (a, n) in enumerate(ordered)]


def main(argv: list[str]) -> int:
    objects = None
    if argv[:1] == ["--objects"]:
        objects, argv = Path(argv[1]), argv[2:]
    if not argv:
        print("usage: perf_numba.py [--objects DIR] SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="perf-numba-")
    import runpy

    sys.argv = argv
    sys.path.insert(0, str(Path(argv[0]).resolve().parent))
    status = 0
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:  # (click's commands end so)
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    libraries = list(compiled_libraries())
    table = symbols(libraries)
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    path.write_text("".join(f"{a:x} {s:x} {n}\n" for a, s, n in table))
    print(f"perf map: {path} ({len(table)} functions)", file=sys.stderr)
    if objects is not None:
        objects.mkdir(parents=True, exist_ok=True)
        written = 0
        for k, (name, lib) in enumerate(libraries):
            try:
                code = lib._get_compiled_object()
            except Exception:  # (a library without object code of its own: numba's internal ones)
                continue
            (objects / f"{name}-{k}.o").write_bytes(code)
            written += 1
        print(f"object code: {objects} ({written} libraries)", file=sys.stderr)
    shutil.rmtree(os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
