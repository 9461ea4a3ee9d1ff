"""The long runs' tools in tools/: the disk estimate made before each game
(``solver.engine.costs.disk``), the table's reference read from a statistics file
(``game_table.py``), the map that names numba's functions for ``perf`` (``perf_numba.py``), in its
own process and in another, the progress a run's log tells (``run_progress.py``), alone and
against an earlier run, and ``whole_games.sh`` run over stub commands: the steps of a game, and
where it goes on after a restart."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from solver.engine.costs.disk import need_bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import game_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run_progress(*args) -> subprocess.CompletedProcess:
    """``tools/run_progress.py`` in its own process, as a user runs it."""
    return subprocess.run([sys.executable, str(ROOT / "tools" / "run_progress.py"), *map(str, args)],
                          capture_output=True, text=True)


def test_the_disk_check_counts_what_is_left_to_solve(tmp_path):
    db = tmp_path / "g.h5"
    plain = [{"event": "plan", "positions_to_solve": 10**9}, {"event": "placing plan", "positions_to_solve": 2 * 10**9},
             {"event": "hands", "positions_to_solve": 5 * 10**9}]
    # the "hands" lines are the placing plan's parts: counted once, in its total
    assert need_bytes(plain, db) == int(10**9 * 0.43) + int(2 * 10**9 * 0.43)
    assert need_bytes([{"event": "plan", "positions_to_solve": 0}], db) == 0


def test_the_disk_check_takes_off_what_a_history_game_has_written(tmp_path):
    db = tmp_path / "h.h5"
    plan = [{"event": "plan", "states": 10**9, "checkpoint_bytes": 3 * 10**9}]
    fresh = need_bytes(plan, db, placing_positions=2 * 10**9)
    assert fresh == int(10**9 * 0.69 + 2e9 * 0.43) + 6 * 10**9
    (tmp_path / "h.h5.d").mkdir()
    (tmp_path / "h.h5.d" / "3-3.h5").write_bytes(b"\0" * 10**6)
    assert need_bytes(plan, db, placing_positions=2 * 10**9) == fresh - 10**6


def test_the_progress_counts_each_solved_subspace_once(tmp_path):
    def pair(subs, seconds, rss, skipped=False):
        return json.dumps({"event": "pair", "skipped": skipped, "peak_rss_bytes": rss, "subspaces": [
            {"mover": a, "opponent": b, "mover_hand": 0, "opponent_hand": 0, "positions": pos, "states": st, "seconds": seconds}
            for a, b, pos, st in subs]})

    log = tmp_path / "run.jsonl"
    log.write_text("\n".join([
        pair([(3, 3, 10**8, 15 * 10**7)], 2.0, 2**30),
        pair([(3, 4, 2 * 10**8, 3 * 10**8), (4, 3, 2 * 10**8, 3 * 10**8)], 5.0, 3 * 2**30),
        pair([(3, 3, 10**8, 15 * 10**7)], 9.0, 2**30, skipped=True),  # already solved: not counted
        pair([(4, 3, 2 * 10**8, 3 * 10**8), (3, 4, 2 * 10**8, 3 * 10**8)], 4.0, 5 * 2**30),  # the twins solved again: their seconds, not their states
        '{"event": "pair", "skipp',  # a line a kill cut off
    ]) + "\n")
    run = run_progress(log)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ("subspaces 3, states 0.75 G, positions 0.50 G, group seconds 11; "
                                  "last group 4-3, 3-4, peak RSS 5.0 GiB")
    empty = tmp_path / "empty.jsonl"
    empty.write_text(pair([(3, 3, 10**8, 15 * 10**7)], 1.0, 0, skipped=True) + "\n")
    run = run_progress(empty)
    assert run.returncode == 1 and run.stderr.strip() == f"{empty}: no finished pair or group yet"


def test_the_progress_against_an_earlier_log_scales_what_is_left(tmp_path):
    def group(subs, seconds, event="pair"):
        return json.dumps({"event": event, "skipped": False, "peak_rss_bytes": 0, "subspaces": [
            {"mover": a, "opponent": b, "mover_hand": ha, "opponent_hand": hb, "positions": 10, "seconds": seconds}
            for a, b, ha, hb in subs]})

    pair34 = [(3, 4, 0, 0), (4, 3, 0, 0)]
    ref = tmp_path / "first.jsonl"
    ref.write_text("\n".join([
        group([(3, 3, 0, 0)], 10.0), group(pair34, 30.0), group([(4, 4, 0, 0)], 3600.0),
        group([(2, 3, 1, 0)], 1800.0, event="tiers"),  # a placing group: left too
    ]) + "\n")
    run = tmp_path / "again.jsonl"
    # the twins in the other order are the same group; 3-3 solved twice: its last time counts
    run.write_text("\n".join([group([(3, 3, 0, 0)], 99.0), group([(4, 3, 0, 0), (3, 4, 0, 0)], 15.0),
                              group([(3, 3, 0, 0)], 5.0)]) + "\n")
    out = run_progress(run, "--against", ref)
    assert out.returncode == 0, out.stderr
    # done: 5 + 15 s here for 10 + 30 there (x 0.50); left 3600 + 1800 s there = 1.50 h, 0.75 h here
    assert out.stdout.splitlines()[1] == ("against the reference: 2 of its 4 groups done, 20 s here for its 40 s (x 0.50); "
                                          "2 left, 1.50 h there, about 0.75 h here at that ratio")
    # each phase at its own ratio; no placing group done here gives no ratio, so no sum by phase
    assert out.stdout.splitlines()[2:] == [
        "  the moving phase: 2 of its 3 groups done, 20 s here for its 40 s (x 0.50); 1 left, 1.00 h there, about 0.50 h here at that ratio",
        "  the placing phase: 0 of its 1 groups done, 0 s here for its 0 s; 1 left, 0.50 h there"]
    # with the placing group done at x 0.25 and 4-4 left: 0.50 h by the moving phase's ratio, 0 by the placing's
    run.write_text(run.read_text() + group([(2, 3, 1, 0)], 450.0, event="tiers") + "\n")
    out = run_progress(run, "--against", ref)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("against the reference: 3 of its 4 groups done, 470 s here for its 1,840 s (x 0.26)")
    assert lines[3] == "  the placing phase: 1 of its 1 groups done, 450 s here for its 1,800 s (x 0.25); 0 left, 0.00 h there, about 0.00 h here at that ratio"
    assert lines[4:] == ["  by phase: about 0.50 h left here"]  # no CPU seconds in these logs: no line by them
    out = run_progress(run, "--against", tmp_path / "no.jsonl")
    assert out.returncode == 1 and out.stderr.strip() == f"{tmp_path / 'no.jsonl'}: no such log"


def test_the_progress_by_cpu_seconds_sees_through_a_reference_that_shared_its_cores(tmp_path):
    """A reference group that had half a core of its two (wall 1800 s, CPU 900 s) makes the wall
    ratio 0.25 here, where the CPU seconds were the same: a group left that had its cores there
    takes its CPU seconds over the cores busy here, not a quarter of its wall seconds."""
    def group(sub, seconds, cpu):
        return json.dumps({"event": "tiers", "skipped": False, "peak_rss_bytes": 0, "subspaces": [
            {"mover": sub[0], "opponent": sub[1], "mover_hand": sub[2], "opponent_hand": sub[3], "positions": 10,
             "seconds": seconds, "cpu_seconds": cpu}]})

    ref = tmp_path / "first.jsonl"
    ref.write_text("\n".join([group((3, 3, 0, 0), 10.0, 20.0), group((2, 3, 1, 0), 1800.0, 900.0),
                              group((2, 3, 0, 1), 1000.0, 2000.0)]) + "\n")
    run = tmp_path / "again.jsonl"
    run.write_text("\n".join([group((3, 3, 0, 0), 5.0, 10.0), group((2, 3, 1, 0), 450.0, 900.0)]) + "\n")
    out = run_progress(run, "--against", ref)
    assert out.returncode == 0, out.stderr
    # by wall: 1000 s x 0.25 = 250 s; by CPU: 2000 CPU-s x 1.00 over 2 cores busy here = 1000 s
    assert out.stdout.splitlines()[-2:] == ["  by phase: about 0.07 h left here",
                                            "  by phase and CPU seconds: about 0.28 h left here"]


def test_the_table_reads_its_reference_from_the_statistics_file():
    stats = ROOT / "tests" / "data" / "rulesets" / "standard.json"
    ref = game_table.from_stats(stats)
    tiers = json.loads(stats.read_text())["tiers"]
    assert ref["rules"] == "standard"
    # the moving phase alone (two numbers in a name), each a share of its positions
    assert set(ref["shares"]) == {n for n in tiers if n.count("-") == 1}
    assert len(ref["shares"]) == 49
    assert ref["shares"]["3-3"] == tiers["3-3"]["win"] / tiers["3-3"]["positions"]


def test_the_table_counts_each_solve_once_and_twins_solved_apart_twice(tmp_path):
    """The solve column: a moving pair's two subspaces share one event and its seconds (once); the
    placing tiers 5-4-3-3 and 4-5-3-3, twins that the engine solves one at a time, are two events
    (both count: the table once kept only the later of the two, and ran 12% low on Morabaraba);
    a group a later run solves again counts once, with the later seconds; a skipped group and a
    line a kill cut off count nothing."""
    def event(tiers, seconds, cpu, skipped=False):
        return json.dumps({"event": "tiers", "skipped": skipped, "subspaces": [
            {"mover": m, "opponent": o, "mover_hand": a, "opponent_hand": b, "seconds": seconds, "cpu_seconds": cpu}
            for m, o, a, b in tiers]})
    log = tmp_path / "g.jsonl"
    log.write_text("\n".join([
        event([(3, 4, 0, 0), (4, 3, 0, 0)], 10.0, 19.0),
        event([(5, 4, 3, 3)], 2.0, 3.0),
        event([(4, 5, 3, 3)], 5.0, 7.0),
        event([(3, 4, 0, 0), (4, 3, 0, 0)], 12.0, 20.0),  # solved again by a later run
        event([(5, 5, 0, 0)], 99.0, 99.0, skipped=True),
        '{"event": "tiers", "skipped": false, "subsp',
    ]))
    assert game_table._log_seconds(log) == (12.0 + 2.0 + 5.0, 20.0 + 3.0 + 7.0)


def test_the_table_without_a_log_counts_the_engine_s_groups_once():
    """From the tiers' stored seconds: each tier of a group the engine solves together stores the
    group's seconds (counted once); tiers solved apart each count."""
    from types import SimpleNamespace

    from solver.rules.rulesets import get_rules
    from solver.tiers import group_of

    rules = get_rules("standard")
    tiers = [SimpleNamespace(tier=t, seconds=s) for t, s in
             [((3, 4, 0, 0), 10.0), ((4, 3, 0, 0), 10.0), ((5, 4, 3, 3), 2.0), ((4, 5, 3, 3), 5.0), ((2, 3, 1, 0), 1.0)]]
    assert len(group_of(rules, (5, 4, 3, 3)).tiers) == 1  # one side only places: solved apart
    assert game_table._tier_seconds(rules, tiers) == 10.0 + 2.0 + 5.0 + 1.0


def test_the_table_pairs_its_logs_with_the_databases_and_a_dash_is_none():
    assert game_table._paired([Path("-"), Path("ban.jsonl")], 3) == [None, Path("ban.jsonl"), None]
    assert game_table._paired([], 2) == [None, None]


def test_the_peak_says_when_runs_were_cut_off(tmp_path):
    log = tmp_path / "g.time.log"
    log.write_text("=== run 1\n\tMaximum resident set size (kbytes): 2097152\n=== run 2\n")
    assert game_table._peak(log) == "2.0 GiB (1 of 2 runs measured)"  # the second was killed with its `time`
    log.write_text("=== run 1\n\tMaximum resident set size (kbytes): 2097152\n=== run 2\n\tMaximum resident set size (kbytes): 1048576\n")
    assert game_table._peak(log) == "2.0 GiB"
    log.write_text("=== run 1\n")
    assert game_table._peak(log) == "not measured"


def test_the_peak_of_a_cut_off_run_comes_from_the_solve_log(tmp_path):
    """A run killed with its `time` left its finished groups' peaks in the solve's log: the peak
    is the largest of those and of the runs `time` measured, and says so; a line cut off by the
    kill is passed over."""
    time_log = tmp_path / "g.time.log"
    time_log.write_text("=== run 1\n\tMaximum resident set size (kbytes): 2097152\n=== run 2\n")
    log = tmp_path / "g.jsonl"
    log.write_text(
        json.dumps({"event": "tiers", "skipped": False, "subspaces": [], "peak_rss_bytes": 3 * 2**30}) + "\n"
        + json.dumps({"event": "tiers", "skipped": False, "subspaces": [], "peak_rss_bytes": 2**30}) + "\n"
        + '{"event": "tie'
    )
    assert game_table._peak(time_log, log) == "3.0 GiB (at the finished groups of the 1 of 2 runs cut off)"
    assert game_table._peak(time_log) == "2.0 GiB (1 of 2 runs measured)"
    time_log.write_text("=== run 1\n\tMaximum resident set size (kbytes): 5242880\n")
    assert game_table._peak(time_log, log) == "5.0 GiB"  # every run measured whole


def test_a_finished_group_records_the_peak_so_far(tmp_path):
    """``morris solve --json`` writes the process's peak memory with each finished pair."""
    from click.testing import CliRunner

    from solver.cli import main

    res = CliRunner().invoke(main, ["solve", "--rules", "six", "--max-men", "3", "--db", str(tmp_path / "s.h5"), "--json"])
    assert res.exit_code == 0, res.output
    pairs = [json.loads(x) for x in res.stdout.splitlines() if '"pair"' in x]
    assert pairs and all(p["peak_rss_bytes"] > 50 * 2**20 for p in pairs)


def test_the_perf_map_names_the_numba_functions_a_script_compiled(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text(
        "import numba as nb\n\n@nb.njit(cache=True)\ndef triangle(n):\n    s = 0\n"
        "    for i in range(n):\n        s += i\n    return s\n\nprint(triangle(10))\n"
    )
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "perf_numba.py"), "--objects", str(tmp_path / "o"), str(script)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "45"  # the script ran, once
    path = Path(re.search(r"perf map: (\S+)", run.stderr).group(1))
    try:
        rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
    finally:
        path.unlink()
    named = [(int(a, 16), int(s, 16)) for a, s, name in rows if "triangle" in name and "cpython" not in name and not name.startswith("cfunc.")]
    assert len(named) == 1 and named[0][0] > 0 and 0 < named[0][1] < 1 << 20
    starts = sorted(int(a, 16) for a, _, _ in rows)
    assert all(int(a, 16) + int(s, 16) <= next((x for x in starts if x > int(a, 16)), 1 << 64) for a, s, _ in rows)
    assert (tmp_path / "o" / "triangle-0.o").read_bytes()[:4] == b"\x7fELF"  # its object code, for objdump


def test_the_perf_map_places_the_functions_of_another_running_process(tmp_path):
    """``--attach PID``: the functions SCRIPT compiles here are found in a running process that
    compiled the same code itself, and the map (perf's, named after that process) puts them in
    its executable memory."""
    script = tmp_path / "tiny.py"
    script.write_text(
        "import numba as nb\n\n@nb.njit(cache=True)\ndef triangle(n):\n    s = 0\n"
        "    for i in range(n):\n        s += i * i % 7\n    return s\n\nprint(triangle(10))\n"
    )
    target = tmp_path / "target.py"
    target.write_text(
        "import ctypes, runpy, sys\n"
        # Yama's ptrace scope may let only a parent read a process's memory: let any one read this
        "ctypes.CDLL(None).prctl(0x59616D61, ctypes.c_ulong(2**64 - 1), 0, 0, 0)\n"
        f"tri = runpy.run_path({str(script)!r}, run_name='__main__')['triangle']\n"
        # where its functions really are, for the test to compare
        "lib = next(iter(tri.overloads.values())).library\n"
        "for fn in lib._final_module.functions:\n"
        "    if not fn.is_declaration:\n"
        "        print(fn.name, lib.get_pointer_to_function(fn.name))\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, str(target)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    path = Path(f"/tmp/perf-{proc.pid}.map")
    try:
        assert proc.stdout.readline().strip() == "19"  # (its own print of triangle(10))
        where = {}
        for line in iter(proc.stdout.readline, "ready\n"):
            name, addr = line.split()
            where[name] = int(addr)
        run = subprocess.run([sys.executable, str(ROOT / "tools" / "perf_numba.py"), "--attach", str(proc.pid), str(script)],
                             capture_output=True, text=True, timeout=300)
        if run.returncode == 1 and ("Permission denied" in run.stderr or "not permitted" in run.stderr):
            pytest.skip(f"this machine lets no process read another's memory: {run.stderr.strip()}")
        assert run.returncode == 0, run.stderr
        assert f"found in process {proc.pid}" in run.stderr
        rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
        placed = {name.split(":", 1)[1]: int(a, 16) for a, _, name in rows if name.startswith("triangle:")}
        # the function itself and its wrappers, each where that process has it
        assert len(placed) >= 2 and all(where[name] == start for name, start in placed.items()), (placed, where)
    finally:
        proc.kill()
        proc.wait()
        path.unlink(missing_ok=True)


def _games_tree(tmp_path: Path) -> tuple[Path, Path]:
    """A scratch copy of ``tools/whole_games.sh`` whose commands are stubs that write their
    arguments to calls.log: ``morris`` and the tools do nothing else (the comparison writes its
    JSON, the disk check passes), ``python -c`` is the real Python over the real package (the
    script's rule-set lookups)."""
    root, stubs = tmp_path / "tree", tmp_path / "stubs"
    (root / "tools").mkdir(parents=True)
    (root / "data").mkdir()
    stubs.mkdir()
    log = tmp_path / "calls.log"
    (root / "tools" / "whole_games.sh").write_text((ROOT / "tools" / "whole_games.sh").read_text())
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "activate").write_text(f'PATH="{stubs}:$PATH"; export PYTHONPATH="{ROOT}"\n')
    (stubs / "morris").write_text(f'#!/bin/sh\necho "morris $*" >> "{log}"\necho "{{}}"\n')
    (stubs / "python").write_text(
        f'#!/bin/bash\nif [[ $1 == -c ]]; then exec "{sys.executable}" "$@"; fi\necho "python $*" >> "{log}"\n'
        'if [[ $1 == tools/compare_values.py ]]; then echo "{}" > "$5"; fi\n'
        'if [[ $1 == tools/tamper_check.py && -n "${TAMPER_UNCAUGHT:-}" ]]; then exit 1; fi\n'
    )
    for f in stubs.iterdir():
        f.chmod(0o755)
    return root, log


def _games(root: Path, *names: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    out = subprocess.run(["bash", str(root / "tools" / "whole_games.sh"), *names], capture_output=True, text=True, timeout=300)
    log = root.parent / "calls.log"
    return out, log.read_text().splitlines() if log.exists() else []


def test_a_game_is_solved_verified_tampered_with_tabled_and_its_database_removed(tmp_path):
    root, _ = _games_tree(tmp_path)
    data = root / "data"
    (data / "standard_board-diagonal.h5").write_text("")  # (what the stubbed solve would leave)
    out, calls = _games(root, "diagonal")
    assert out.returncode == 0, out.stderr
    steps = [c.split()[1] if c.startswith("python") else " ".join(c.split()[:2]) for c in calls]
    assert steps == ["tools/disk_check.py", "morris solve", "morris verify", "tools/tamper_check.py",
                     "tools/game_table.py", "morris book"]
    assert calls[1].startswith("morris solve --whole-game --rules standard -o board=diagonal --max-memory 16GiB "
                               "--db data/standard_board-diagonal.h5")
    assert calls[2].startswith("morris verify --db data/standard_board-diagonal.h5 --log data/verify-diagonal.jsonl")
    assert "--ledger data/verified/standard_board-diagonal.jsonl" in calls[2]
    # the standard game's statistics stand in for its database as the table's reference
    assert calls[4].startswith("python tools/game_table.py tests/data/rulesets/standard.json data/standard_board-diagonal.h5")
    assert "--checksums-dir data/checksums --stats-dir data/rulesets" in calls[4]
    assert (data / "diagonal.step").read_text() == "done\n"
    assert not (data / "standard_board-diagonal.h5").exists()
    # run again: done, nothing run
    out, again = _games(root, "diagonal")
    assert out.returncode == 0 and again == calls and "diagonal: done" in out.stdout


def test_a_change_the_verify_does_not_catch_stops_the_run_unlabelled(tmp_path, monkeypatch):
    """The tamper check is a negative control: where a changed value passes the verify, the run
    stops with an error naming the report, the game is not labelled verified and nothing after it
    (table, book, the next game) runs."""
    root, _ = _games_tree(tmp_path)
    data = root / "data"
    (data / "standard_board-diagonal.h5").write_text("")
    monkeypatch.setenv("TAMPER_UNCAUGHT", "1")
    out, calls = _games(root, "diagonal", "viking")
    assert out.returncode != 0
    assert "a changed value was NOT caught by the verify (data/diagonal.tamper.md)" in out.stderr
    assert (data / "diagonal.step").read_text() == "solved\n"
    assert calls[-1].startswith("python tools/tamper_check.py") and not any("viking" in c for c in calls)
    assert (data / "standard_board-diagonal.h5").exists()


def test_a_verified_history_game_goes_on_at_its_comparison_and_keeps_a_plain_database_it_found(tmp_path):
    """A ban game solved and verified before a restart: neither solved, verified nor tampered
    with again; the plain game is solved (resumed) and compared, and data/standard.h5, there
    before, is kept, while the ban game's database is removed; the table takes the standard game's
    log for its reference column."""
    root, _ = _games_tree(tmp_path)
    data = root / "data"
    (data / "standard-ban.step").write_text("verified\n")
    (data / "standard.h5").write_text("")
    (data / "whole.jsonl").write_text("")
    (data / "standard_reclose-running-mill.h5").write_text("")
    out, calls = _games(root, "standard-ban")
    assert out.returncode == 0, out.stderr
    assert not any("running-mill" in c and c.startswith("morris solve") for c in calls)
    assert not any(c.startswith("morris verify") or "tamper_check.py" in c or "disk_check.py" in c for c in calls)
    assert not any(c.startswith("morris book") for c in calls)  # no book under the history rule
    table = next(c for c in calls if "game_table.py" in c)
    assert "data/standard.h5 data/standard_reclose-running-mill.h5 --log data/whole.jsonl" in table
    assert any(c.startswith("morris solve --whole-game --rules standard --max-memory 16GiB --db data/standard.h5") for c in calls)
    assert any(c.startswith("python tools/compare_values.py data/standard.h5 data/standard_reclose-running-mill.h5") for c in calls)
    assert (data / "standard-ban.step").read_text() == "done\n"
    assert (data / "standard.h5").exists()
    assert not (data / "standard_reclose-running-mill.h5").exists()


def test_an_unknown_game_is_refused(tmp_path):
    root, _ = _games_tree(tmp_path)
    out, calls = _games(root, "chess")
    assert out.returncode == 2 and "unknown game chess" in out.stderr and calls == []
