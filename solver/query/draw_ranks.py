"""Draw ranks (``morris rank``, ``solver.ultra``) read beside the values: which tiers a rank is
worth, and a drawing move's rank, depth and tempo for its mover."""

from __future__ import annotations

from ..errors import NoRanksError
from ..storage.database import Database


def stored_ranks(db: Database):
    """(``db.ranks_state()``: "ranked", "none" or "stale"; the sector values of the ranks,
    ``ultra.secval.SectorValues``, where ranked, else None)."""
    state = db.ranks_state()
    if state != "ranked":
        return state, None
    from ..ultra.secval import stored_secvals

    return state, stored_secvals(db)


def no_ranks_error(path, state: str) -> NoRanksError:
    """One line naming the database and the command, for a database that holds no (fresh) ranks."""
    why = "ranks computed before its last solve (stale)" if state == "stale" else "no draw ranks"
    return NoRanksError(f"{path} holds {why}; ultra-strong play needs them (compute them with: morris rank --db {path})")


def settles_in(secvals, rank: int) -> tuple[str, ...]:
    """The tiers worth ``rank`` (where a draw of that rank settles), from the side's view."""
    from ..tiers import tier_name

    return tuple(tier_name(t) for t in secvals.tiers_worth(rank))


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def move_rank(own: int, rank_after: int, depth_after: int, secval_after: int) -> tuple[int, int, int]:
    """(rank, depth, tempo) of a drawing move for its mover (``ultra.ranks.move_value``), from
    its successor's rank, depth and tier's sector value and the sector value ``own`` of the
    mover's tier: the successor's rank negated, its tempo (depth signed by the rank against its
    own tier's value) negated and one ply added towards the mover's own tier's value."""
    tempo_after = depth_after * _sign(rank_after - secval_after)
    r = -rank_after
    t = 0 if r == own else -tempo_after + _sign(r - own)
    return r, t * _sign(r - own), t
