"""Solving, from Python: the one front door that ``morris solve`` and ``morris rank`` call.

``SolveRequest`` holds what to solve (rules, database, men, whole game, memory, cluster) and
checks it; its ``engine`` is the one that solves it: the plain engine (``engine.run``), the
same jobs on Dask (``engine.cluster``), or the history rule's (``history.run``, any ``reclose``
other than ``allowed``). ``plan`` makes the plan of a run (``engine.costs.plan``, or the history
rule's estimate), ``dry_run`` makes it, hands it to the caller and refuses a run that does not
fit; ``compile_kernels`` compiles (or loads from numba's cache) the kernels a run calls, timed on
its own, so that ``solve``'s seconds and rate are solving alone. ``rank_draws`` ranks a solved
database's draws under its writer lock.

    >>> from solver.rules import make_rules
    >>> from solver.solve import SolveRequest, solve
    >>> result = solve(SolveRequest(make_rules("six"), "six.h5", max_men=4))
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import RulesError
from .rules.rulesets import RuleSet

DEFAULT_MAX_MEN = 4
PLAIN, CLUSTER, HISTORY = "plain", "cluster", "history"

__all__ = [
    "DEFAULT_MAX_MEN", "SolveRequest", "SolveResult", "HistoryPlan", "Compiled", "plan", "dry_run", "compile_kernels", "solve",
    "rank_draws",
]


@dataclass
class SolveRequest:
    """What to solve: ``rules`` into ``db_path`` (default: ``storage.files.default_path``), the
    moving phase up to ``max_men`` (default ``DEFAULT_MAX_MEN``, or fewer where the rules have
    fewer) or with ``whole_game`` every tier the game needs (``extended``: other hands too).
    ``max_memory``: bytes a run may take at its peak (None: the machine's memory); ``cluster``: a
    Dask spec (``engine.cluster``); ``stop_after``: seconds after which no job is begun."""

    rules: RuleSet
    db_path: Path | str | None = None
    max_men: int | None = None
    whole_game: bool = False
    extended: bool = False
    threads: int | None = None
    max_memory: int | None = None
    cluster: str | None = None
    stop_after: float | None = None

    def __post_init__(self) -> None:
        from .engine.costs.plan import capped_men
        from .storage.files import default_path

        rules = self.rules
        if self.extended and not self.whole_game:
            raise RulesError("--extended goes with --whole-game")
        if self.stop_after is not None and (self.cluster or rules.reclose != "allowed"):
            raise RulesError(f"--stop-after does not go with {'--cluster' if self.cluster else 'the history rule (option reclose)'} yet")
        if self.engine == HISTORY:
            from .history.tables import check_supported

            check_supported(rules)
            for given, flag in ((self.extended, "--extended"), (self.cluster, "--cluster")):
                if given:
                    raise RulesError(f"{flag} does not go with the history rule (option reclose) yet")
        if self.whole_game and self.max_men is not None:
            raise RulesError("--whole-game solves every tier the game needs: leave out --max-men")
        if not self.whole_game and self.max_men is None:
            self.max_men = capped_men(rules, DEFAULT_MAX_MEN)
        if self.engine != HISTORY:
            from .engine.costs.plan import check_cluster
            from .engine.order import check_solvable

            if not self.whole_game:
                check_solvable(rules, self.max_men)
            check_cluster(self.cluster, self.threads)
        self.db_path = Path(self.db_path or default_path(rules))

    @property
    def engine(self) -> str:
        """``HISTORY`` (a history rule), ``CLUSTER`` (on Dask) or ``PLAIN``."""
        return HISTORY if self.rules.reclose != "allowed" else CLUSTER if self.cluster else PLAIN


@dataclass
class HistoryPlan:
    """The history rule's plan (its dry run): ``data`` the JSON object ``morris solve --dry-run
    --json`` prints (subspaces, states, peak, memory and checkpoint bytes, time where it can be
    timed); ``groups`` (``history.plan.plan``) are sampled once for the memory and the time."""

    request: SolveRequest
    data: dict
    groups: list = field(repr=False, default_factory=list)
    subspaces: list = field(repr=False, default_factory=list)

    def check(self) -> None:
        """PlanError where the largest group does not fit (``history.run.check_memory``)."""
        from .history.run import check_memory

        check_memory(self.request.rules, self.subspaces, self.request.max_memory, self.groups)


def plan(request: SolveRequest, measure: bool = False, progress_bar=None):
    """The plan of ``request``'s run: the moving phase's (``engine.costs.plan.RunPlan``), the whole
    game's (``GamePlan``) or the history rule's (``HistoryPlan``). ``measure``: time this machine
    for the estimated seconds (the dry run); else the plan is checked to fit, a PlanError where not."""
    if request.engine == HISTORY:
        return _history_plan(request)
    from .engine.costs.plan import plan_solve, plan_whole_game

    r = request
    if r.whole_game:
        return plan_whole_game(r.rules, r.extended, r.db_path, r.max_memory, measure=measure, progress_bar=progress_bar,
                               cluster=r.cluster, check=not measure)
    return plan_solve(r.rules, r.max_men, r.db_path, r.max_memory, measure=measure, progress_bar=progress_bar,
                      cluster=r.cluster, check=not measure)


def dry_run(request: SolveRequest, show: Callable[[object], None], progress_bar=None) -> None:
    """``morris solve --dry-run``: the plan made (this machine timed) and handed to ``show``, then
    a PlanError where the run would not fit; nothing is solved."""
    p = plan(request, measure=True, progress_bar=progress_bar)
    show(p)
    if isinstance(p, HistoryPlan):
        p.check()
    else:
        from .engine.costs.plan import check_fits

        check_fits(p, request.cluster)


def _history_plan(request: SolveRequest) -> HistoryPlan:
    from .history.checkpoint import SAVE_STATE
    from .history.groups import closure
    from .history.plan import plan as history_plan
    from .history.run import estimate_bytes, estimate_seconds, moving_subspaces
    from .machine import machine_memory

    rules, db_path = request.rules, request.db_path
    subs = moving_subspaces(rules, request.max_men, request.whole_game)
    groups = history_plan(rules, subs)  # (sampled once for the memory and the time)
    (need, states, largest), allowed = estimate_bytes(rules, subs, groups), request.max_memory or machine_memory()
    data = {
        "event": "plan", "rules": rules.to_dict(), "database": str(db_path), "subspaces": len(closure(rules, subs)),
        "states": round(states), "peak_bytes": need, "memory_bytes": allowed,
        # a long group's levels saved beside the database (twice that while a save replaces the last)
        "checkpoint_bytes": round(SAVE_STATE * largest),
    }
    data.update(estimate_seconds(rules, groups, request.whole_game, db_path))
    return HistoryPlan(request, data, groups, subs)


@dataclass
class Compiled:
    """``compile_kernels``' result: its ``seconds``, and whether numba compiled anything
    (``compiled``; else every kernel came from its cache)."""

    seconds: float
    compiled: bool

    def line(self) -> str:
        if self.compiled:
            return f"compiling kernels (once; cached afterwards): {self.seconds:.1f} s"
        return f"kernels loaded from the cache: {self.seconds:.1f} s"


def compile_kernels(request: SolveRequest, checked_plan=None) -> Compiled:
    """Compile the kernels ``request``'s run calls, or load them from numba's cache (``numba_cache``:
    a directory per state of the sources): a tiny solve of each kind of job it has (the engines'
    ``warm_up``), so the run's own seconds are solving. Where numba wrote new files to its cache,
    it compiled (a first run after an install or an edit); else it only loaded them (seconds).
    Nothing where ``checked_plan`` (``plan(request)``) leaves nothing to solve."""
    from .numba_cache import cache_files

    if checked_plan is not None and checked_plan.positions_to_solve == 0:
        return Compiled(0.0, False)

    before, t0 = cache_files(), time.perf_counter()
    if request.engine == HISTORY:
        from .history.run import warm_up as history_warm_up

        history_warm_up(request.rules, request.whole_game)
    else:
        from .engine import pair, placing

        pair.warm_up()
        if request.whole_game:
            placing.warm_up()
    return Compiled(time.perf_counter() - t0, cache_files() > before)


@dataclass
class SolveResult:
    """A finished (or stopped) run: its ``rows`` (``engine.run.SolveRow``: each subspace's or
    tier's statistics, solved or skipped), the seconds spent solving (``seconds``: after the
    kernels were compiled, ``compiled``), whether ``--stop-after`` left work (``stopped``; None
    without a deadline) and the game's value (``game_value``: a line, after a whole game)."""

    request: SolveRequest
    rows: list
    seconds: float
    compiled: Compiled | None = None
    stopped: bool | None = None
    game_value: str | None = None

    @property
    def solved(self) -> list:
        return [r for r in self.rows if not r.skipped]

    @property
    def positions_solved(self) -> int:
        return sum(r.stats["positions"] for r in self.solved)


def solve(
    request: SolveRequest,
    progress: bool = False,
    echo: Callable[[str], None] = print,
    on_job: Callable[[list], None] | None = None,
    compiled: Compiled | None = None,
    checked_plan=None,
) -> SolveResult:
    """Solve ``request`` with its engine: the plan checked first (a PlanError before any work
    where it does not fit; ``checked_plan``: one the caller made already, ``plan(request)``), the
    kernels compiled (``compile_kernels``, unless ``compiled`` says it was done), then every job
    not yet in the database, each written as it is finished. ``on_job`` hears each pair's or
    group's rows; ``progress``: tqdm bars per job. The history rule's engine checks its memory
    itself (``history.run.solve_history``)."""
    from .query import game_value_line

    r = request
    on_job = on_job or (lambda rows: None)
    p = checked_plan if checked_plan is not None or r.engine == HISTORY else plan(r)
    compiled = compiled or compile_kernels(r, p)
    t0 = time.perf_counter()
    deadline = None
    if r.engine == HISTORY:
        from .history.run import solve_history

        rows = solve_history(r.rules, r.db_path, r.max_men, r.whole_game, r.threads, r.max_memory, progress=progress, echo=echo,
                             on_group=on_job)
        for row in rows:
            row.stats.setdefault("states", row.stats["positions"])  # (a tier with men in hand: plain positions)
    elif r.engine == CLUSTER:
        from .engine.cluster import solve_on_cluster
        from .engine.order import moving_jobs, whole_game_jobs

        jobs = whole_game_jobs(r.rules, r.extended) if r.whole_game else moving_jobs(r.rules, r.max_men)
        rows = solve_on_cluster(r.rules, jobs, r.db_path, r.cluster, r.threads, echo=echo, on_job=on_job, job_bytes=p.peak_bytes)
    else:
        from .engine import run

        deadline = None if r.stop_after is None else run.Deadline(r.stop_after)
        if r.whole_game:
            rows = run.solve_whole(r.rules, r.db_path, r.extended, threads=r.threads, progress=progress, echo=echo,
                                   on_group=on_job, hold_bytes=p.placing.hold_bytes, deadline=deadline)
        else:
            rows = run.solve(r.rules, r.max_men, r.db_path, threads=r.threads, progress=progress, echo=echo, on_pair=on_job,
                             deadline=deadline)
    seconds = time.perf_counter() - t0
    stopped = None if deadline is None else deadline.stopped
    line = game_value_line(r.db_path, r.rules) if r.whole_game and not stopped else None
    return SolveResult(r, rows, seconds, compiled, stopped, line)


def rank_draws(path, rules: RuleSet, limit: int | None = None, explicit: bool = False, fresh: bool = False,
               echo: Callable[[str], None] = print):
    """``morris rank``: the draws of the whole-game database at ``path`` ranked and stored
    (``ultra.store.rank_database``) under the database's writer lock, after a check that the
    largest group (or graph) fits ``limit`` (a PlanError before any work where not); the summary."""
    from .storage.database import Database
    from .storage.lock import writer_lock
    from .ultra.store import check_rankable, gib, rank_database

    with Database(path, rules) as db:  # a missing or mismatched file fails here
        est = check_rankable(db, limit, explicit)
    how = f"without a graph, {len(est.groups)} groups" if est.implicit else "over the draw graph"
    echo(f"ranking the {est.draws:,} draws of {path} {how} (about {gib(est.bytes)} of memory)")
    with writer_lock(path):
        return rank_database(path, limit, echo, explicit, fresh)


def rank_plan(path, rules: RuleSet, limit: int | None = None, explicit: bool = False, show: Callable | None = None) -> None:
    """``morris rank --dry-run``: the estimate (``ultra.store.estimate``) handed to ``show``, then
    a PlanError where the largest group (or graph) does not fit ``limit``."""
    from .storage.database import Database
    from .ultra.store import check_rankable, estimate

    with Database(path, rules) as db:
        if show is not None:
            show(estimate(db, explicit))
        check_rankable(db, limit, explicit)
