"""The plan of a ``morris solve`` before any work: what the database holds already, how fast this
machine is, and whether the run fits in memory.

``plan_solve`` plans the moving phase up to N men a side (``moving.plan_run``), ``plan_whole_game``
a whole game: the moving phase it reaches, then its placing phase (``placing.plan_placing``).
Timing this machine (``measure``) takes the rate of the largest pair the database holds, or else
solves the chain to 4 men in memory (``bench.run_bench``), which also gives this machine's speed
against the recorded reference run. ``check_fits`` raises ``PlanError`` (one line) for a plan
whose peak memory exceeds what is allowed, or, on ``--cluster local:N``, for N workers that would
not fit at their peaks together; both planners call it unless told not to (a dry run shows the
plan first).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ...errors import PlanError
from ...machine import OthersLoad
from ...rules.rulesets import RuleSet, get_rules
from ...storage.database import Database
from ...storage.files import exists
from ...tiers import pair_name
from ..order import moving_men, pairs_up_to
from . import reference_run
from .moving import RunPlan, borrowed_reference, borrows_reference, measured_rate, plan_run, reference_factor
from .placing import PlacingPlan, plan_placing

TIMING_MEN = 4  # this machine is timed on the chain to this many men (or fewer: capped_men)

# A progress bar over the timing of this machine: called with the positions to solve and a
# description, it gives a context manager with ``advance(positions)`` (``cli.progress.RunBar``).
ProgressBar = Callable[[int, str], AbstractContextManager]


@dataclass
class GamePlan:
    """The plan of a whole game: its moving phase (None where it reaches no tier of 3 men a side
    with none in hand), then its placing phase."""

    moving: RunPlan | None
    placing: PlacingPlan

    @property
    def peak_bytes(self) -> int:
        """The most memory a job of the run needs (0 where nothing is left to solve)."""
        return max(self.moving.peak_bytes if self.moving is not None else 0, self.placing.peak_bytes)

    @property
    def memory_bytes(self) -> int:
        return self.placing.memory_bytes

    @property
    def positions_to_solve(self) -> int:
        return (self.moving.positions_to_solve if self.moving is not None else 0) + self.placing.positions_to_solve


# What a stored position takes on disk, deflated: the 9-men games measured 10.4 to 10.8 GiB for
# 26,743,107,774 positions (README, "Nine Men's Morris under the old rules"): 0.42 to 0.43 bytes.
# Only a guide: a game whose values repeat less (more decided positions) deflates less.
DEFLATED_BYTES_PER_POSITION = 0.43


def disk_words(disk_bytes: int, positions: int) -> str:
    """The plan's disk: its bound (two bytes a slot) and what the measured deflation gives."""
    return (
        f"disk at most {mib(disk_bytes):,} MiB (about {mib(int(positions * DEFLATED_BYTES_PER_POSITION)):,} MiB "
        f"deflated, at the {DEFLATED_BYTES_PER_POSITION} bytes a position the 9-men games took)"
    )


def mib(n: int) -> int:
    """Bytes in whole MiB, as the plans are shown."""
    return round(n / (1 << 20))


def capped_men(rules: RuleSet, men: int) -> int:
    """``men`` a side, or fewer where the rule set has fewer men or its board too few points."""
    return min(men, rules.men, rules.board_data.n // 2)


def plan_solve(
    rules: RuleSet,
    max_men: int,
    db_path: Path,
    memory_bytes: int | None = None,
    measure: bool = False,
    progress_bar: ProgressBar | None = None,
    cluster: str | None = None,
    check: bool = True,
) -> RunPlan:
    """The plan of solving the moving phase up to ``max_men`` men a side into ``db_path``: the
    pairs the database holds are done; with ``measure`` each pair to solve is timed on this
    machine (``time_machine``, with ``progress_bar`` while the chain runs). ``memory_bytes``: what
    the run may use [default: the machine's memory]. With ``check``, ``PlanError`` where the run
    does not fit (``check_fits``, with ``cluster``)."""
    plan = _plan_moving(rules, max_men, db_path, memory_bytes, measure, progress_bar)
    if check:
        check_fits(plan, cluster)
    return plan


def plan_whole_game(
    rules: RuleSet,
    extended: bool,
    db_path: Path,
    memory_bytes: int | None = None,
    measure: bool = False,
    progress_bar: ProgressBar | None = None,
    cluster: str | None = None,
    check: bool = True,
) -> GamePlan:
    """The plan of solving a whole game into ``db_path`` (``extended``: every other number of men
    in hand too): the moving phase up to the men a game reaches (``plan_solve``), then the
    placing phase, timed at the reference rate scaled by this machine's speed where it was
    measured. With ``check``, ``PlanError`` where the run does not fit."""
    top = moving_men(rules, extended)
    moving = _plan_moving(rules, top, db_path, memory_bytes, measure, progress_bar) if top >= 3 else None
    done = set()
    if exists(db_path):
        with Database(db_path, rules) as db:
            done = {s.tier for s in db.tiers()}
    # the placing phase's rate is the reference's placements: this machine's speed alone
    speed = (moving.machine_speed or moving.speed) if moving is not None else None
    placing = plan_placing(rules, extended, done, memory_bytes=memory_bytes, speed=speed)
    if moving is not None and moving.busy:
        placing.rate_source += moving.busy
    plan = GamePlan(moving, placing)
    if check:
        check_fits(plan, cluster)
    return plan


def _plan_moving(rules, max_men, db_path, memory_bytes, measure, progress_bar) -> RunPlan:
    done, rate, source, timed = set(), None, "not measured", {}
    speed, speed_source, reference, machine = None, "", None, None
    if exists(db_path):
        with Database(db_path, rules) as db:
            done = {(s.mover, s.opponent) for s in db.subspaces()}
            timed = {pair_name(min(s.mover, s.opponent), max(s.mover, s.opponent)): s.seconds for s in db.subspaces()}
            if measure:
                rate, source = measured_rate(db)
    busy = ""
    if measure and rate is None:
        rate, source, timed, busy = time_machine(rules, progress_bar)
        if borrows_reference(rules):
            # another rule set: the reference run's pairs, scaled by the chain timed under both
            standard = time_machine(get_rules(reference_run.RULES), progress_bar)
            busy = busy or standard.busy
            borrowed = borrowed_reference(rules, timed, standard.seconds, capped_men(rules, TIMING_MEN))
            if borrowed is not None:
                speed, machine, speed_source, reference, rate = borrowed
                source = "the reference's rate on its largest pairs, scaled the same way" + busy
    if measure and speed is None:
        speed, speed_source = reference_factor(rules, timed)
    if speed is not None:
        speed_source += busy
    plan = plan_run(
        rules, pairs_up_to(max_men), done, rate, source, memory_bytes=memory_bytes, speed=speed,
        speed_source=speed_source, reference=reference,
    )
    plan.machine_speed = machine
    plan.busy = busy
    return plan


class Timing(NamedTuple):
    """``time_machine``'s answer: positions per second, a line saying where it comes from, each
    pair's wall seconds by pair name (what ``moving.reference_factor`` compares with the reference
    run), and a clause saying that other work held the cores while it was timed ("" if not)."""

    rate: float
    source: str
    seconds: dict[str, float]
    busy: str


def time_machine(rules: RuleSet, progress_bar: ProgressBar | None = None) -> Timing:
    """This machine timed on the chain to ``TIMING_MEN`` men, solved in memory (``Timing``)."""
    from .bench import chain_positions, run_bench

    men = capped_men(rules, TIMING_MEN)
    chain = pairs_up_to(men)
    # once untimed first: what the warm-up does not reach (the pull's kernels, this board's
    # tables) is compiled or built there, not in the timed run (with numba's cache empty, after a
    # change to the sources, it had put Lasker's moving phase at 40 times its time)
    run_bench(rules, chain)
    with OthersLoad() as load, (progress_bar or _NoBar)(chain_positions(rules, chain), f"timing this machine on the chain to {men} men") as bar:
        report = run_bench(rules, chain, on_row=lambda row: bar.advance(row.positions))
    rate = report.to_dict()["positions_per_s"]
    source = f"measured now on the chain to {men} men (small pairs: a guide only)"
    seconds = {pair_name(a, b): row.wall for (a, b), row in zip(chain, report.rows)}
    busy = load.note()
    return Timing(rate, source + busy, seconds, busy)


def machine_speed(progress_bar: ProgressBar | None = None) -> tuple[float | None, str, str]:
    """This machine's seconds per second of the reference run (``reference_run.HOST``), from the
    reference rules' chain timed now, where that comes from (None where nothing compares), and a
    clause saying that other work held the cores meanwhile ("" if not: ``Timing.busy``)."""
    standard = get_rules(reference_run.RULES)
    timing = time_machine(standard, progress_bar)
    return *reference_factor(standard, timing.seconds), timing.busy


class _NoBar:
    def __init__(self, total: int, desc: str):
        pass

    def advance(self, positions: int) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc) -> None:
        pass


def check_fits(plan: RunPlan | GamePlan, cluster: str | None = None) -> None:
    """``PlanError`` where the plan's peak exceeds the memory allowed: a pair's, then a group of
    tiers' (a whole game), then, on ``--cluster local:N``, that of N jobs at their peak at once."""
    moving = plan.moving if isinstance(plan, GamePlan) else plan
    if moving is not None and not moving.fits():
        raise PlanError(
            f"pair {moving.peak.pair} needs about {mib(moving.peak_bytes):,} MiB at its peak, more than the "
            f"{mib(moving.memory_bytes):,} MiB allowed (--max-memory; see morris solve --dry-run)"
        )
    if isinstance(plan, GamePlan) and not plan.placing.fits():
        placing = plan.placing
        raise PlanError(
            f"tiers {placing.peak_group} need about {mib(placing.peak_bytes):,} MiB at their peak, more than the "
            f"{mib(placing.memory_bytes):,} MiB allowed (--max-memory; see morris solve --whole-game --dry-run)"
        )
    check_local_workers(cluster, plan.peak_bytes, plan.memory_bytes)


def check_local_workers(cluster: str | None, peak_bytes: int, memory_bytes: int) -> None:
    """``--cluster local:N`` runs up to N jobs at once on this machine: N of the largest must fit."""
    from ..cluster import parse_cluster

    if not cluster or parse_cluster(cluster)[0] != "local":
        return
    workers = parse_cluster(cluster)[1]
    if workers > 1 and workers * peak_bytes > memory_bytes:
        raise PlanError(
            f"--cluster {cluster}: {workers} workers may each hold about {mib(peak_bytes):,} MiB at once, more than the "
            f"{mib(memory_bytes):,} MiB allowed (use fewer workers, or --max-memory)"
        )


def check_cluster(cluster: str | None, threads: int | None) -> None:
    """Refuse a bad ``--cluster`` before any work; without one, set the kernels' threads here
    (this machine is timed with them)."""
    from ...jit import use_threads

    if cluster:
        from ..cluster import parse_cluster

        parse_cluster(cluster)
    else:
        use_threads(threads)
