"""``morris solve``: one resumable loop over the jobs of ``order`` (moving-phase pairs, then groups
of tiers with men in hand), each added to the database as soon as it is finished.

The loop takes the writer lock and brings the database up to date (``storage.write.relink``)
once, then for each job: skip it if its files are there, else solve it (``solve_job``: the same
function a Dask worker runs, ``cluster.run_job``) and add its subspace files and a new main file
(``storage.write.add_subspaces``), so a rerun after a kill resumes after the last finished job.
Values a later job reads stay in memory (``held.TierValues``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..index import BoardIndex, board_index
from ..jit import use_threads
from ..rules.rulesets import RuleSet
from ..storage.database import Database
from ..storage.files import STAT_KEYS
from ..storage.lock import writer_lock
from ..storage.write import add_subspaces, relink
from . import pair, placing
from .held import TierValues
from .order import (
    Job,
    check_solvable,
    moving_jobs,
    moving_men,
    placing_groups,
    placing_jobs,
)

BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]"


@dataclass
class SolveRow:
    stats: dict
    skipped: bool


@dataclass
class Stage:
    """Jobs solved one after another under one heading: the moving phase, or the placing phase."""

    heading: str  # echoed before the stage's jobs
    jobs: list[Job]
    wrote: str  # "wrote {n} ... to {path}" after it, when it solved anything
    hold_bytes: int | None = None  # the budget of tiers held for later jobs (``held.TierValues``)


@dataclass
class Deadline:
    """``morris solve --stop-after``: no job is begun once ``seconds`` have passed since the run
    began, so that a long run stops between two jobs (nothing it solved is lost, and what it
    wrote can be verified before a rerun goes on); ``stopped`` says whether jobs were left."""

    seconds: float
    start: float = field(default_factory=time.monotonic)
    stopped: bool = False

    def passed(self) -> bool:
        return time.monotonic() - self.start >= self.seconds


def solve(
    rules: RuleSet,
    max_men: int,
    db_path: Path,
    threads: int | None = None,
    progress: bool = True,
    echo: Callable[[str], None] = print,
    on_pair: Callable[[list[SolveRow]], None] | None = None,
    deadline: Deadline | None = None,
) -> list[SolveRow]:
    """Solve every pair up to ``max_men`` into ``db_path``; ``on_pair`` hears each pair's rows as
    it is finished or skipped. With a ``deadline`` no pair is begun once it has passed."""
    check_solvable(rules, max_men)
    stage = Stage(f"solving {rules.describe()} up to {max_men} men into {db_path}", moving_jobs(rules, max_men), "subspaces")
    return run_stages(rules, db_path, [stage], threads, progress, echo, on_pair, deadline=deadline)


def solve_whole(
    rules: RuleSet,
    db_path: Path,
    extended: bool = False,
    threads: int | None = None,
    progress: bool = True,
    echo: Callable[[str], None] = print,
    on_group: Callable[[list[SolveRow]], None] | None = None,
    hold_bytes: int | None = None,
    deadline: Deadline | None = None,
) -> list[SolveRow]:
    """Solve a whole game into ``db_path``: the moving phase up to the men it reaches, then the
    tiers with men in hand. ``on_group`` hears each group's rows (a moving-phase pair's too).
    ``hold_bytes``: what the placing phase may hold for later groups (the plan's ``hold_bytes``;
    None: all they read). With a ``deadline`` no job is begun once it has passed."""
    stages = []
    top = moving_men(rules, extended)
    if top >= 3:
        stages.append(Stage(f"solving {rules.describe()} up to {top} men into {db_path}", moving_jobs(rules, top), "subspaces"))
    groups = placing_jobs(rules, placing_groups(rules, extended))
    stages.append(
        Stage(
            f"solving the placing phase of {rules.describe()}: {len(groups)} groups of tiers into {db_path}", groups,
            "tiers with men in hand", hold_bytes,
        )
    )
    return run_stages(rules, db_path, stages, threads, progress, echo, on_group, deadline=deadline)


def run_stages(rules, db_path, stages, threads, progress, echo, on_job, solve_rules=None, deadline: Deadline | None = None) -> list[SolveRow]:
    """The loop: under the writer lock, each stage's jobs in order, skipping the finished ones.
    ``solve_rules``: the rules the jobs are solved with, where they differ from the database's
    (the history rule's placing tiers are plain positions: ``history.run``). Once ``deadline``
    has passed, the loop stops before the next job it would solve (``deadline.stopped``)."""
    use_threads(threads)
    on_job = on_job or (lambda rows: None)
    db_path = Path(db_path)
    index = board_index(rules.board)
    rows: list[SolveRow] = []
    with writer_lock(db_path):
        relinked = relink(db_path, rules)
        held = TierValues(Database(db_path, rules, must_exist=False))
        try:
            for stage in stages:
                held.budget = stage.hold_bytes
                echo(stage.heading)
                for line in relinked:
                    echo(line)
                relinked = []
                solved = 0
                bar = _placing_bar(index, stage.jobs, held.db) if progress and stage.jobs and stage.jobs[0].group else None
                try:
                    for i, job in enumerate(stage.jobs):
                        if all(held.db.has(*t) for t in job.writes):
                            done = [SolveRow(stats_of(held.db.info(*t)), skipped=True) for t in job.writes]
                            if job.pair is not None:
                                echo(f"{job.name}: done already, skipped")
                        elif deadline is not None and deadline.passed():
                            deadline.stopped = True
                            echo(f"stopped before {job.name}: the {deadline.seconds:g} s of --stop-after have passed; "
                                 "the same command goes on from here")
                            break
                        else:
                            stats = _solve_and_write(solve_rules or rules, index, db_path, rules, stage.jobs[i:], held,
                                                     progress and bar is None)
                            done = [SolveRow(st, skipped=False) for st in stats]
                            solved += len(stats)
                            if bar is not None:
                                bar.update(sum(st["slots"] for st in stats))
                        rows += done
                        on_job(done)
                finally:
                    if bar is not None:
                        bar.close()
                if solved:
                    echo(f"wrote {solved} {stage.wrote} to {db_path}")
                if deadline is not None and deadline.stopped:
                    break
        finally:
            held.db.close()
    return rows


def _solve_and_write(solve_rules, index, db_path, rules, jobs, held, progress) -> list[dict]:
    """Solve the first of ``jobs`` (those left), write its tiers and offer them to ``held`` for
    the jobs after it; their statistics. The values live on only where ``held`` keeps them: a
    name for them in the caller's loop kept a whole group's values through the next group's
    solve, which the plan does not count (in /proc/PID/smaps during Lasker's 6-7-3-2 group, the
    two tiers of the group before it, 1.0 GiB; 7-8-3-1 peaked at 17.6 GiB of 16 GiB)."""
    held.keep_for(jobs)
    written = solve_job(solve_rules, index, jobs[0], held, progress)
    add_subspaces(db_path, rules, written)
    held.keep_for(jobs[1:], [(stats_tier(st), v) for v, st in written])
    held.db.close()
    held.db = Database(db_path, rules, must_exist=False)  # with the new files
    return [st for _, st in written]


def solve_job(rules: RuleSet, index: BoardIndex, job: Job, solved: Callable, progress: bool = False) -> list[tuple[np.ndarray, dict]]:
    """Solve one job: (values, statistics) of each tier it writes. ``solved(t)`` gives the values
    of a tier it reads; ``progress``: a bar over the pair's work."""
    if job.pair is not None:
        pair.warm_up()
        a, b = job.pair
        results = _solve_pair(rules, index, a, b, lambda x, y: solved((x, y, 0, 0)), job.name if progress else None)
        return [(r.values, stats_of_result(r)) for r in results]
    placing.warm_up()
    return [(r.values, r.stats) for r in placing.solve_group(rules, index, job.group, solved)]


def _solve_pair(rules, index, a, b, solved, desc) -> list[pair.SubspaceResult]:
    if desc is None:
        return pair.solve_pair(rules, index, a, b, solved)
    from tqdm import tqdm

    total = index.slots(a, b) * (1 if a == b else 2)
    with tqdm(total=2 * total, desc=f"{desc:>12}", unit="pos", unit_scale=True, leave=True, bar_format=BAR_FORMAT) as bar:
        results = pair.solve_pair(rules, index, a, b, solved, progress=bar.update)
        bar.update(bar.total - bar.n)
    return results


def _placing_bar(index, jobs, db):
    from tqdm import tqdm

    todo = sum(index.slots(t[0], t[1]) for j in jobs for t in j.writes if not db.has(*t))
    return tqdm(total=todo, desc="   placing", unit="pos", unit_scale=True, leave=True, bar_format=BAR_FORMAT)


def stats_tier(stats: dict) -> tuple[int, int, int, int]:
    return (stats["mover"], stats["opponent"], stats["mover_hand"], stats["opponent_hand"])


def stats_of_result(r: pair.SubspaceResult) -> dict:
    """The statistics stored with a subspace (storage.STAT_KEYS)."""
    stats = {key: getattr(r, key) for key in STAT_KEYS if key not in ("slots", "seconds", "cpu_seconds", "mover_hand", "opponent_hand")}
    return dict(stats, mover_hand=0, opponent_hand=0, slots=int(r.values.shape[0]), seconds=round(r.seconds, 3), cpu_seconds=round(r.cpu_seconds, 3))


def stats_of(info) -> dict:
    return {key: getattr(info, key) for key in STAT_KEYS}
