"""``morris solve`` under the history rule: the engine's states written to a database.

The moving phase is solved by ``solve.solve_moving`` (everything in memory) and each group is
written as the engine hands it over (``write.write_half``: a half at a time, its side table in pieces), so a
killed run keeps the groups it finished; a rerun whose groups are all on disk solves nothing. The
group being solved saves its level loop beside the database every 15 minutes
(``checkpoint``: ``X.h5.checkpoint/``), and a rerun resumes it from there.
The placing phase holds plain positions only (docs/history-rule.md, section 4): the plain
engine's loop (``engine.run.run_stages``) solves it with the plain rules, group by group and
resumable, reading the moving subspaces' plain states from the database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ..engine.costs.plan import mib
from ..engine.order import check_solvable, pairs_up_to, placing_groups, placing_jobs
from ..engine.run import SolveRow, Stage, run_stages, stats_of
from ..errors import PlanError
from ..jit import use_threads
from ..machine import machine_memory
from ..rules.rulesets import RuleSet
from ..storage.database import Database
from ..storage.files import subspace_name
from ..storage.lock import writer_lock
from ..storage.write import relink
from ..tiers import whole_game_tiers
from .checkpoint import Checkpoint, checkpoint_dir, saved_on_signal
from .groups import closure, moving_groups
from .solve import solve_moving
from .store import DatabaseInputs
from .tables import check_supported, plain_rules
from .write import subspace_stats_of, with_states, write_half


_warm = False


def warm_up(rules: RuleSet, whole_game: bool = False) -> None:
    """Compile (or load from numba's cache) the kernels a history-rule run calls, once per process:
    the numbering, judging, levels and stored layout of the six board's 3-3 under ``rules``' history
    rule (milliseconds of solving), and with ``whole_game`` the placing phase's (``engine.placing``)."""
    global _warm
    import numba

    from ..engine import placing
    from ..rules.rulesets import get_rules, with_options

    if not _warm and not numba.config.DISABLE_JIT:
        six = with_options(get_rules("six"), {"reclose": rules.reclose})
        for h in solve_moving(six, [(3, 3)]).values():
            subspace_stats_of(h.a, h.b, h.values[: h.slots], h.values[h.slots :], 0.0, 0.0)
        _warm = True
    if whole_game:
        placing.warm_up()


def moving_subspaces(rules: RuleSet, max_men: int | None, whole_game: bool) -> list[tuple[int, int]]:
    """The moving subspaces a run asks for: up to ``max_men`` a side, or those a whole game reaches."""
    plain = plain_rules(rules)
    if whole_game:
        return sorted((t[0], t[1]) for t in whole_game_tiers(plain) if t[2] == t[3] == 0 and min(t[0], t[1]) >= 3)
    check_solvable(plain, max_men)
    return sorted({s for a, b in pairs_up_to(max_men) for s in ((a, b), (b, a))})


def estimate_bytes(rules: RuleSet, subspaces, groups=None) -> tuple[int, float, float]:
    """(peak bytes, states, the largest group's states) of the solve of ``subspaces`` and what
    they lead to: the largest group with the subspaces it reads (``plan.plan``: states estimated
    from a sample of slots, or ``groups`` where that plan is made already), as ``solve_moving``
    holds them, one group at a time."""
    from .plan import plan

    groups = plan(rules, subspaces) if groups is None else groups
    return int(max((g.bytes for g in groups), default=0)), sum(g.states for g in groups), max((g.states for g in groups), default=0)


def estimate_seconds(rules: RuleSet, groups, whole_game: bool, db_path) -> dict:
    """The dry run's time: the states of the ``groups`` (``plan.plan``) not yet in the database at
    the history engine's rate (``plan.REFERENCE_RATE``), and with ``whole_game`` the placing
    phase's positions at the plain engine's, both scaled by this machine's speed timed now;
    nothing where the speed cannot be timed."""
    from ..engine.costs.placing import plan_placing
    from ..engine.costs.plan import machine_speed
    from ..storage.files import exists
    from .plan import REFERENCE_RATE, solve_seconds

    speed, _, busy = machine_speed()
    if speed is None:
        return {}
    done_tiers = set()
    if exists(db_path):
        with Database(db_path, rules) as db:
            groups = [g for g in groups if not all(db.has(*s) for s in g.group)]
            done_tiers = {t.tier for t in db.tiers()}
    moving = solve_seconds(groups, speed)
    placing = sum(r["seconds"] for r in plan_placing(plain_rules(rules), False, done_tiers, speed=speed).rows) if whole_game else 0.0
    return {
        "seconds": round(moving + placing), "moving_seconds": round(moving), "placing_seconds": round(placing),
        "rate_source": f"{REFERENCE_RATE / 1e6:.2f} M states/s on the reference machine (Viking's ban, 5-6 with 6-5) x {speed:.2f} "
        f"for this one (timed now{busy}); the largest groups may run slower",
    }


def check_memory(rules: RuleSet, subspaces, limit: int | None, groups=None) -> int:
    """PlanError (one line) where the estimate exceeds ``limit`` (or the machine's memory)."""
    (need, states, _), allowed = estimate_bytes(rules, subspaces, groups), limit or machine_memory()
    if need > allowed:
        raise PlanError(
            f"the history rule's engine needs about {mib(need):,} MiB for its largest group of these subspaces "
            f"({states:,.0f} states in all, estimated), more than the {mib(allowed):,} MiB allowed (--max-memory); solve fewer men"
        )
    return need


def wide_inputs_check(rules: RuleSet, subspaces, limit: int | None):
    """``solve_moving``'s ``check``: the plan counts a byte a state of inputs; where a group's
    inputs take 2 (a code past 255, known only once the smaller groups are solved), a PlanError
    before that group is solved if its plan with them exceeds ``limit`` (or the machine)."""
    from .plan import plan

    allowed = limit or machine_memory()
    wide = {tuple(g.group): g.bytes_wide for g in plan(rules, subspaces)}

    def check(group, src) -> None:
        need = wide.get(tuple(group), 0)
        if src.values.itemsize > 1 and need > allowed:
            raise PlanError(
                f"group {' and '.join(subspace_name(*s) for s in group)}: its inputs hold a code past 255, 2 bytes a state, "
                f"and it needs about {mib(need):,} MiB then, more than the {mib(allowed):,} MiB allowed (--max-memory)"
            )

    return check


def solve_history(
    rules: RuleSet,
    db_path: Path,
    max_men: int | None = None,
    whole_game: bool = False,
    threads: int | None = None,
    limit: int | None = None,
    progress: bool = True,
    echo: Callable[[str], None] = print,
    on_group: Callable[[list[SolveRow]], None] | None = None,
) -> list[SolveRow]:
    """Solve the moving phase under the history rule into ``db_path`` (up to ``max_men``, or all
    that a whole game reaches, then the placing phase with ``whole_game``). Each group is written
    as it is solved; groups already in the database are skipped (reported ``skipped``)."""
    check_supported(rules)
    use_threads(threads)
    on_group = on_group or (lambda rows: None)
    db_path = Path(db_path)
    subs = moving_subspaces(rules, max_men, whole_game)
    groups = moving_groups(closure(rules, subs))
    check_memory(rules, subs, limit)
    wide_check = wide_inputs_check(rules, subs, limit)
    top = max(max(s) for s in closure(rules, subs))
    rows: list[SolveRow] = []
    with writer_lock(db_path):
        for line in relink(db_path, rules):
            echo(line)
        with Database(db_path, rules, must_exist=False) as db:
            done = {tuple(g[0]) for g in groups if all(db.has(*s) for s in g)}
            held = {s: db.info(*s) for g in groups if tuple(g[0]) in done for s in g}
        echo(f"solving {rules.describe()} (the history rule) up to {top} men into {db_path}")
        if len(done) == len(groups):
            for g in groups:
                rows += _skipped([held[s] for s in g], echo, on_group)
        else:
            clock = [time.perf_counter(), time.process_time()]

            def finished(group, parts):
                now = [time.perf_counter(), time.process_time()]
                seconds, cpu = now[0] - clock[0], now[1] - clock[1]
                clock[:] = now
                # a group resumed from its saved levels: the earlier runs' seconds too (their
                # CPU seconds where the save kept them: 0 from a save that predates that)
                earlier = parts[0].timing.get("earlier_s", 0.0)
                if "resumed_at_level" in parts[0].timing:  # (said even where the earlier runs took under a millisecond)
                    judging = parts[0].timing.get("resumed_judging")
                    where = f"its judging ({judging})" if judging else f"level {parts[0].timing['resumed_at_level']}"
                    echo(f"{' and '.join(subspace_name(p.a, p.b) for p in parts)}: resumed at {where} ({earlier:.1f} s of earlier runs)")
                    seconds += earlier
                    cpu += parts[0].timing.get("earlier_cpu_s", 0.0)
                new = []
                for p in parts:  # one half at a time, a piece of its side table at a time (``write.write_half``)
                    stats, side = write_half(db_path, rules, p, seconds, cpu)
                    # (this run's seconds of each step: numbering, judging, levels; where a group's time goes)
                    steps = {k: p.timing[k] for k in ("index_s", "init_s", "levels_s", "levels")}
                    new.append(SolveRow(dict(with_states(stats, side), steps=steps), skipped=False))
                rows.extend(new)
                on_group(new)
                echo(f"{' and '.join(subspace_name(p.a, p.b) for p in parts)}: {sum(r.stats['states'] for r in new):,} states in {seconds:.1f} s")

            stored = {s for g in groups if tuple(g[0]) in done for s in g}
            for g in groups:
                if tuple(g[0]) in done:
                    rows += _skipped([held[s] for s in g], echo, on_group)

            saves = Checkpoint(checkpoint_dir(db_path), rules.describe(), echo=echo)
            with saved_on_signal(saves):
                solve_moving(rules, subs, finished, stored=stored, load=DatabaseInputs(db_path, rules), keep=False, check=wide_check, checkpoint=saves)
    if whole_game:
        plain = plain_rules(rules)
        jobs = placing_jobs(plain, placing_groups(plain))
        stage = Stage(f"solving the placing phase of {rules.describe()}: {len(jobs)} groups of tiers into {db_path}", jobs, "tiers with men in hand")
        rows += run_stages(rules, db_path, [stage], threads, progress, echo, on_group, solve_rules=plain)
    return rows


def _skipped(infos, echo, on_group) -> list[SolveRow]:
    rows = [SolveRow(with_states(stats_of(i), i.history), skipped=True) for i in infos]
    echo(f"{' and '.join(i.name for i in infos)}: done already, skipped")
    on_group(rows)
    return rows
