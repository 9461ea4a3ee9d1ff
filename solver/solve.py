"""``morris solve``: every subspace up to N men, in dependency order, resumable.

A subspace (a, b) and its twin (b, a) are solved together; removals lead into subspaces with one
man fewer, so pairs are taken by increasing total of men. Finished pairs are written at once (see
``storage``), so a rerun after a kill skips them.
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from .engine import SubspaceResult, solve_pair
from .errors import DatabaseError, RulesError
from .index import board_index
from .rules import RuleSet
from .storage import STAT_KEYS, Database, assemble, write_part


def pairs_up_to(max_men: int) -> list[tuple[int, int]]:
    """(a, b) with 3 <= a <= b <= max_men, each before anything that removes into it."""
    return sorted(
        ((a, b) for a in range(3, max_men + 1) for b in range(a, max_men + 1)),
        key=lambda p: (p[0] + p[1], p[0]),
    )


@dataclass
class SolveRow:
    stats: dict
    skipped: bool


def check_solvable(rules: RuleSet, max_men: int) -> None:
    n = rules.board_data.n
    if max_men < 3:
        raise RulesError("--max-men must be at least 3")
    if max_men > rules.men:
        raise RulesError(f"--max-men {max_men} is more than the {rules.men} men of the {rules.name} rules")
    if 2 * max_men > n:
        raise RulesError(f"{max_men} men a side do not fit on the {rules.board} board's {n} points")


def solve(
    rules: RuleSet,
    max_men: int,
    db_path: Path,
    threads: int | None = None,
    progress: bool = True,
    echo: Callable[[str], None] = print,
) -> list[SolveRow]:
    check_solvable(rules, max_men)
    use_threads(threads)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    with writer_lock(db_path):
        return _solve_locked(rules, max_men, db_path, progress, echo)


@contextmanager
def writer_lock(db_path: Path):
    """Hold ``<db>.lock`` while writing: two solves into one database would race on its files."""
    lock = open(str(db_path) + ".lock", "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise DatabaseError(f"another morris solve is writing {db_path}; wait for it to finish") from None
    try:
        yield
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


def _solve_locked(rules, max_men, db_path, progress, echo) -> list[SolveRow]:
    index = board_index(rules.board)
    db = Database(db_path, rules, must_exist=False)
    cache: dict[tuple[int, int], np.ndarray] = {}

    def solved(x: int, y: int) -> np.ndarray:
        if (x, y) not in cache:
            cache[(x, y)] = db.values(x, y)
        return cache[(x, y)]

    rows: list[SolveRow] = []
    try:
        for a, b in pairs_up_to(max_men):
            names = {(a, b), (b, a)}
            if all(db.has(*h) for h in names):
                for h in sorted(names):
                    rows.append(SolveRow(_stats_of(db.info(*h)), skipped=True))
                echo(f"{_pair_name(a, b)}: done already, skipped")
                continue
            # Values more than two men below this pair are no longer needed.
            for key in [k for k in cache if sum(k) < a + b - 2]:
                del cache[key]
            results = _solve_one(rules, index, a, b, solved, progress)
            stats = [_stats_of_result(r) for r in results]
            write_part(db_path, rules, [(r.values, st) for r, st in zip(results, stats)])
            for r, st in zip(results, stats):
                cache[(r.mover, r.opponent)] = r.values
                rows.append(SolveRow(st, skipped=False))
            db.close()
            db = Database(db_path, rules, must_exist=False)
    finally:
        db.close()
    added = assemble(db_path, rules)
    if added:
        echo(f"wrote {added} subspaces to {db_path}")
    return rows


def _pair_name(a: int, b: int) -> str:
    return f"{a}-{b}" if a == b else f"{a}-{b} and {b}-{a}"


def _solve_one(rules, index, a, b, solved, progress) -> list[SubspaceResult]:
    total = index.slots(a, b) * (1 if a == b else 2)
    if not progress:
        return solve_pair(rules, index, a, b, solved)
    from tqdm import tqdm

    with tqdm(
        total=2 * total,
        desc=f"{_pair_name(a, b):>12}",
        unit="pos",
        unit_scale=True,
        leave=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]",
    ) as bar:
        results = solve_pair(rules, index, a, b, solved, progress=bar.update)
        bar.update(bar.total - bar.n)
    return results


def _stats_of_result(r: SubspaceResult) -> dict:
    """The statistics stored with a subspace (storage.STAT_KEYS)."""
    stats = {key: getattr(r, key) for key in STAT_KEYS if key not in ("slots", "seconds")}
    return dict(stats, slots=int(r.values.shape[0]), seconds=round(r.seconds, 3))


def _stats_of(info) -> dict:
    return {key: getattr(info, key) for key in STAT_KEYS}


def format_table(rows: list[dict], extra: tuple[str, ...] = ()) -> str:
    """A fixed-width table of subspace statistics."""
    cols = ["subspace", "positions", "win", "draw", "loss", "max win", "max loss", *extra]
    lines = []
    data = []
    for r in rows:
        data.append(
            [
                f"{r['mover']}-{r['opponent']}",
                f"{r['positions']:,}",
                f"{r['win']:,}",
                f"{r['draw']:,}",
                f"{r['loss']:,}",
                "-" if r["max_win"] < 0 else str(r["max_win"]),
                "-" if r["max_loss"] < 0 else str(r["max_loss"]),
                *[str(r[e]) for e in extra],
            ]
        )
    widths = [max(len(c), *(len(d[i]) for d in data)) if data else len(c) for i, c in enumerate(cols)]
    lines.append("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for d in data:
        lines.append("  ".join(x.rjust(w) for x, w in zip(d, widths)))
    return "\n".join(lines)


def use_threads(threads: int | None) -> None:
    """Run the kernels on ``threads`` threads (default: every core numba was started with)."""
    if not threads:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise RulesError(f"--threads {threads}: this machine runs 1 to {limit} threads")
    numba.set_num_threads(threads)
