"""``morris solve``: every subspace up to N men, in dependency order, resumable.

Each finished pair is added to the database at once (``storage.write.add_subspaces``: its
subspace files, then a new main file), so a rerun after a kill skips it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..storage.lock import writer_lock
from ..storage.files import STAT_KEYS
from ..storage.write import add_subspaces, relink
from ..storage.database import Database
from ..index import board_index
from ..rules.rulesets import RuleSet
from .pair import SubspaceResult, solve_pair, warm_up
from .held import SolvedValues
from .order import check_solvable, pair_name, pairs_up_to
from ..jit import use_threads


@dataclass
class SolveRow:
    stats: dict
    skipped: bool


def solve(
    rules: RuleSet,
    max_men: int,
    db_path: Path,
    threads: int | None = None,
    progress: bool = True,
    echo: Callable[[str], None] = print,
    on_pair: Callable[[list[SolveRow]], None] | None = None,
) -> list[SolveRow]:
    """Solve every pair up to ``max_men`` into ``db_path``; ``on_pair`` hears each pair's rows as
    it is finished or skipped."""
    check_solvable(rules, max_men)
    use_threads(threads)
    with writer_lock(db_path):
        echo(f"solving {rules.describe()} up to {max_men} men into {db_path}")
        return _solve_locked(rules, max_men, db_path, progress, echo, on_pair or (lambda rows: None))


def _solve_locked(rules, max_men, db_path, progress, echo, on_pair) -> list[SolveRow]:
    index = board_index(rules.board)
    for line in relink(db_path, rules):
        echo(line)
    db = Database(db_path, rules, must_exist=False)
    solved = SolvedValues(lambda x, y: db.values(x, y))
    rows: list[SolveRow] = []
    added = 0
    try:
        pairs = pairs_up_to(max_men)
        for i, (a, b) in enumerate(pairs):
            names = sorted({(a, b), (b, a)})
            if all(db.has(*h) for h in names):
                done = [SolveRow(stats_of(db.info(*h)), skipped=True) for h in names]
                echo(f"{pair_name(a, b)}: done already, skipped")
            else:
                solved.keep_for(rules, pairs[i:])
                warm_up()
                results = _solve_one(rules, index, a, b, solved, progress)
                stats = [stats_of_result(r) for r in results]
                add_subspaces(db_path, rules, [(r.values, st) for r, st in zip(results, stats)])
                added += len(results)
                solved.keep_for(rules, pairs[i + 1 :], [(r.mover, r.opponent, r.values) for r in results])
                done = [SolveRow(st, skipped=False) for st in stats]
                db.close()
                db = Database(db_path, rules, must_exist=False)
            rows += done
            on_pair(done)
    finally:
        db.close()
    if added:
        echo(f"wrote {added} subspaces to {db_path}")
    return rows


def _solve_one(rules, index, a, b, solved, progress) -> list[SubspaceResult]:
    total = index.slots(a, b) * (1 if a == b else 2)
    if not progress:
        return solve_pair(rules, index, a, b, solved)
    from tqdm import tqdm

    with tqdm(
        total=2 * total,
        desc=f"{pair_name(a, b):>12}",
        unit="pos",
        unit_scale=True,
        leave=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]",
    ) as bar:
        results = solve_pair(rules, index, a, b, solved, progress=bar.update)
        bar.update(bar.total - bar.n)
    return results


def stats_of_result(r: SubspaceResult) -> dict:
    """The statistics stored with a subspace (storage.STAT_KEYS)."""
    stats = {key: getattr(r, key) for key in STAT_KEYS if key not in ("slots", "seconds", "cpu_seconds", "mover_hand", "opponent_hand")}
    return dict(stats, mover_hand=0, opponent_hand=0, slots=int(r.values.shape[0]), seconds=round(r.seconds, 3), cpu_seconds=round(r.cpu_seconds, 3))


def stats_of(info) -> dict:
    return {key: getattr(info, key) for key in STAT_KEYS}
