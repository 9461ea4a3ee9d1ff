"""The ``morris`` command's promises: a database of another rule set is refused by every command
that takes --rules/-o and --db, file system failures and interruptions are one line, a missing
database's hint builds the right thing, arguments are checked before any work, ``--json`` on every
command, and stored solving times without compilation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine.run import solve
from solver.rules import make_rules
from solver.storage.write import copy_database


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def one_line_error(result, status: int, *fragments: str) -> str:
    """The command failed with ``status`` and one line on standard error naming the problem."""
    assert result.exit_code == status, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def six_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "six.h5"
    solve(make_rules("six"), 4, path, progress=False, echo=lambda s: None)
    return path


@pytest.mark.parametrize("command", ["info", "verify", "solve", "query"])
@pytest.mark.parametrize("rules_args", [["--rules", "three"], ["--rules", "six", "-o", "double-mill=per-mill"]])
def test_every_command_refuses_a_database_of_other_rules(six_db, command, rules_args):
    extra = ["W:a1,c1,e1 B:a5,c5,e5 w"] if command == "query" else []
    if command == "solve":
        extra = ["--max-men", "3"]
    result = run(command, *rules_args, "--db", str(six_db), *extra)
    one_line_error(result, 1, str(six_db), "holds the rule set 'six'")


@pytest.mark.parametrize("command", ["info", "verify"])
def test_without_rules_the_file_decides(six_db, command):
    result = run(command, "--db", str(six_db))
    assert result.exit_code == 0, result.output
    assert "4-4" in result.output


def test_unwritable_database_is_one_line():
    result = run("solve", "--rules", "three", "--db", "/proc/nowhere/x.h5")
    one_line_error(result, 1, "/proc/nowhere/x.h5")
    assert "solving" not in result.stdout  # nothing announced before the arguments held


@pytest.mark.parametrize(
    "args,want",
    [
        (["verify", "--rules", "six"], "morris solve --rules six --db data/six.h5"),
        (["info", "--rules", "six", "-o", "removal=optional"], "morris solve --rules six -o removal=optional --db data/six_removal-optional.h5"),
        # (a rule set with no shipped opening book: with one, the book answers what it holds;
        # plain twelve ships one)
        (["query", "--rules", "twelve", "-o", "men=4", "W:a1,d1,g1 B:a4,b4,c4 w"],
         "morris solve --rules twelve -o men=4 --db data/twelve_men-4.h5"),
    ],
)
def test_missing_database_hint_builds_the_same_rules(tmp_path, monkeypatch, args, want):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(run(*args), 1, want)
    # ... and the suggested command really builds that database.
    suggested = line.split("build one with: ")[1].rstrip(")").split()[2:]
    assert run("solve", *suggested, "--max-men", "3", "-q").exit_code == 0
    assert run(*args).exit_code in (0, 1)  # found now (query may still miss a subspace)
    assert "no database" not in run(*args).output


@pytest.mark.parametrize("args", [["--max-men", "2"], ["--threads", "100000"], ["--rules", "six", "--max-men", "9"]])
def test_solve_checks_its_arguments_before_announcing_work(tmp_path, args):
    result = run("solve", *args, "--db", str(tmp_path / "x.h5"))
    one_line_error(result, 2)
    assert result.stdout == ""
    assert not (tmp_path / "x.h5.lock").exists()


# What h5py raises when the disk fills while a file is written: an OSError with no errno, the
# file and HDF5's reason inside a message of several lines (seen with a full tmpfs).
DISK_FULL = (
    "Can't close file (file write failed: time = Thu Nov 26 21:42:34 2026\n, filename = "
    "'{folder}/.3-3.h5.123.tmp', file descriptor = 5, errno = 28, error message = 'No space left on "
    "device', buf = 0x5650, total write size = 2048, bytes this sub-write = 2048, offset = 4096)"
)


def test_a_full_disk_is_one_line_that_says_how_to_resume(tmp_path, monkeypatch):
    import solver.storage.write as write

    def full(path, *args, **kwargs):
        raise OSError(DISK_FULL.format(folder=f"{path}.d"))

    monkeypatch.setattr(write, "write_subspace", full)
    db = tmp_path / "x.h5"
    line = one_line_error(run("solve", "--rules", "three", "--db", str(db)), 1, "no space left on device")
    assert f"writing {db}.d" in line and "run the same command again to resume" in line


def test_other_file_system_failures_name_the_file():
    from solver.cli.common import os_error_line

    assert os_error_line(PermissionError(13, "Permission denied", "/x/y.h5"), True) == "Permission denied: /x/y.h5"
    assert os_error_line(OSError(28, "No space left on device", "/x/y.h5"), False) == "no space left on device writing /x"


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    "target,args,resumable",
    [
        ("solver.engine.run.solve", ["solve", "--rules", "three"], True),
        ("solver.verify.check.verify", ["verify", "--rules", "three"], False),
        ("solver.query.open_database", ["query", "--rules", "three", "......... w"], False),
        ("solver.engine.costs.bench.run_bench", ["bench", "--rules", "three", "--max-men", "3"], False),
    ],
)
def test_ctrl_c_is_one_line_and_only_solve_promises_a_resume(monkeypatch, target, args, resumable):
    module, name = target.rsplit(".", 1)
    monkeypatch.setattr(f"{module}.{name}", _interrupt)
    result = run(*args)
    assert result.exit_code == 130
    assert result.stderr.strip().startswith("interrupted")
    assert ("run the same command again to resume" in result.stderr) == resumable
    assert "Traceback" not in result.output


def test_solve_json_lines(tmp_path):
    path = tmp_path / "j.h5"
    result = run("solve", "--rules", "six", "--max-men", "4", "--db", str(path), "--json")
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    pairs, summary = events[:-1], events[-1]
    assert [e["event"] for e in pairs] == ["pair"] * 3 and summary["event"] == "summary"
    names = [f"{s['mover']}-{s['opponent']}" for e in pairs for s in e["subspaces"]]
    assert names == ["3-3", "3-4", "4-3", "4-4"]
    with h5py.File(path) as f:
        for e in pairs:
            for s in e["subspaces"]:
                assert f["subspaces"][f"{s['mover']}-{s['opponent']}"].attrs["positions"] == s["positions"]
    assert summary["solved"] == 4 and summary["skipped"] == 0
    again = [json.loads(line) for line in run("solve", "--rules", "six", "--max-men", "4", "--db", str(path), "--json").stdout.splitlines()]
    assert all(e["skipped"] for e in again[:-1]) and again[-1]["skipped"] == 4


def test_stop_after_ends_the_run_between_jobs_and_says_so(tmp_path):
    args = ["solve", "--rules", "six", "-o", "men=3", "--whole-game", "--db", str(tmp_path / "s.h5"), "--json"]
    first = run(*args, "--stop-after", "0")
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout.splitlines()[-1])
    assert (summary["stopped"], summary["solved"], summary["game_value"]) == (True, 0, None)
    rest = json.loads(run(*args, "--stop-after", "3600").stdout.splitlines()[-1])
    assert rest["stopped"] is False and rest["solved"] > 0 and rest["game_value"].startswith("game value: ")
    assert "stopped" not in json.loads(run(*args).stdout.splitlines()[-1])  # (only where it was asked for)


@pytest.mark.parametrize("args,names", [(["-o", "reclose=same-man"], "history rule"), (["--cluster", "local"], "--cluster")])
def test_stop_after_is_refused_where_it_does_not_stop(tmp_path, args, names):
    result = run("solve", "--rules", "six", "-o", "men=3", *args, "--stop-after", "60", "--db", str(tmp_path / "x.h5"))
    one_line_error(result, 2, "--stop-after", names)


def test_verify_json_verdict(six_db, tmp_path):
    result = run("verify", "--db", str(six_db), "--json")
    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [x["subspace"] for x in lines[:-1]] == ["3-3", "3-4", "4-3", "4-4"]
    assert all(x["ok"] for x in lines[:-1]) and lines[-1] == dict(lines[-1], event="verdict", ok=True, failed=[])
    bad = tmp_path / "bad.h5"
    copy_database(six_db, bad)
    with h5py.File(bad, "r+") as f:
        ds = f["subspaces/3-4"]
        values = ds[...]
        slot = int(((values != 0) & (values != 0xFFFF)).nonzero()[0][10])
        ds[slot] = values[slot] + 2
    result = run("verify", "--db", str(bad), "--json")
    assert result.exit_code == 1
    verdict = json.loads(result.stdout.splitlines()[-1])
    assert verdict["ok"] is False and "3-4" in verdict["failed"] and "3-3" not in verdict["failed"]


def test_bench_json():
    result = run("bench", "--rules", "six", "--max-men", "4", "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [x["pair"] for x in lines[:-1]] == ["3-3", "3-4 and 4-3", "4-4"]
    summary = lines[-1]
    assert summary["event"] == "summary"
    # Burnside's counts of the six board's 3-3, 3-4 (and 4-3) and 4-4 (test_engine checks them):
    assert [x["positions"] for x in lines[:-1]] == [10_112, 2 * 25_190, 56_748]
    assert summary["positions"] == 10_112 + 2 * 25_190 + 56_748


def test_show_json():
    result = run("show", "--json", "W:a1,d1 B:a4 b 7 8")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert got == {
        "position": "WB.......W.............. b 7 8", "point_lists": "W:a1,d1 B:a4 b 7 8", "side": "b",
        "in_hand": {"white": 7, "black": 8}, "result": None,
    }


def test_stored_seconds_exclude_a_kernels_first_call(tmp_path, monkeypatch):
    """A kernel's first call in a process is slow (numba compiles it, or loads it from its cache):
    here the first call of the initialising kernel sleeps for 1.5 s, in a process that has not
    warmed up yet. The stored time of the tiny 3-3 subspace of Three Men's Morris must be the solve
    alone: under the sleep, which it cannot be if the sleep is counted. (A bound any tighter failed
    on a loaded machine, where the few milliseconds of the solve took 0.6 s. With numba's own
    compilation, from an empty cache: the slow test below.)"""
    from solver.engine import pair
    from solver.engine.kernels import initialise

    real, calls, pause = initialise.init_subspace, [], 1.5

    def first_call_slow(*args):
        if not calls:
            time.sleep(pause)
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(initialise, "init_subspace", first_call_slow)
    monkeypatch.setattr(pair, "_warm", False)
    path = tmp_path / "three.h5"
    assert run("solve", "--rules", "three", "--db", str(path), "-q").exit_code == 0
    assert len(calls) > 1  # the warm-up called it too
    with h5py.File(path) as f:
        assert f["subspaces/3-3"].attrs["seconds"] < pause


@pytest.mark.slow
def test_stored_seconds_exclude_compilation(tmp_path):
    """With an empty numba cache every kernel compiles in the run (tens of seconds); the stored
    time of the tiny 3-3 subspace of Three Men's Morris must be the solve alone."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    path = tmp_path / "three.h5"
    cmd = [sys.executable, "-m", "solver", "solve", "--rules", "three", "--db", str(path), "-q"]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    assert any((tmp_path / "numba-cache").rglob("*.nbi")), "the kernels were not compiled in this run"
    with h5py.File(path) as f:
        assert f["subspaces/3-3"].attrs["seconds"] < 1.0


@pytest.mark.slow  # (about a minute: every kernel compiles; test_stored_seconds_exclude_a_kernels_first_call is the default run's)
def test_after_the_compile_step_the_solve_compiles_nothing(tmp_path):
    """``morris solve`` compiles as a step of its own so that the rate it prints is solving alone:
    with an empty numba cache, the step (``solve.compile_kernels``) writes the kernels, and the
    first screen's run after it (the standard game's moving phase up to 4 men, which flies, pulls
    levels and removes) writes no more; the --json summary says the step compiled, and its
    seconds are the step's plus the solve's."""
    script = """
import json, sys
from solver.numba_cache import cache_files
from solver.rules import make_rules
from solver.solve import SolveRequest, compile_kernels, solve
request = SolveRequest(make_rules("standard"), sys.argv[1])
compiled = compile_kernels(request)
after_step = cache_files()
solve(request, echo=lambda s: None, compiled=compiled)
print(json.dumps([compiled.compiled, after_step, cache_files()]))
"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "a.h5")], env=env, check=True, capture_output=True, text=True)
    step_compiled, after_step, after_solve = json.loads(out.stdout.splitlines()[-1])
    assert step_compiled and after_step > 0
    assert after_solve == after_step, "the solve compiled kernels the compile step did not reach"
    # the command's summary on a filled cache: nothing compiled, the seconds add up
    run = subprocess.run([sys.executable, "-m", "solver", "solve", "--db", str(tmp_path / "b.h5"), "--json"],
                         env=env, check=True, capture_output=True, text=True)
    summary = json.loads(run.stdout.splitlines()[-1])
    assert summary["kernels_compiled"] is False
    assert abs(summary["seconds"] - summary["compile_seconds"] - summary["solve_seconds"]) <= 0.002
