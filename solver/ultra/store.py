"""``morris rank``'s work: a whole game's draw ranks computed and written beside its strong values.

``check_rankable`` refuses, before any memory is spent, a database that is not a whole game or
whose draw graph would not fit in memory; ``rank_database`` computes the sector values and the
ranks (``ranks.database_draw_ranks``'s steps) and writes them (``storage.ranks``), tier by tier,
then the main file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import DatabaseError, PlanError
from ..storage.database import Database
from ..tiers import tier_name

# What the in-memory graph costs a draw: 5.0 GiB for the 5,790,254 draws (80.7 M drawing moves)
# of the standard board with 4 men a side (docs/ultra-strong.md), rounded up; plus the strong
# values of every tier, held together while the graph is built (2 bytes a slot).
BYTES_PER_DRAW = 1024
BYTES_PER_SLOT = 2


def machine_memory() -> int:
    import os

    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


@dataclass
class Estimate:
    draws: int
    slots: int
    tiers: int

    @property
    def bytes(self) -> int:
        return self.draws * BYTES_PER_DRAW + self.slots * BYTES_PER_SLOT


def gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


def check_rankable(db: Database, limit: int | None = None) -> Estimate:
    """The memory estimate of ranking ``db``; DatabaseError where it is not a whole game (the
    start's tier missing: ranks need every tier a game reaches) or an opening book, PlanError
    where the estimate exceeds ``limit`` (default: this machine's memory)."""
    rules = db.rules
    start = (0, 0, rules.men, rules.men)
    if db.book_min_hand is not None:
        raise DatabaseError(f"{db.path} is an opening book, not a whole game: ranks need every tier a game reaches")
    if start not in db.tier_keys():
        raise DatabaseError(
            f"{db.path} is not a whole game (no tier {tier_name(start)}): ranks need every tier a game reaches "
            f"(solve it with: morris solve --whole-game --db {db.path})"
        )
    infos = db.tiers()
    est = Estimate(sum(i.draw for i in infos), sum(i.slots for i in infos), len(infos))
    limit = machine_memory() if limit is None else limit
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
    edges: int
    seconds_graph: float
    seconds_ranks: float
    seconds_write: float
    histogram: dict[int, int]  # rank -> draws, over every tier
    secvals: object  # SectorValues

    def to_dict(self) -> dict:
        return {
            "database": self.database, "tiers": self.tiers, "draws": self.draws, "edges": self.edges,
            "seconds": {"graph": round(self.seconds_graph, 3), "ranks": round(self.seconds_ranks, 3), "write": round(self.seconds_write, 3)},
            "ranks": [
                {"rank": r, "draws": n, "settles_in": [tier_name(t) for t in self.secvals.tiers_worth(r)]}
                for r, n in sorted(self.histogram.items())
            ],
        }


def rank_database(path: Path, limit: int | None = None, echo=lambda s: None) -> RankSummary:
    """Compute the draw ranks of the whole-game database at ``path`` and store them in it (the
    caller holds the writer lock). The strong values are copied, never rewritten."""
    from ..storage.files import main_file
    from ..storage.ranks import NO_RANK, histogram, write_main_ranks, write_tier_ranks
    from .graph import draw_graph
    from .ranks import rank_draws
    from .secval import database_stats, sector_values

    path = Path(path)
    with Database(path) as db:
        check_rankable(db, limit)
        rules = db.rules
        infos = {i.tier: i for i in db.tiers()}
        secvals = sector_values(rules, database_stats(db))
        t0 = time.perf_counter()
        try:
            graph = draw_graph(db, rules)
        except ValueError as e:  # a tier the game moves into is missing
            raise DatabaseError(f"{path} is not a whole game: {e}") from None
        t1 = time.perf_counter()
        echo(f"draw graph: {graph.nodes:,} draws, {graph.children.size:,} drawing moves in {t1 - t0:.1f} s")
        ranks = rank_draws(graph, rules, secvals)
        t2 = time.perf_counter()
        echo(f"ranks: {t2 - t1:.1f} s")
    created = main_file(path)[1]
    total: dict[int, int] = {}
    for t in graph.tiers:
        info = infos[t]
        rank, depth = ranks.slot_arrays(t, info.slots)
        write_tier_ranks(path, rules, info.name, rank, depth, secvals.values[t])
        for r, n in histogram(rank).items():
            total[r] = total.get(r, 0) + n
    t3 = time.perf_counter()
    write_main_ranks(path, rules, created, secvals.secval_text(), t3 - t0)
    t4 = time.perf_counter()
    return RankSummary(str(path), len(graph.tiers), graph.nodes, int(graph.children.size), t1 - t0, t2 - t1, t4 - t2, total, secvals)
