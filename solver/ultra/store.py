"""``morris rank``'s work: a whole game's draw ranks computed and written beside its strong values.

``check_rankable`` refuses, before any memory is spent, a database that is not a whole game or
whose ranking would not fit in memory; ``rank_database`` computes the sector values and the
ranks and writes them (``storage.ranks``), tier by tier, then the main file. The ranks come
without a graph (``whole.rank_game``: each tier written as it is finished, a rerun after a kill
resuming from the tiers written with the same sector values), or where tiers with men in hand
cycle (Lasker's rule) from the explicit draw graph (``ranks.database_draw_ranks``'s steps).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import DatabaseError, PlanError
from ..machine import machine_memory
from ..storage.database import Database
from ..tiers import tier_name

# What the in-memory graph costs a draw: 5.0 GiB for the 5,790,254 draws (80.7 M drawing moves)
# of the standard board with 4 men a side (docs/ultra-strong.md), rounded up; plus the strong
# values of every tier, held together while the graph is built (2 bytes a slot).
BYTES_PER_DRAW = 1024
BYTES_PER_SLOT = 2
# Beside the largest group of the graph-free path (``whole.plan``): the interpreter, numba's
# kernels and HDF5's chunk caches, about 0.5 GiB measured on the small games, rounded up.
BASE_BYTES = 1 << 30


@dataclass
class Estimate:
    draws: int
    slots: int
    tiers: int
    groups: list | None = None  # ``whole.plan``'s groups: the graph-free path; None: the explicit graph

    @property
    def implicit(self) -> bool:
        return self.groups is not None

    @property
    def bytes(self) -> int:
        if self.implicit:
            return BASE_BYTES + max((g["bytes"] for g in self.groups), default=0)
        return self.draws * BYTES_PER_DRAW + self.slots * BYTES_PER_SLOT

    def largest(self) -> dict | None:
        return max(self.groups, key=lambda g: g["bytes"]) if self.groups else None


def gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


def estimate(db: Database, explicit: bool = False) -> Estimate:
    """What ranking ``db`` needs: without a graph (``whole.plan``: the largest group) unless
    ``explicit`` or tiers with men in hand cycle, else the explicit graph's 1 KiB a draw."""
    from ..tiers import groups_in_order
    from .whole import CyclingTiers, plan, refuse_cycles

    infos = db.tiers()
    est = Estimate(sum(i.draw for i in infos), sum(i.slots for i in infos), len(infos))
    if not explicit:
        try:  # (only the cycles send the ranks to the graph: any other error is the caller's)
            refuse_cycles(db.rules, groups_in_order(db.rules, db.tier_keys()))
            est.groups = plan(db)
        except CyclingTiers:
            pass
        except ValueError as e:  # a tier the game moves into is missing
            raise DatabaseError(f"{db.path} is not a whole game: {e}") from None
    return est


def check_rankable(db: Database, limit: int | None = None, explicit: bool = False) -> Estimate:
    """The memory estimate of ranking ``db`` (``estimate``); DatabaseError where it is not a
    whole game (the start's tier missing: ranks need every tier a game reaches) or an opening
    book, PlanError where the estimate exceeds ``limit`` (default: this machine's memory)."""
    rules = db.rules
    start = (0, 0, rules.men, rules.men)
    if db.book_min_hand is not None:
        raise DatabaseError(f"{db.path} is an opening book, not a whole game: ranks need every tier a game reaches")
    if start not in db.tier_keys():
        raise DatabaseError(
            f"{db.path} is not a whole game (no tier {tier_name(start)}): ranks need every tier a game reaches "
            f"(solve it with: morris solve --whole-game --db {db.path})"
        )
    est = estimate(db, explicit)
    limit = machine_memory() if limit is None else limit
    if est.bytes > limit and est.implicit:
        big = est.largest()
        raise PlanError(
            f"{db.path} is too big to rank in memory: its largest group, {' and '.join(map(tier_name, big['tiers']))}, "
            f"needs {gib(big['bytes'])} ({big['slots']:,} slots of its own, {big['lower_slots']:,} of the tiers it reads), "
            f"about {gib(est.bytes)} with the run's own, more than the limit of {gib(limit)} (--max-memory; default "
            "this machine's memory)"
        )
    if est.bytes > limit:
        raise PlanError(
            f"{db.path} is too big to rank in memory: {est.draws:,} draws need about {gib(est.bytes)} "
            f"({BYTES_PER_DRAW} bytes a draw for the draw graph, {BYTES_PER_SLOT} a slot for the values), "
            f"more than the limit of {gib(limit)} (--max-memory; default this machine's memory)"
        )
    return est


@dataclass
class RankSummary:
    database: str
    tiers: int
    draws: int
    edges: int | None  # the draw graph's drawing moves (None: ranked without a graph)
    seconds_graph: float
    seconds_ranks: float
    seconds_write: float
    histogram: dict[int, int]  # rank -> draws, over every tier
    secvals: object  # SectorValues
    resumed: int = 0  # tiers an earlier run had finished

    def to_dict(self) -> dict:
        return {
            "database": self.database, "tiers": self.tiers, "draws": self.draws, "edges": self.edges,
            "method": "explicit graph" if self.edges is not None else "implicit", "resumed_tiers": self.resumed,
            "seconds": {"graph": round(self.seconds_graph, 3), "ranks": round(self.seconds_ranks, 3), "write": round(self.seconds_write, 3)},
            "ranks": [
                {"rank": r, "draws": n, "settles_in": [tier_name(t) for t in self.secvals.tiers_worth(r)]}
                for r, n in sorted(self.histogram.items())
            ],
        }


def rank_database(path: Path, limit: int | None = None, echo=lambda s: None, explicit: bool = False,
                  fresh: bool = False) -> RankSummary:
    """Compute the draw ranks of the whole-game database at ``path`` and store them in it (the
    caller holds the writer lock). The strong values are copied, never rewritten. Without a graph
    unless ``explicit`` or tiers with men in hand cycle; then a tier already ranked with the same
    sector values (a killed run's) is kept unless ``fresh``."""
    from ..storage.files import main_file
    from ..storage.ranks import secvals_tag, stored_tier_attrs, write_main_ranks
    from .secval import database_stats, sector_values

    path = Path(path)
    with Database(path) as db:
        est = check_rankable(db, limit, explicit)
        rules = db.rules
        infos = {i.tier: i for i in db.tiers()}
        secvals = sector_values(rules, database_stats(db))
        tag = secvals_tag(secvals.secval_text())
        t0 = time.perf_counter()
        if est.implicit:
            resumed = _rank_implicit(path, db, infos, secvals, tag, echo, fresh)
            edges, t1 = None, t0
        else:
            resumed, (edges, t1) = 0, _rank_explicit(path, db, infos, secvals, tag, echo)
        t2 = time.perf_counter()
    created = main_file(path)[1]
    total: dict[int, int] = {}
    for info in infos.values():
        for r, n in json.loads(stored_tier_attrs(path, info.name)["ranks"]).items():
            total[int(r)] = total.get(int(r), 0) + n
    write_main_ranks(path, rules, created, secvals.secval_text(), time.perf_counter() - t0)
    t3 = time.perf_counter()
    return RankSummary(str(path), len(infos), est.draws, edges, t1 - t0, t2 - t1, t3 - t2, total, secvals, resumed)


def _rank_implicit(path, db, infos, secvals, tag, echo, fresh) -> int:
    """``whole.rank_game`` writing each tier as it is finished and reading back what a later
    group needs; returns the number of tiers an earlier run had finished (skipped)."""
    from ..storage.ranks import finished_tiers, stored_tier_ranks, write_tier_ranks
    from .implicit import flip_below
    from .whole import rank_game

    rules = db.rules
    by_name = {info.name: t for t, info in infos.items()}
    done = set() if fresh else {by_name[n] for n in finished_tiers(path, list(by_name), tag)}
    if done:
        echo(f"resuming: {len(done)} of {len(infos)} tiers were ranked by an earlier run")

    def sink(t, rank, tempo):
        own = secvals.values[t]
        depth = tempo.copy()
        flip_below(rank, depth, own)
        write_tier_ranks(path, rules, infos[t].name, rank, depth, own, tag)

    def load(t):
        rank, depth = stored_tier_ranks(path, infos[t].name)
        flip_below(rank, depth, secvals.values[t])  # (the depth back to the tempo)
        return rank, depth

    try:
        rank_game(db, rules, secvals, sink=sink, load=load, done=done, echo=echo)
    except ValueError as e:  # a tier the game moves into is missing
        raise DatabaseError(f"{path} is not a whole game: {e}") from None
    return len(done)


def _rank_explicit(path, db, infos, secvals, tag, echo) -> tuple[int, float]:
    """The draw graph, Malom's analysis over it, every tier written; returns (drawing moves,
    the time the graph was done)."""
    from ..storage.ranks import write_tier_ranks
    from .graph import draw_graph
    from .ranks import rank_draws

    rules = db.rules
    t0 = time.perf_counter()
    try:
        graph = draw_graph(db, rules)
    except ValueError as e:  # a tier the game moves into is missing
        raise DatabaseError(f"{path} is not a whole game: {e}") from None
    t1 = time.perf_counter()
    echo(f"draw graph: {graph.nodes:,} draws, {graph.children.size:,} drawing moves in {t1 - t0:.1f} s")
    ranks = rank_draws(graph, rules, secvals)
    echo(f"ranks: {time.perf_counter() - t1:.1f} s")
    for t in graph.tiers:
        info = infos[t]
        rank, depth = ranks.slot_arrays(t, info.slots)
        write_tier_ranks(path, rules, info.name, rank, depth, secvals.values[t], tag)
    return int(graph.children.size), t1
