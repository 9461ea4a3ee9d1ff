"""Every HDF5 file the package writes, through one writer: the database's subspace and main files
(``write_subspace``, ``copy_subspace``, ``write_main``), and the pieces that the history rule's
writer (``history.write``), the draw ranks (``storage.ranks``) and the opening books
(``books.build``) put together:

- ``write_atomic(final, fill)``: ``fill`` writes into an open ``h5py.File`` under a temporary name
  beside ``final`` (``.<name>.<pid>.tmp``), which is fsynced and renamed over ``final``: a file
  under a real name is complete (``remove_temporaries`` clears what a kill left);
- ``write_header(f, rules, created)``: the root attributes every file of the format carries
  (``files``' layout) and its ``subspaces`` group;
- ``chunked_dataset(group, name, n, dtype)``: a 1-D dataset chunked, gzip + shuffle, left empty
  for ``chunks.write_values`` (or direct chunks) to fill, or given its ``data``;
- ``write_dataset(group, name, values, stats)``: a subspace's values, their statistics and their
  checksum (``write_stats`` alone where values and checksum come from elsewhere).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np

from ..rules.rulesets import RuleSet
from ..tiers import parse_tier
from . import chunks
from .files import (
    CHUNK,
    FORMAT,
    FORMAT_VERSION,
    HISTORY_FORMAT,
    HISTORY_STAT_KEYS,
    INDEX_SCHEME,
    STAT_KEYS,
    code_version,
    history_checksum,
    is_history,
    link_target,
    open_h5,
    parts_dir,
    subspace_dir,
    subspace_file,
    subspace_files,
    subspace_name,
)


def fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)  # a folder too: that makes a rename in it durable
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temporary(final: Path) -> Path:
    # The process id keeps two processes apart (cluster workers may write the same subspace when
    # a task is redone after its worker was lost), so neither renames the other's unfinished file.
    return final.with_name(f".{final.name}.{os.getpid()}.tmp")


def write_atomic(final: Path, fill: Callable[[h5py.File], None]) -> None:
    """Write an HDF5 file under a temporary name, fsync it, rename it to ``final``."""
    tmp = _temporary(final)
    try:
        with h5py.File(tmp, "w") as f:
            fill(f)
        fsync_path(tmp)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_path(final.parent)


def remove_temporaries(path: Path) -> None:
    """Remove the temporary files that a kill left beside the database at ``path`` and in its folders."""
    stale = list(path.parent.glob(f".{path.name}.*tmp")) if path.parent.is_dir() else []
    for folder in (subspace_dir(path), parts_dir(path)):
        if folder.is_dir():
            stale += [p for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    for p in stale:
        p.unlink(missing_ok=True)


def write_header(f: h5py.File, rules: RuleSet, created: str | None = None) -> None:
    """The root attributes of a file of the format (``created``: now, unless given) and its
    ``subspaces`` group."""
    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = FORMAT_VERSION
    f.attrs["rules"] = json.dumps(rules.to_dict(), sort_keys=True)
    f.attrs["index_scheme"] = INDEX_SCHEME
    f.attrs["code_version"] = code_version()
    f.attrs["created"] = created or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    f.require_group("subspaces")


def chunked_dataset(group: h5py.Group, name: str, n: int, dtype, *, data: np.ndarray | None = None,
                    chunk: int = CHUNK, level: int = chunks.LEVEL) -> h5py.Dataset:
    """A dataset of n values, chunks of ``chunk``, gzip at ``level`` + shuffle: empty, what
    ``chunks.write_values`` fills (HDF5 would write with ``level``; chunks.py writes ISA-L), or
    holding ``data``, compressed by HDF5 itself."""
    return group.create_dataset(
        name,
        shape=(n,),
        dtype=dtype,
        data=data,
        chunks=(min(chunk, max(1, n)),),
        compression="gzip",
        compression_opts=level,
        shuffle=True,
    )


def _chunked(group: h5py.Group, name: str, values: np.ndarray) -> tuple[h5py.Dataset, str]:
    """``values`` as a chunked dataset (gzip + shuffle, ``chunks.write_values``) and its checksum."""
    ds = chunked_dataset(group, name, values.shape[0], values.dtype)
    return ds, chunks.write_values(ds, values)


def write_stats(ds: h5py.Dataset, stats: dict, checksum: str) -> None:
    """A subspace dataset's attributes: ``STAT_KEYS`` from ``stats`` (the men in hand 0 where
    absent: the moving phase) and its ``checksum``."""
    for key in STAT_KEYS:
        ds.attrs[key] = stats.get(key, 0) if key.endswith("_hand") else stats[key]
    ds.attrs["checksum"] = checksum


def write_dataset(group: h5py.Group, name: str, values: np.ndarray, stats: dict) -> None:
    """A subspace's values as ``group[name]``, with its statistics and checksum (``write_stats``)."""
    ds, digest = _chunked(group, name, values)
    write_stats(ds, stats, digest)


def write_history(f: h5py.File, rules: RuleSet, name: str, side: dict) -> None:
    """``/history/<name>``: the keys and values of the states with a record, and their tallies
    (``side``: keys, values and HISTORY_STAT_KEYS)."""
    g = f.require_group("history").create_group(name)
    keys = np.ascontiguousarray(side["keys"], dtype=np.int64)
    values = np.ascontiguousarray(side["values"], dtype=np.uint16)
    _chunked(g, "keys", keys)
    _chunked(g, "values", values)
    g.attrs["history_format"] = HISTORY_FORMAT
    g.attrs["reclose"] = rules.reclose
    g.attrs["keys"] = len(keys)
    for key in HISTORY_STAT_KEYS:
        g.attrs[key] = side[key]
    g.attrs["checksum"] = history_checksum(keys, values)


def write_subspace(path: Path, rules: RuleSet, values: np.ndarray, stats: dict, side: dict | None = None) -> None:
    """One subspace's file; ``side``: its history-rule side table (``write_history``), which a
    moving subspace of a history database must have."""
    name = subspace_name(stats["mover"], stats["opponent"], stats.get("mover_hand", 0), stats.get("opponent_hand", 0))
    moving = not (stats.get("mover_hand", 0) or stats.get("opponent_hand", 0))
    if (side is not None) != (is_history(rules) and moving):
        raise ValueError(f"subspace {name}: a history rule's moving subspace, and it alone, has a side table")

    def fill(f: h5py.File) -> None:
        write_header(f, rules)
        write_dataset(f["subspaces"], name, values, stats)
        if side is not None:
            write_history(f, rules, name, side)

    write_atomic(subspace_file(path, name), fill)


def copy_subspace(path: Path, rules: RuleSet, name: str, source: Path) -> None:
    """Copy subspace ``name`` from ``source`` (a subspace file, or a version 1 main or part file)
    into its own subspace file of the database at ``path``, compressed chunks as they are."""

    def fill(f: h5py.File) -> None:
        with open_h5(source) as src:
            write_header(f, rules, str(src.attrs.get("created", "")) or None)
            src.copy(src["subspaces"][name], f["subspaces"], name)
            if "history" in src and name in src["history"]:
                src.copy(src["history"][name], f.require_group("history"), name)

    write_atomic(subspace_file(path, name), fill)


def write_main(path: Path, rules: RuleSet, created: str | None, extra: dict | None = None) -> None:
    """A new main file linking every subspace file in ``X.h5.d/``, renamed over the old one, with
    the root attributes ``extra`` (``morris rank``'s ``ultra_*``, ``storage.ranks``) besides the
    header: a solve writes none, so the draw ranks of a database it adds to are dropped (they
    depend on every tier's statistics) until ``morris rank`` runs again."""
    names = sorted(subspace_files(path))
    extra = extra or {}

    def fill(f: h5py.File) -> None:
        write_header(f, rules, created)
        for key, value in extra.items():
            f.attrs[key] = value
        for name in names:
            f["subspaces"][name] = h5py.ExternalLink(link_target(path, name), f"/subspaces/{name}")
            if is_history(rules) and not any(parse_tier(name)[2:]):
                f.require_group("history")[name] = h5py.ExternalLink(link_target(path, name), f"/history/{name}")

    write_atomic(path, fill)
