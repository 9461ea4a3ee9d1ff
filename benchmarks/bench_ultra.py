"""Ultra-strong against strong play, measured by games against fallible players (issue 22).

    python benchmarks/bench_ultra.py --db data/six.h5 --games 1000 --json tests/data/results/ultra_six.json

On a whole-game database (Six Men's Morris by default), the database's play, strong (the first
strongly optimal move) or ultra-strong (among draws the best-ranked, ``morris rank``), plays
against players that err (``solver.ultra.playout``): NOISY(p) plays a uniformly random legal move
with probability p and a random strongly optimal move otherwise; SEARCH(d) is a d-ply alpha-beta
searcher scoring men and mobility. Each cell plays ``--games`` games from one kind of start: the
start of the game, or a drawn position drawn uniformly from all the database's drawn positions
(whole game: every tier); the tested side moves first in half of them. Strong and ultra play the
same starts with the same seeds. A game is a draw at the third occurrence of a position or after
``--max-plies`` plies. Reported: win/draw/loss rates with 95% Wilson intervals, and the
difference of the win rates (ultra - strong) with a two-sided two-proportion z-test.

The database is only read: without ranks it is copied to a temporary folder and ranked there.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from solver.index import board_index
from solver.rules.tables import game_tables
from solver.storage.database import Database
from solver.ultra import playout

OPPONENTS = ["noisy:0.05", "noisy:0.1", "noisy:0.2", "noisy:0.5", "search:2", "search:3"]


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def two_proportion_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of the z-test that two proportions are equal."""
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    z = abs(k1 / n1 - k2 / n2) / se
    return math.erfc(z / math.sqrt(2))


def ranked_copy(db_path: Path, folder: Path) -> Path:
    """``db_path`` itself where it holds ranks, else a ranked copy in ``folder``."""
    with Database(db_path) as db:
        if db.ranks_state() == "ranked":
            return db_path
    from solver.storage.write import copy_database
    from solver.ultra.store import rank_database

    copy = folder / db_path.name
    copy_database(db_path, copy)
    rank_database(copy)
    return copy


def drawn_starts(db: Database, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` drawn positions drawn uniformly from every tier's draws: rows (mover, opponent,
    mover's hand, opponent's hand)."""
    index = board_index(db.rules.board)
    tiers, draws = [], []
    for info in db.tiers():
        slots = np.flatnonzero(db.values(*info.tier) == 0)
        if slots.size:
            tiers.append(info.tier)
            draws.append(slots)
    sizes = np.array([d.size for d in draws])
    pick = rng.choice(sizes.sum(), size=n, replace=True)
    bounds = np.cumsum(sizes)
    out = np.zeros((n, 4), dtype=np.int64)
    for i, k in enumerate(pick):
        t = int(np.searchsorted(bounds, k, side="right"))
        slot = draws[t][k - (bounds[t - 1] if t else 0)]
        a, b, ha, hb = tiers[t]
        mover, opp, _ = index.unrank_many(a, b, np.array([slot]))
        out[i] = (int(mover[0]), int(opp[0]), ha, hb)
    return out


def cell(results: np.ndarray, how: np.ndarray, plies: np.ndarray) -> dict:
    n = int(results.size)
    out = {"games": n, "mean_plies": round(float(plies.mean()), 1), "repetitions": int((how == playout.REPETITION).sum()), "capped": int((how == playout.CAP).sum())}
    for name, v in (("win", playout.WIN), ("draw", playout.DRAW), ("loss", playout.LOSS)):
        k = int((results == v).sum())
        lo, hi = wilson(k, n)
        out[name] = {"count": k, "rate": round(k / n, 4), "ci95": [round(lo, 4), round(hi, 4)]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, default=Path("data/six.h5"))
    ap.add_argument("--games", type=int, default=1000, help="games a cell (opponent x start x strength)")
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--opponents", default=",".join(OPPONENTS), help=f"comma-separated [default: {','.join(OPPONENTS)}]")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = ranked_copy(args.db, Path(tmp))
        with Database(path) as db:
            rules = db.rules
            tabs = playout.tables(db)
            starts = {
                "start": np.tile(np.array([[0, 0, rules.men, rules.men]], dtype=np.int64), (args.games, 1)),
                "drawn": drawn_starts(db, args.games, rng),
            }
    g = game_tables(rules)
    ix = board_index(rules.board).tables
    first = (np.arange(args.games) % 2 == 0)
    seeds = rng.integers(0, 2**31 - 1, size=args.games)
    rows = []
    t0 = time.perf_counter()
    for opponent in args.opponents.split(","):
        what, arg = opponent.split(":")
        other = playout.NOISY if what == "noisy" else playout.SEARCH
        p = float(arg) if other == playout.NOISY else 0.0
        depth = int(arg) if other == playout.SEARCH else 1
        for start_kind, st in starts.items():
            row = {"opponent": opponent, "start": start_kind}
            for strength, tested in (("strong", playout.STRONG), ("ultra", playout.ULTRA)):
                res, plies, how = playout.play_games(st, first, tested, other, p, depth, seeds, args.max_plies, g, ix, *tabs)
                row[strength] = cell(res, how, plies)
            s, u = row["strong"], row["ultra"]
            n = args.games
            row["win_difference"] = round(u["win"]["rate"] - s["win"]["rate"], 4)
            row["win_p_value"] = two_proportion_p(u["win"]["count"], n, s["win"]["count"], n)
            row["loss_p_value"] = two_proportion_p(u["loss"]["count"], n, s["loss"]["count"], n)
            rows.append(row)
            print(
                f"{opponent:>11} {start_kind:>5}  strong W/D/L {s['win']['rate']:.3f}/{s['draw']['rate']:.3f}/{s['loss']['rate']:.3f}"
                f"  ultra {u['win']['rate']:.3f}/{u['draw']['rate']:.3f}/{u['loss']['rate']:.3f}"
                f"  win diff {row['win_difference']:+.3f} (p = {row['win_p_value']:.2g})  [{time.perf_counter() - t0:.0f} s]",
                flush=True,
            )
    out = {
        "rules": rules.describe(), "database": str(args.db), "games_per_cell": args.games, "max_plies": args.max_plies,
        "seed": args.seed, "draw_rule": f"third occurrence of a position, or {args.max_plies} plies",
        "command": "python benchmarks/bench_ultra.py " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if v is not None and k != "json"
        ) + (f" --json {args.json}" if args.json else ""),
        "cells": rows,
    }
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
