"""Name numba's compiled functions for ``perf``: runs a benchmark script in this process, then
writes ``/tmp/perf-<pid>.map`` (perf's map of JIT code: start, size, name per function), so that
``perf report`` shows the kernels and helpers by name instead of bare ``[JIT]`` addresses.

    perf record -F 499 -o /tmp/p.data python tools/perf_numba.py benchmarks/bench_history.py \\
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
follows it.

With ``--attach PID`` the map is written for another, running process instead (``/tmp/perf-PID.map``):
a long solve whose numba code was loaded from the cache, which ``perf record -p PID`` then names.
SCRIPT compiles the same functions afresh here (the same sources give the same machine code), and
each is placed in PID's executable memory (``/proc/PID/mem``) where windows of its code match
(the addresses it holds differ, so no one window need match, and the bytes of an address may be
anything: a wrapper's code is mostly addresses); only those found are written:

    .venv/bin/python tools/perf_numba.py --attach PID benchmarks/bench_cycles.py --rules lasker -o men=4 --db /tmp/l4.h5 --rounds 1 --ways fast
    perf record -F 49 -p PID -o /tmp/live.data -- sleep 240
    perf report -i /tmp/live.data --sort sym

Not a test; ``tests/test_long_run_tools.py`` checks that the map names a function, in this process
and in another.
"""

from __future__ import annotations

import bisect
import os
import re
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


WINDOW = 24  # bytes of a function's code matched at a time in the other process
VOTES = 3  # windows that must agree on a function's start there
MATCHED = 4096  # bytes of a function's code whose windows are looked for (enough to place it)


def own_code(table) -> list[tuple[str, bytes, bytes]]:
    """(name, code, mask) of every function of ``table`` (``symbols``), read from this process's
    memory (a size reaching past the mapped code is cut where the reading fails). The mask, over
    the code's first MATCHED bytes, is 0 under each 8-byte constant that points into this
    process's memory (``movabs`` of a callee's or a global's address, which the other process has
    elsewhere) and 1 under the rest of the code."""
    with open("/proc/self/maps") as maps:
        ranges = [tuple(int(x, 16) for x in line.split()[0].split("-")) for line in maps]
    out = []
    with open("/proc/self/mem", "rb", 0) as mem:
        for start, size, name in table:
            code = b""
            while size >= WINDOW and not code:
                try:
                    mem.seek(start)
                    code = mem.read(size)
                except OSError:
                    pass
                size //= 2
            if code:
                # (only the first MATCHED bytes are ever matched: a kernel's code may run to 1 MiB)
                out.append((name, code, pointer_mask(code[:MATCHED + 7], ranges)[:MATCHED]))
    return out


def pointer_mask(code: bytes, ranges) -> bytes:
    """1 per byte of ``code``, 0 under every little-endian 8-byte value inside one of ``ranges``."""
    ranges = sorted(ranges)
    starts = [lo for lo, _ in ranges]
    mask = bytearray(b"\1" * len(code))
    for i in range(len(code) - 7):
        v = int.from_bytes(code[i:i + 8], "little")
        k = bisect.bisect_right(starts, v) - 1
        if v >= 1 << 16 and k >= 0 and v < ranges[k][1]:
            mask[i:i + 8] = bytes(8)
    return bytes(mask)


def executable_memory(pid: int) -> list[tuple[int, bytes]]:
    """(start, bytes) of every executable anonymous mapping of process ``pid`` (the JIT's code)."""
    regions = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            fields = line.split()
            if "x" in fields[1] and len(fields) < 6:
                lo, hi = (int(x, 16) for x in fields[0].split("-"))
                mem.seek(lo)
                regions.append((lo, mem.read(hi - lo)))
    return regions


def window_pattern(code: bytes, mask: bytes, off: int, exact: bool):
    """The WINDOW bytes of ``code`` at ``off`` to look for: with ``exact`` the bytes themselves;
    else, where the window holds an address (mask 0), a regular expression taking any byte there.
    None where there is nothing (new) to look for, or too little to say where it is (padding and
    addresses match anywhere)."""
    window, kept = code[off:off + WINDOW], mask[off:off + WINDOW]
    if exact:
        return window if len(set(window)) >= 6 else None
    literal = bytes(b for b, k in zip(window, kept) if k)
    if len(literal) == len(window) or len(literal) < WINDOW // 2 or len(set(literal)) < 6:
        return None
    return re.compile(b"".join(re.escape(bytes([b])) if k else b"." for b, k in zip(window, kept)), re.DOTALL)


def found_once(pattern, regions) -> list[int]:
    """The address in each region of ``regions`` that ``pattern`` (bytes or a regular expression)
    matches exactly once there."""
    out = []
    for lo, blob in regions:
        if isinstance(pattern, bytes):  # (bytes.find is much the faster)
            i = blob.find(pattern)
            hits = [i] + [j for j in (blob.find(pattern, i + 1),) if j >= 0] if i >= 0 else []
        else:
            hits = [m.start() for _, m in zip(range(2), pattern.finditer(blob))]
        if len(hits) == 1:
            out.append(lo + hits[0])
    return out


def place(funcs, regions) -> list[tuple[int, int, str]]:
    """(start, size, name) of each function of ``funcs`` (name, code, mask) found in ``regions``:
    every window of WINDOW bytes (8 apart) that occurs once in a region votes for the start it implies,
    and VOTES agreeing place it. Where these do not place a function (a short wrapper's code is
    mostly addresses), the windows over addresses vote too, with those bytes free, and a function
    with fewer than VOTES windows in all is placed where every one of them agrees. Sizes are cut
    at the next function placed and at the mapping's end."""
    found = []
    for name, code, mask in funcs:
        offsets = range(0, min(len(code), MATCHED) - WINDOW + 1, 8)
        votes: dict[int, int] = {}
        windows = 0
        for exact in (True, False):
            for off in offsets:
                pattern = window_pattern(code, mask, off, exact)
                if pattern is None:
                    continue
                windows += 1
                for at in found_once(pattern, regions):
                    votes[at - off] = votes.get(at - off, 0) + 1
            start = max(votes, key=votes.get) if votes else None
            if start is not None and votes[start] >= (VOTES if exact else min(VOTES, windows)):
                end = next((lo + len(blob) for lo, blob in regions if lo <= start < lo + len(blob)), None)
                if end is not None:
                    found.append((start, min(len(code), end - start), name))
                break
    found.sort()
    return [(a, min(s, found[i + 1][0] - a) if i + 1 < len(found) else s, n) for i, (a, s, n) in enumerate(found)]


def owners(libraries) -> dict[str, str]:
    """The dispatchers each function is compiled into, joined by '+' (a helper is in every kernel
    that inlines it), so that the map names a parfor body by its kernel."""
    out: dict[str, set] = {}
    for dispatcher, lib in libraries:
        try:
            functions = lib._final_module.functions
        except AttributeError:
            continue
        for fn in functions:
            if not fn.is_declaration:
                out.setdefault(fn.name, set()).add(dispatcher)
    return {k: "+".join(sorted(v)) for k, v in out.items()}


def main(argv: list[str]) -> int:
    objects = attach = None
    if argv[:1] == ["--objects"]:
        objects, argv = Path(argv[1]), argv[2:]
    elif argv[:1] == ["--attach"]:
        if len(argv) < 2 or not argv[1].isdigit():
            print("error: --attach takes the process id of a running process", file=sys.stderr)
            return 2
        attach, argv = int(argv[1]), argv[2:]
    if not argv:
        print("usage: perf_numba.py [--objects DIR | --attach PID] SCRIPT [ARGS...]", file=sys.stderr)
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
    if attach is not None:
        who = owners(libraries)
        funcs = [(f"{who.get(n, '?')}:{n}", code, mask) for n, code, mask in own_code(table)]
        try:
            placed = place(funcs, executable_memory(attach))
        except OSError as e:
            print(f"error: cannot read the memory of process {attach}: {e}", file=sys.stderr)
            return 1
        path = Path(f"/tmp/perf-{attach}.map")
        path.write_text("".join(f"{a:x} {s:x} {n}\n" for a, s, n in placed))
        print(f"perf map: {path} ({len(placed)} of {len(funcs)} functions found in process {attach})", file=sys.stderr)
        shutil.rmtree(os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)
        return status
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
