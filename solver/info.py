"""What a solved database holds, from Python (``morris info``): each tier's statistics as stored
with it (the side table's attributes under the history rule), the draw ranks ``morris rank``
stored and the game's value. The HDF5 attributes are read here, so the CLI only prints."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .rules.rulesets import RuleSet


@dataclass
class DatabaseInfo:
    """``rules`` (as the database stores them), ``rows`` (a dict of statistics per tier, with
    ``states`` and ``history`` under the history rule), ``ranks`` (``rank_distribution``, None
    without ranks) and ``start`` (``query.game_value``: None where the database lacks the start)."""

    rules: RuleSet
    rows: list[dict]
    ranks: dict | None
    start: object | None


def database_info(path, rules: RuleSet) -> DatabaseInfo:
    """The statistics, draw ranks and game value of the database at ``path``."""
    from .query import game_value
    from .storage.database import Database

    with Database(path, rules) as db:
        rows = [
            {
                "mover": s.mover, "opponent": s.opponent, "mover_hand": s.mover_hand, "opponent_hand": s.opponent_hand,
                "positions": s.positions, "win": s.win, "draw": s.draw,
                "loss": s.loss, "max_win": s.max_win, "max_loss": s.max_loss, "max_plies": s.max_plies,
                "slots": s.slots, "bytes": s.bytes_on_disk, "seconds": s.seconds, "cpu_seconds": s.cpu_seconds, "checksum": s.checksum,
            }
            for s in db.tiers()
        ]
        for r, s in zip(rows, db.tiers()):
            if s.history is not None:  # the history rule: every state, and the side table's attrs
                r["states"] = int(s.history["states"])
                r["history"] = {k: v.item() if hasattr(v, "item") else v for k, v in s.history.items()}
        rules = db.rules
        ranks = rank_distribution(db)
    return DatabaseInfo(rules, rows, ranks, game_value(path, rules))


def rank_distribution(db) -> dict | None:
    """The draws of each rank, over the database and per tier (the attributes ``morris rank``
    stored with each tier's ranks); None where the database holds none."""
    from .tiers import tier_name

    state = db.ranks_state()
    if state == "none":
        return None
    if state == "stale":
        return {"state": state}
    from .ultra.secval import stored_secvals

    sv = stored_secvals(db)
    per_tier, total = {}, {}
    for s in db.tiers():
        hist = {int(r): int(n) for r, n in json.loads(db.rank_group(*s.tier).attrs["ranks"]).items()}
        per_tier[s.name] = {str(r): n for r, n in sorted(hist.items())}
        for r, n in hist.items():
            total[r] = total.get(r, 0) + n
    return {
        "state": state, "virt_win": sv.virt_win, "virt_loss": sv.virt_loss,
        "secvals": {tier_name(t): v for t, v in sv.values.items()},
        "distribution": [
            {"rank": r, "draws": n, "settles_in": [tier_name(t) for t in sv.tiers_worth(r)]} for r, n in sorted(total.items())
        ],
        "tiers": per_tier,
    }
