"""``morris solve --cluster``: the plan run as a Dask task graph gives the database a single
process gives, checksum for checksum, and survives a worker killed in the middle of a pair and a
client stopped between pairs.

Most tests share one ``LocalCluster`` of two worker processes and reach it by its address, the way
``--cluster tcp://HOST:PORT`` reaches a scheduler started by hand."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine import cluster as cluster_mod
from solver.engine.cluster import parse_cluster, solve_on_cluster
from solver.engine.order import moving_jobs, whole_game_jobs
from solver.engine.run import solve_whole
from solver.query import game_value_line
from solver.rules import get_rules, make_rules
from solver.storage.database import Database
from solver.storage.files import subspace_dir, subspace_name

distributed = pytest.importorskip("distributed")
quiet = {"echo": lambda s: None}


def checksums(path: Path) -> dict[str, str]:
    with Database(path) as db:
        return {s.name: s.checksum for s in db.tiers()}


@pytest.fixture(scope="module")
def local_cluster():
    """Two worker processes of one task each, as ``--cluster local:2`` starts them."""
    import logging

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster


def test_cli_local_cluster_gives_the_single_process_database(tmp_path, solved_db):
    db = tmp_path / "cluster.h5"
    res = CliRunner().invoke(main, ["solve", "--cluster", "local:2", "--max-men", "4", "--db", str(db)])
    assert res.exit_code == 0, res.output + res.stderr
    assert "on 2 Dask workers" in res.output
    assert "4 subspaces solved, 0 skipped" in res.output
    assert checksums(db) == checksums(solved_db("standard", 4))


@pytest.mark.parametrize("options", [["men=4"], pytest.param([], marks=pytest.mark.slow)], ids=["six men=4", "six"])
def test_whole_game_on_a_cluster_equals_the_single_process_solve(tmp_path, local_cluster, solved_whole, options):
    """The whole game's jobs (the moving phase, then the groups of tiers with men in hand) on the
    cluster: the six board with 4 men (its single-process database shared by the session), and
    Six Men's Morris itself (49 M positions) under ``-m slow``: the same jobs, more of them."""
    rules = make_rules("six", options)
    spread = tmp_path / "spread.h5"
    if options:
        serial = solved_whole("six", options).path
    else:
        serial = tmp_path / "serial.h5"
        solve_whole(rules, serial, progress=False, **quiet)
    rows = solve_on_cluster(rules, whole_game_jobs(rules), spread, local_cluster.scheduler_address, **quiet)
    assert all(not r.skipped for r in rows)
    assert checksums(spread) == checksums(serial)
    assert any(name.count("-") == 3 for name in checksums(spread))  # tiers with men in hand are there
    assert game_value_line(spread) == game_value_line(serial)


class WorkerKiller:
    """``on_client`` for ``solve_on_cluster``: a thread that watches the workers and kills (SIGKILL)
    the first one seen running a task whose key holds ``target``."""

    def __init__(self, target: str):
        self.target = target
        self.killed: list[str] = []
        self.thread: threading.Thread | None = None

    def __call__(self, client) -> None:
        self.thread = threading.Thread(target=self._watch, args=(client,), daemon=True)
        self.thread.start()

    @staticmethod
    def _executing(dask_worker) -> list[str]:
        return [str(ts.key) for ts in dask_worker.state.executing]

    def _watch(self, client) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for address, keys in client.run(self._executing).items():
                if any(self.target in k for k in keys):
                    pid = client.run(os.getpid, workers=[address])[address]
                    os.kill(pid, signal.SIGKILL)
                    self.killed.append(address)
                    return
            time.sleep(0.05)

    def join(self) -> list[str]:
        if self.thread is not None:
            self.thread.join(timeout=10)
        return self.killed


def up_to_3_5(rules) -> list:
    """The jobs of the chain to 5 men up to the pair 3-5 and 5-3 (which reads 4-3): the pairs
    after it (4-4, 4-5, 5-5, most of the work) change nothing in what a killed worker tests."""
    return [j for j in moving_jobs(rules, 5) if j.pair in ((3, 3), (3, 4), (3, 5))]


def test_a_worker_killed_in_the_middle_of_a_pair_changes_nothing(tmp_path, local_cluster):
    """The worker solving 3-5 and 5-3 (seconds on one core) is killed while that task runs: Dask
    runs the pair again elsewhere, and the database is the single process's (its checksums as
    tests/data/checksums/standard-6.json records them, from a run whose full verify passed)."""
    rules = get_rules("standard")
    killer = WorkerKiller("3-5_and_5-3")
    db = tmp_path / "killed.h5"
    solve_on_cluster(rules, up_to_3_5(rules), db, local_cluster.scheduler_address, on_client=killer, **quiet)
    assert killer.join(), "the pair 3-5 was never seen running, so no worker was killed"
    recorded = json.loads((Path(__file__).parents[1] / "tests/data/checksums/standard-6.json").read_text())
    got = checksums(db)
    assert sorted(got) == ["3-3", "3-4", "3-5", "4-3", "5-3"] and got == {name: recorded[name] for name in got}


@pytest.mark.slow  # (9 s: a cluster of its own; the default run kills a worker in the test above)
def test_a_job_that_keeps_killing_its_workers_is_one_line_and_keeps_finished_work(tmp_path):
    """With no second chance (Dask's allowed-failures = 0), the killed pair ends the run with a
    ClusterError naming it; the pairs finished before it stay in the database."""
    import logging

    import dask

    from solver.errors import ClusterError

    rules = get_rules("standard")
    killer = WorkerKiller("3-5_and_5-3")
    db = tmp_path / "dies.h5"
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=":0",
        silence_logs=logging.CRITICAL,
    ) as cluster:
        with pytest.raises(ClusterError, match=r"^3-5 and 5-3: every worker that took it died"):
            solve_on_cluster(rules, up_to_3_5(rules), db, cluster.scheduler_address, on_client=killer, **quiet)
    assert killer.join()
    assert {"3-3", "3-4", "4-3"} <= set(checksums(db))
    assert "3-5" not in checksums(db)


@pytest.mark.slow  # (7 s; the default run kills a worker in the middle of a pair above)
def test_a_stopped_client_resumes_from_the_finished_pairs(tmp_path, local_cluster, solved_db):
    rules = get_rules("standard")
    db = tmp_path / "stopped.h5"

    def stop_after_first(rows) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_on_cluster(rules, moving_jobs(rules, 4), db, local_cluster.scheduler_address, on_job=stop_after_first, **quiet)
    finished = set(checksums(db))
    assert finished and len(finished) < 4
    rows = solve_on_cluster(rules, moving_jobs(rules, 4), db, local_cluster.scheduler_address, **quiet)
    skipped = {subspace_name(r.stats["mover"], r.stats["opponent"]) for r in rows if r.skipped}
    # (a pair its worker was still solving when the client stopped may have been written since)
    assert finished <= skipped and len(skipped) < len(rows)
    assert checksums(db) == checksums(solved_db("standard", 4))
    assert not [p for p in subspace_dir(db).iterdir() if p.name.endswith(".tmp")]
    # finished: a third run skips everything and reaches for no cluster (nothing listens there)
    rows = solve_on_cluster(rules, moving_jobs(rules, 4), db, "tcp://127.0.0.1:9", **quiet)
    assert all(r.skipped for r in rows) and len(rows) == 4


@pytest.mark.parametrize(
    "spec, message",
    [("locl:2", "give local, local:N or a scheduler address"), ("local:0", "local:N needs a number of workers N of 1 or more")],
)
def test_a_bad_cluster_is_one_line(tmp_path, spec, message):
    res = CliRunner().invoke(main, ["solve", "--cluster", spec, "--db", str(tmp_path / "x.h5")])
    assert res.exit_code == 2
    assert res.stderr.strip().startswith(f"error: --cluster {spec}: {message}")
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.h5").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_mod, "CONNECT_TIMEOUT", "1s")
    res = CliRunner().invoke(main, ["solve", "--cluster", "tcp://127.0.0.1:9", "--db", str(tmp_path / "x.h5")])
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def test_workers_running_several_tasks_at_once_are_refused(tmp_path):
    import logging

    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0", silence_logs=logging.ERROR
    ) as cluster:
        res = CliRunner().invoke(main, ["solve", "--cluster", cluster.scheduler_address, "--db", str(tmp_path / "x.h5")])
    assert res.exit_code == 1
    assert "runs 2 tasks at a time; start workers with --nthreads 1" in res.stderr


def test_parse_cluster():
    assert parse_cluster("local") == ("local", cluster_mod.DEFAULT_LOCAL_WORKERS)
    assert parse_cluster("local:3") == ("local", 3)
    assert parse_cluster("tcp://10.0.0.1:8786") == ("address", "tcp://10.0.0.1:8786")


def test_a_local_cluster_whose_workers_would_not_fit_together_is_refused(tmp_path):
    """The chain to 5 men peaks near 1 GiB: one worker fits in 1.5 GiB, two do not."""
    db = tmp_path / "x.h5"
    res = CliRunner().invoke(main, ["solve", "--cluster", "local:2", "--max-men", "5", "--max-memory", "1.5GiB", "--db", str(db)])
    assert res.exit_code == 1
    assert "2 workers may each hold about" in res.stderr and "use fewer workers" in res.stderr
    assert not db.exists()


def test_workers_whose_memory_limit_is_below_the_largest_job_are_refused(tmp_path):
    import logging

    import dask

    # The worker runs in this process, whose memory is past 80 % of 100 MiB: Dask's monitor
    # would pause it, and a paused worker is not one that wait_for_workers counts (seen when the
    # machine was loaded and the monitor ran first), so the refusal under test never came.
    # Only the limit it reports is wanted here.
    never = {f"distributed.worker.memory.{k}": False for k in ("target", "spill", "pause", "terminate")}
    with dask.config.set(never), distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, memory_limit="100MiB", dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as cluster:
        res = CliRunner().invoke(main, ["solve", "--cluster", cluster.scheduler_address, "--db", str(tmp_path / "x.h5")])
    assert res.exit_code == 1
    assert "may use 100 MiB" in res.stderr and "start workers with --memory-limit 0" in res.stderr
