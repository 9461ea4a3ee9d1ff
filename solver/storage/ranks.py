"""Draw ranks (ultra-strong play, ``solver.ultra``) beside the strong values: writing and reading.

Layout (the README's "Database layout" says the same for h5py users), optional, added by
``morris rank`` to a database solved with ``--whole-game``:

    X.h5                        main file attrs: ultra_format = 1, ultra_secval (Malom's .secval
                                text of every tier: the virtual win and loss values, then each
                                tier's sector value), ultra_code_version, ultra_created, ultra_seconds
    X.h5.d/<name>.h5
      /subspaces/<name>         the strong values, copied as they were (chunks and attrs untouched)
      /ultra/<name>/rank        int16[slots]: a draw's rank, the sector value (from the side to move's
                                view) of the tier where it settles; NO_RANK (0x7FFF) where the slot
                                is no draw (a win, a loss, or no position)
      /ultra/<name>/depth       int16[slots]: Malom's key2 relative to the tier's own value (0 where
                                the rank is that value, and where there is no draw)
        attrs on /ultra/<name>: secval (the tier's own sector value), draws, ranks (JSON: rank ->
                                draws), checksum ("sha256:" over rank then depth, little-endian
                                int16), code_version, secvals (``secvals_tag``: "sha256:" of
                                the main file's ultra_secval text they were computed with)

Both datasets are chunked like the values (65,536 slots, gzip + shuffle: ``writer.chunked_dataset``). A tier's file is
rewritten whole under a temporary name and renamed (``writer.write_atomic``); the strong dataset
is copied by HDF5's object copy, its compressed chunks and its checksum as they were. The main
file is written last: a database whose main file lacks ``ultra_secval`` has no ranks, whatever its
tier files hold: a later solve writes a new main file without them (the sector values depend on
every tier's statistics), and ``morris rank`` must run again. Ranks whose ``ultra_secval`` lists
other tiers than the database holds are stale and not read.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError
from ..rules.rulesets import RuleSet
from .files import code_version, open_h5, subspace_file
from .writer import chunked_dataset, write_atomic, write_header, write_main

ULTRA_FORMAT = 1
NO_RANK = 0x7FFF  # (solver.ultra.ranks.NO_RANK)
MAIN_ATTRS = ("ultra_format", "ultra_secval", "ultra_code_version", "ultra_created", "ultra_seconds")


def parse_secval_text(text: str) -> tuple[int, int, list[tuple[int, int, int, int, int]]]:
    """The ``ultra_secval`` attribute (Malom's ``.secval`` text) read back: (virtual loss value,
    virtual win value, rows (a, b, ha, hb, sector value) in the file's order). ValueError for a
    text that is not one."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    try:
        if lines[0][0] != "virt_loss_val:" or lines[1][0] != "virt_win_val:":
            raise ValueError("no virt_loss_val/virt_win_val header")
        virt_loss, virt_win, n = int(lines[0][1]), int(lines[1][1]), int(lines[2][0])
        rows = [tuple(int(x) for x in row) for row in lines[3:]]
        if len(rows) != n or any(len(r) != 5 for r in rows):
            raise ValueError(f"{n} sectors announced, {len(rows)} lines of 5 numbers found")
    except (IndexError, ValueError) as e:
        raise ValueError(f"not a .secval text: {e}") from None
    return virt_loss, virt_win, rows


def ranks_checksum(rank: np.ndarray, depth: np.ndarray) -> str:
    h = hashlib.sha256(np.ascontiguousarray(rank, dtype="<i2"))  # (the array's buffer: no copy)
    h.update(np.ascontiguousarray(depth, dtype="<i2"))
    return "sha256:" + h.hexdigest()


def histogram(rank: np.ndarray, part: int = 1 << 24) -> dict[int, int]:
    """Draws per rank (the ``NO_RANK`` slots left out), ``part`` slots at a time (a 9-men tier's
    temporary arrays would be gigabytes)."""
    out: dict[int, int] = {}
    for lo in range(0, rank.shape[0], part):
        piece = rank[lo : lo + part]
        r, n = np.unique(piece[piece != NO_RANK], return_counts=True)
        for a, b in zip(r.tolist(), n.tolist()):
            out[a] = out.get(a, 0) + b
    return dict(sorted(out.items()))


def secvals_tag(secval_text: str) -> str:
    """The ``secvals`` attribute of a tier's ranks: which sector values they were computed with."""
    return "sha256:" + hashlib.sha256(secval_text.encode()).hexdigest()


def write_tier_ranks(path: Path, rules: RuleSet, name: str, rank: np.ndarray, depth: np.ndarray, secval: int,
                     tag: str = "") -> None:
    """Rewrite tier ``name``'s file with its ranks beside its strong values (copied untouched);
    ``tag``: ``secvals_tag`` of the sector values they were computed with (a rerun after a kill
    keeps the tiers that carry the same: ``finished_tiers``)."""
    final = subspace_file(path, name)
    if not final.exists():
        raise DatabaseError(f"{path}: tier {name} has no file of its own at {final} (run morris solve once to migrate it)")

    def fill(f: h5py.File) -> None:
        with open_h5(final) as src:
            write_header(f, rules, str(src.attrs.get("created", "")) or None)
            src.copy(src["subspaces"][name], f["subspaces"], name)
        group = f.require_group("ultra").create_group(name)
        for key, data in (("rank", rank), ("depth", depth)):
            chunked_dataset(group, key, data.shape[0], np.int16, data=np.ascontiguousarray(data, dtype=np.int16))
        hist = histogram(rank)
        group.attrs["secval"] = int(secval)
        group.attrs["draws"] = int(sum(hist.values()))
        group.attrs["ranks"] = json.dumps(hist)
        group.attrs["checksum"] = ranks_checksum(rank, depth)
        group.attrs["code_version"] = code_version()
        group.attrs["secvals"] = tag

    write_atomic(final, fill)


def stored_tier_ranks(path: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(rank, depth) of tier ``name`` as ``write_tier_ranks`` stored them, whatever the main file
    says (a run in progress writes its main file last)."""
    file = subspace_file(path, name)
    with open_h5(file) as f:
        group = read_tier_ranks(f, name, file)
        return group["rank"][...], group["depth"][...]


def stored_tier_attrs(path: Path, name: str) -> dict | None:
    """The attributes of tier ``name``'s ranks (``write_tier_ranks``), or None where it has none."""
    file = subspace_file(path, name)
    if not file.exists():
        return None
    with open_h5(file) as f:
        group = f.get(f"ultra/{name}")
        if not isinstance(group, h5py.Group) or "rank" not in group or "depth" not in group:
            return None
        return dict(group.attrs)


def finished_tiers(path: Path, names: list[str], tag: str) -> set[str]:
    """Those of ``names`` whose files hold ranks computed with the sector values ``tag``
    (``secvals_tag``): what an earlier run of ``morris rank`` finished."""
    return {name for name in names if (stored_tier_attrs(path, name) or {}).get("secvals") == tag}


def write_main_ranks(path: Path, rules: RuleSet, created: str | None, secval_text: str, seconds: float) -> None:
    """A new main file (the same links) carrying the ranks' attributes: written after every tier's."""
    write_main(
        path, rules, created,
        extra={
            "ultra_format": ULTRA_FORMAT, "ultra_secval": secval_text, "ultra_code_version": code_version(),
            "ultra_created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "ultra_seconds": float(seconds),
        },
    )


def read_tier_ranks(f: h5py.File, name: str, file: Path) -> h5py.Group:
    """The ``/ultra/<name>`` group of a tier file; DatabaseError where it has none."""
    group = f.get("ultra")
    group = group.get(name) if isinstance(group, h5py.Group) else None
    if not isinstance(group, h5py.Group) or "rank" not in group or "depth" not in group:
        raise DatabaseError(f"{file} holds no draw ranks for tier {name} though the main file lists them (run morris rank again)")
    return group
