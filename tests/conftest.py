"""Shared test setup: make the helper modules in tests/ (reference.py) importable as top-level
modules (``from reference import ...``) whatever pytest's import mode; and what several modules
read, built once per session (the tests only read it: a test that changes a database copies it
first, ``storage.write.copy_database``):

- ``solved_db``: engine databases of the moving phase;
- ``solved_whole``: whole-game databases, built through ``morris solve --whole-game``;
- ``reference_moving`` and ``reference_whole``: the plain-Python reference's solutions
  (``tests/reference.py``), the slowest part of most comparisons.

Numba's threads: a test runs the kernels on one thread unless marked ``threads(2)`` (or
``slow``); the shared databases are built on every thread numba has. Two workers of two
threads each on two cores wait on each other's descheduled halves in every parallel loop; the
comparisons with the reference and with the other engines, marked, keep the parallel loops'
atomics under two threads in the default run."""

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)


import pytest  # noqa: E402

# Modules whose tests compile (almost) nothing: the plain-Python reference, notation, rules.
COMPILE_NOTHING = {
    "test_boards.py", "test_layers.py", "test_malom_rules.py", "test_notation.py", "test_openspiel.py",
    "test_reference.py", "test_reference_whole.py", "test_rule_options.py", "test_tiers.py", "test_values.py",
}


WARMED = ".warmed-by-tests"  # in numba's cache directory for these sources: filled by warm_kernels.py


def pytest_configure(config):
    """Before xdist starts two or more workers on a cache that is empty for these sources, fill it
    from two processes at once (``warm_kernels.py``: the moving and the placing kernels apart), so
    that the workers load what they would each have compiled (from a fresh clone, about 100 s of
    compiling a worker). Nothing where the cache was filled before, in a worker, or without JIT."""
    import os
    import subprocess

    numprocesses = getattr(config.option, "numprocesses", None) or 0
    if isinstance(numprocesses, str):  # -n auto, -n logical
        numprocesses = os.cpu_count() or 1
    if hasattr(config, "workerinput") or numprocesses < 2 or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    import solver  # noqa: F401 (points NUMBA_CACHE_DIR at the directory for these sources)

    cache = Path(os.environ.get("NUMBA_CACHE_DIR", ""))
    if not cache.is_dir() or (cache / WARMED).exists():
        return
    script = Path(__file__).with_name("warm_kernels.py")
    sys.stderr.write("compiling the kernels into numba's cache, once for these sources (tests/warm_kernels.py)\n")
    runs = [subprocess.Popen([sys.executable, str(script), part]) for part in ("moving", "placing")]
    if all(run.wait() == 0 for run in runs):  # (a failure leaves the compiling to the tests)
        (cache / WARMED).touch()


@pytest.hookimpl(trylast=True)  # after ``-m 'not slow'`` has deselected: xdist counts what is left
def pytest_collection_modifyitems(config, items):
    """With two or more xdist workers, start every worker but the first on tests that compile
    nothing. xdist's default scheduler (``--dist load``) hands each worker a first chunk of
    consecutive tests (a quarter of its share); left in file order, every worker begins by
    compiling the same engine kernels at once. Put the compile-nothing tests right after the first
    worker's chunk: the others run them while the first fills numba's cache, and load the kernels
    from it. (From a fresh clone, numba compiles for about 100 s per worker.) Every worker
    collects the same order, as xdist requires; the order changes no test's outcome."""
    import os

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        return
    light = [it for it in items if it.path.name in COMPILE_NOTHING]
    heavy = [it for it in items if it.path.name not in COMPILE_NOTHING]
    # xdist.scheduler.load: the first chunk of each worker (no more than the heavy tests: a run of
    # light modules alone has nothing to put first)
    first = min(len(items) // workers // 4, len(heavy))
    # (cut where a module ends, so that no module's fixtures are built twice by one worker)
    cut = max((i for i in range(1, first + 1) if heavy[i - 1].path != heavy[min(i, len(heavy) - 1)].path), default=0)
    items[:] = heavy[:cut] + light + heavy[cut:]


@contextmanager
def numba_threads(n: int | None = None):
    """Run the kernels on ``n`` threads (default: all numba has) inside the block."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(min(n or numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


@pytest.fixture(autouse=True)
def _one_thread_unless_marked(request):
    """One numba thread for the test, or two where it is marked ``threads(2)`` or ``slow`` (see
    the module's note). Tests that compile nothing skip numba's import."""
    if request.node.path.name in COMPILE_NOTHING:
        yield
        return
    mark = request.node.get_closest_marker("threads")
    n = mark.args[0] if mark else 2 if request.node.get_closest_marker("slow") else 1
    with numba_threads(n):
        yield


@pytest.fixture(scope="session")
def solved_db(tmp_path_factory):
    """``solved_db(rule_set, max_men, options=())``: the path of a database of that named rule set
    (with ``options`` on top) solved up to ``max_men``, built once per session and shared by the
    tests that ask for the same one (they only read it)."""
    from solver.engine.run import solve
    from solver.rules import make_rules

    built: dict[tuple, Path] = {}

    def get(rule_set: str, max_men: int, options=()) -> Path:
        key = (rule_set, max_men, tuple(options))
        if key not in built:
            name = "-".join([rule_set, *(o.replace("=", "_") for o in options), str(max_men)])
            path = tmp_path_factory.mktemp("solved") / f"{name}.h5"
            with numba_threads():
                solve(make_rules(rule_set, list(options)), max_men, path, progress=False, echo=lambda s: None)
            built[key] = path
        return built[key]

    return get


class WholeGame(NamedTuple):
    path: Path
    stdout: str  # what ``morris solve --whole-game ... -q`` printed (its last line: the game value)


@pytest.fixture(scope="session")
def solved_whole(tmp_path_factory):
    """``solved_whole(rule_set, options=())`` -> ``WholeGame``: a whole-game database (the
    placing phase and the moving phase it reaches) solved by ``morris solve --whole-game --rules
    RULE_SET -o OPTION ... -q`` once per session."""
    from click.testing import CliRunner

    from solver.cli import main

    built: dict[tuple, WholeGame] = {}

    def get(rule_set: str, options=()) -> WholeGame:
        key = (rule_set, tuple(options))
        if key not in built:
            name = "-".join([rule_set, *(o.replace("=", "_") for o in options)])
            path = tmp_path_factory.mktemp("whole") / f"{name}.h5"
            args = ["solve", "--whole-game", "--rules", rule_set, "--db", str(path), "-q"]
            for o in options:
                args += ["-o", o]
            with numba_threads():
                res = CliRunner().invoke(main, args)
            assert res.exit_code == 0, res.output
            built[key] = WholeGame(path, res.stdout)
        return built[key]

    return get


class ReferenceSolution(NamedTuple):
    graph: object  # reference.Graph
    value: object  # np.ndarray, in the graph's order
    plies: object
    result: dict  # {(a, b): reference.Subspace}, as solve_reference returns it


@pytest.fixture(scope="session")
def reference_moving():
    """``reference_moving(rules, max_men)`` -> ``ReferenceSolution``: the reference's moving phase,
    every subspace (a, b) with 3 <= a, b <= max_men, solved once per session (in two processes).
    Its values are read-only."""
    from reference import build_graph, solve_graph, split

    built: dict[tuple, ReferenceSolution] = {}

    def get(rules, max_men: int) -> ReferenceSolution:
        if (rules, max_men) not in built:
            g = build_graph(rules, [(a, b) for a in range(3, max_men + 1) for b in range(3, max_men + 1)], workers=2)
            value, plies = solve_graph(g)
            for arr in (value, plies):
                arr.flags.writeable = False
            built[rules, max_men] = ReferenceSolution(g, value, plies, split(g, value, plies))
        return built[rules, max_men]

    return get


@pytest.fixture(scope="session")
def reference_whole():
    """``reference_whole(rules)`` -> {tier: reference.Subspace}: the reference's whole game from
    the start, solved once per session (in two processes), each group's defining equations checked
    as it is solved (``check_solution``). Read-only. For the small games only: the session holds
    it to the end."""
    from reference import solve_whole_reference

    built: dict = {}

    def get(rules) -> dict:
        if rules not in built:
            result = solve_whole_reference(rules, workers=2, check=True)
            for s in result.values():
                for arr in s:
                    arr.flags.writeable = False
            built[rules] = result
        return built[rules]

    return get
