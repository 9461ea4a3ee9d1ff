"""``morris solve --cluster``: the same plan as a Dask task graph, solved by Dask workers.

Each job of the plan (a moving-phase pair, or a group of tiers with men in hand) is one task; its
arguments include the futures of the jobs that write what it reads, so Dask runs it after them
and runs jobs with no path between them at the same time on different workers. A task reads its
inputs from the database's subspace files, solves with the numba engine on its worker's cores,
writes its own subspace files (each atomically, under a temporary name of its process) and returns
their statistics. The client alone links finished files into the main file, under the writer lock,
as each task ends: a killed client's rerun finds every finished job on disk and resumes after it.
Workers must see the database at the same path (one machine, or a shared file system).

A worker lost in the middle of a job (killed, out of memory, its machine gone) makes Dask run the
job again on another worker; its half-written temporary file is never read, and the next writer
removes it.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from ..errors import ClusterError, RulesError
from ..index import board_index
from ..rules.rulesets import RuleSet
from ..storage.database import Database
from ..storage.files import code_version, subspace_dir
from ..storage.lock import writer_lock
from ..storage.write import link_subspaces, relink, write_subspace_files
from .order import Job
from .run import SolveRow, solve_job, stats_of

DEFAULT_LOCAL_WORKERS = 2
CONNECT_TIMEOUT = "20s"  # reaching a scheduler given by address
WORKER_WAIT = 60  # seconds to wait for a scheduler's first worker
RETRIES = 2  # a job whose task raised is tried this many more times (a lost worker is Dask's own count)


def parse_cluster(spec: str) -> tuple[str, int | str]:
    """``local``, ``local:N`` or a scheduler address (``tcp://HOST:PORT``): ("local", N) or
    ("address", spec)."""
    if spec == "local" or spec.startswith("local:"):
        n = spec.partition(":")[2] or str(DEFAULT_LOCAL_WORKERS)
        if not n.isdigit() or int(n) < 1:
            raise RulesError(f"--cluster {spec}: local:N needs a number of workers N of 1 or more")
        return "local", int(n)
    if "://" in spec:
        return "address", spec
    raise RulesError(f"--cluster {spec}: give local, local:N or a scheduler address such as tcp://HOST:8786")


@contextmanager
def connect(spec: str):
    """A Dask client: on a new ``LocalCluster`` (``local[:N]``: N worker processes of one task
    each) or on the scheduler at an address."""
    from distributed import Client, LocalCluster

    kind, arg = parse_cluster(spec)
    if kind == "local":
        import logging

        # memory_limit=0: a worker is never killed for its memory (a pair's peak is planned, and
        # Dask's default share of the machine would stop the large ones); one task per worker.
        with LocalCluster(
            n_workers=arg, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(arg, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {arg}: {e}") from None
    with client:
        yield client


def _worker_facts(path: str) -> dict:
    """Run on each worker: what the client checks before it submits anything."""
    return {"host": socket.gethostname(), "sees_database": os.path.isdir(path), "code_version": code_version()}


def check_workers(client, db_path: Path, job_bytes: int = 0) -> None:
    """Refuse workers that run more than one task at a time, would be stopped by their memory
    limit before ``job_bytes`` (the plan's largest job), cannot see the database, or run other
    code."""
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT)
    except TimeoutError:
        raise ClusterError(f"the Dask scheduler has no workers after {WORKER_WAIT} s (start some with: dask worker ADDRESS --nthreads 1)") from None
    workers = client.scheduler_info(n_workers=-1)["workers"]
    busy = [a for a, w in workers.items() if w.get("nthreads", 1) != 1]
    if busy:
        raise ClusterError(
            f"worker {busy[0]} runs {workers[busy[0]]['nthreads']} tasks at a time; start workers with "
            "--nthreads 1 (each task uses every core numba is given)"
        )
    small = [a for a, w in workers.items() if 0 < w.get("memory_limit", 0) < job_bytes]
    if small:
        raise ClusterError(
            f"worker {small[0]} may use {workers[small[0]]['memory_limit'] / 2**20:,.0f} MiB, and the largest job of this "
            f"plan needs about {job_bytes / 2**20:,.0f} MiB: start workers with --memory-limit 0 (or a larger limit)"
        )
    mine = code_version()
    for address, f in client.run(_worker_facts, str(subspace_dir(db_path))).items():
        if not f["sees_database"]:
            raise ClusterError(
                f"worker {address} on {f['host']} cannot see {subspace_dir(db_path)}: the database must be "
                "on a file system every worker shares, at the same path"
            )
        if f["code_version"] != mine:
            raise ClusterError(f"worker {address} runs morris-solver {f['code_version']}, this client {mine}: install one version everywhere")


def run_job(rules: RuleSet, db_path: str, job: Job, threads: int | None, *after) -> list[dict]:
    """A task: solve ``job`` on this worker with ``threads`` numba threads (default: every core),
    write its subspace files, return their statistics. ``after`` (the statistics of the jobs it
    reads) only orders it after them.

    Every worker uses every core of its machine by default, though several may share one: most of
    a plan is a chain (each total of men reads the one below), so a worker often runs alone, and
    two at once then share the cores (on the 2-core workstation, the chain to 6 men on
    ``local:2``: 0.89 of one process's speed this way, 0.58 with a core each)."""
    import numba

    numba.set_num_threads(min(threads or numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS))
    path = Path(db_path)
    index = board_index(rules.board)
    with Database(path, rules, must_exist=False) as db:
        written = solve_job(rules, index, job, lambda t: db.values(*t))
    write_subspace_files(path, rules, written)
    return [stats for _, stats in written]


def solve_on_cluster(
    rules: RuleSet,
    jobs: list[Job],
    db_path: Path,
    cluster: str,
    threads: int | None = None,
    echo: Callable[[str], None] = print,
    on_job: Callable[[list[SolveRow]], None] | None = None,
    on_client: Callable[[object], None] | None = None,
    job_bytes: int = 0,
) -> list[SolveRow]:
    """Solve ``jobs`` (in dependency order) into ``db_path`` on a Dask cluster; ``on_job`` hears
    each job's rows as it is finished or skipped; ``on_client`` is handed the client once the
    tasks are submitted (tests use it to kill a worker); ``job_bytes``: the plan's largest job's
    peak memory, which every worker's memory limit must allow."""
    on_job = on_job or (lambda rows: None)
    db_path = Path(db_path).absolute()  # workers may run in other working directories
    with writer_lock(db_path):
        for line in relink(db_path, rules):
            echo(line)
        subspace_dir(db_path).mkdir(parents=True, exist_ok=True)
        with Database(db_path, rules, must_exist=False) as db:
            done = {j.name: [SolveRow(stats_of(db.info(*t)), skipped=True) for t in j.writes] for j in jobs if all(db.has(*t) for t in j.writes)}
        if len(done) == len(jobs):  # nothing to do: no cluster to start
            return _run(None, rules, jobs, done, db_path, threads, echo, on_job, None)
        with connect(cluster) as client:
            check_workers(client, db_path, job_bytes)
            echo(f"solving {rules.describe()} on {len(client.scheduler_info(n_workers=-1)['workers'])} Dask workers into {db_path}")
            return _run(client, rules, jobs, done, db_path, threads, echo, on_job, on_client)


def _run(client, rules, jobs, done, db_path, threads, echo, on_job, on_client) -> list[SolveRow]:
    from distributed import KilledWorker, as_completed

    writer = {t: j.name for j in jobs for t in j.writes}
    token = uuid.uuid4().hex[:8]  # this run's keys: a long-lived scheduler may remember older ones
    futures = {}
    rows: dict[str, list[SolveRow]] = {}
    for job in jobs:
        if job.name in done:
            rows[job.name] = done[job.name]
            echo(f"{job.name}: done already, skipped")
            on_job(done[job.name])
            continue
        after = sorted({writer[t] for t in job.reads if writer.get(t) in futures})
        futures[job.name] = client.submit(
            run_job, rules, str(db_path), job, threads, *(futures[n] for n in after),
            key=f"morris-{job.name.replace(' ', '_')}-{token}", pure=False, retries=RETRIES,
        )
    if on_client is not None:
        on_client(client)
    names = {f.key: name for name, f in futures.items()}
    try:
        for future in as_completed(list(futures.values())) if futures else ():
            try:
                stats = future.result()  # a task's error is raised here, as the worker raised it
            except KilledWorker:
                raise ClusterError(
                    f"{names[future.key]}: every worker that took it died (out of memory? see the workers' logs); "
                    "finished work is kept, run the same command again to resume"
                ) from None
            link_subspaces(db_path, rules)
            rows[names[future.key]] = new = [SolveRow(s, skipped=False) for s in stats]
            on_job(new)
    finally:
        for f in futures.values():
            f.cancel()
    if futures:
        echo(f"wrote {sum(len(j.writes) for j in jobs if j.name in futures)} subspaces to {db_path}")
    return [r for job in jobs for r in rows[job.name]]
