"""The bytes a whole-game solve has still to write, from its dry run's JSON lines: what
``tools/disk_check.py`` sets against the free space before a long solve starts. An estimate: the
stored bytes a position vary with the game."""

from __future__ import annotations

from pathlib import Path

from solver.storage.files import subspace_dir

from .plan import DEFLATED_BYTES_PER_POSITION

# the history rule's database (plain slots, then a side table of keys): 59,303,883 bytes for the
# 85,617,340 states of Viking with the same-man ban to 5 men, 0.69 a state
HISTORY_BYTES_PER_STATE = 0.69


def written_bytes(db: Path) -> int:
    """The bytes the database's main file and subspace files take so far."""
    files = [db, *subspace_dir(db).glob("*")]
    return sum(f.stat().st_size for f in files if f.is_file())


def need_bytes(events: list[dict], db: Path, placing_positions: int = 0) -> int:
    """The bytes still to write, from the dry run's JSON lines (``placing_positions``: under the
    history rule, the placing phase's, which its plan leaves out)."""
    need = 0
    for e in events:
        if e.get("event") in ("plan", "placing plan") and "positions_to_solve" in e:
            need += int(e["positions_to_solve"] * DEFLATED_BYTES_PER_POSITION)
        elif e.get("event") == "plan" and "states" in e:
            # the history rule: its plan counts every state, solved or not; the placing phase's
            # plain positions follow, stored as the plain games store theirs; a group's saved
            # levels twice while a save replaces the last
            whole = e["states"] * HISTORY_BYTES_PER_STATE + placing_positions * DEFLATED_BYTES_PER_POSITION
            need += max(0, int(whole) - written_bytes(db)) + 2 * int(e.get("checkpoint_bytes", 0))
    return need
