"""HDF5 databases: a small main file per rule set, and one file per subspace beside it.

Layout (format version 3; the README's "Database layout" section says the same for h5py users):

    X.h5                        the main file
      /                         attrs: format="morris-db", format_version, rules (JSON),
                                       index_scheme, code_version, created
      /subspaces/<name>         an HDF5 external link to /subspaces/<name> in "X.h5.d/<name>.h5"
                                (relative: HDF5 looks for it beside the main file, from any working
                                directory, so the file and its folder can move together)
      /history/<name>           (the history rule only) a link to /history/<name> in the same file
    X.h5.d/<name>.h5            one subspace: the same root attrs, and
      /subspaces/<name>         uint16[slots], chunked, gzip + shuffle; attrs: mover, opponent,
                                mover_hand, opponent_hand, positions, slots, win, draw, loss,
                                max_win, max_loss, max_plies, seconds, cpu_seconds, checksum
                                ("sha256:<hex>" of the little-endian values)
      /history/<name>           under the history rule (rules' reclose is not "allowed"; issue 23,
                                docs/history-rule.md), in the file of each moving subspace only:
                                its states with a ban or a pending ban, beside the plain positions
                                that /subspaces/<name> holds as in any database:
        keys                    int64[states with a record], ascending: slot << 20 | ban << 10 |
                                pending (the record codes of solver.history.records)
        values                  uint16[the same], the value of the state of keys[i] (solver.values'
                                codes); both chunked, gzip + shuffle like the values
                                attrs: history_format, reclose, states (positions + keys), keys,
                                win, draw, loss, max_win, max_loss (over every state, the positions
                                included), checksum ("sha256:<hex>" of the keys as little-endian
                                int64, then the values as little-endian uint16)

A subspace is a tier (a, b, ha, hb): men on the board of the side to move and of the opponent,
then the men each holds in hand; <name> is ``a-b`` in the moving phase (no men in hand) and
``a-b-ha-hb`` otherwise. Format version 3 added the tiers with men in hand (and the two hand
attributes, read as 0 where a file lacks them); versions 1 and 2 hold the moving phase only.

Adding a solved pair (``add_subspaces``) writes its one or two subspace files and then a new main
file that links every subspace file in ``X.h5.d/``: nothing written before is read or copied
again, so a run writes each subspace once.

Crash safety: every file is written under a temporary name (``.<name>.<pid>.tmp`` in the same folder),
fsynced and renamed over its real name, so a file under a real name is complete; temporary files
are never read, and the next writer removes them. A kill between a subspace file and the main file
leaves a subspace file not yet linked: ``Database`` reads the main file's links and every subspace
file in ``X.h5.d/``, and the next ``solve`` links it (``relink``).

Format version 1 (the datasets inline in the main file, and an interrupted run's finished pairs in
``X.h5.parts/``) is still read; the first solve into such a database copies each dataset into its
own file (compressed chunks as they are) and then writes a version 2 main file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections.abc import Callable
from itertools import chain
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError, MismatchError
from ..rules.rulesets import RuleSet
from ..tiers import parse_tier, tier_name
from . import chunks

FORMAT = "morris-db"
FORMAT_VERSION = 3
READS_VERSIONS = (1, 2, 3)
INDEX_SCHEME = "orbit-rep-colex/1"
CHUNK = 1 << 16  # 128 KiB of values: a single probe decompresses one chunk
CHUNK_CACHE = 256 << 20  # bytes of decompressed chunks kept per open file
HISTORY_FORMAT = 1  # the side table of the history rule's states (/history/<name>)
HISTORY_STAT_KEYS = ("states", "win", "draw", "loss", "max_win", "max_loss")
STAT_KEYS = ("mover", "opponent", "mover_hand", "opponent_hand", "positions", "slots", "win", "draw", "loss", "max_win", "max_loss", "max_plies", "seconds", "cpu_seconds")


@functools.cache
def code_version() -> str:
    """The package's version, written into every file (looked up once: each lookup scans the
    installed packages)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("morris-solver")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def checksum(values: np.ndarray) -> str:
    """A subspace's checksum: its values as little-endian uint16."""
    return checksum_pieces([values])


def history_checksum(keys: np.ndarray, values: np.ndarray) -> str:
    """The side table's checksum: the keys as little-endian int64, then the values as uint16."""
    return history_checksum_pieces([keys], [values])


def checksum_pieces(pieces) -> str:
    """``checksum`` of the values given a piece at a time (a subspace too large to read whole)."""
    return _digest((p, "<u2") for p in pieces)


def history_checksum_pieces(keys, values) -> str:
    """``history_checksum`` of the keys and then the values, each given a piece at a time."""
    return _digest(chain(((k, "<i8") for k in keys), ((v, "<u2") for v in values)))  # (lazily: a piece in memory at a time)


def _digest(parts) -> str:
    digest = hashlib.sha256()
    for values, dtype in parts:
        digest.update(memoryview(np.ascontiguousarray(values, dtype=dtype)).cast("B"))  # (no copy)
    return "sha256:" + digest.hexdigest()


def is_history(rules: RuleSet) -> bool:
    """Whether a database of ``rules`` holds the history rule's side tables (/history/<name>)."""
    return rules.reclose != "allowed"


def subspace_name(a: int, b: int, ha: int = 0, hb: int = 0) -> str:
    """``a-b`` for the moving phase, ``a-b-ha-hb`` for a tier with men in hand."""
    return tier_name((a, b, ha, hb))


def solve_command(rules: RuleSet | None, max_men: int | None, path: Path) -> str:
    """The `morris solve` command line that builds (or extends) the database at ``path``."""
    cmd = "morris solve"
    if rules is not None:
        name, *changed = rules.describe().split()  # the named rule set, then its changed options
        cmd += f" --rules {name}" + "".join(f" -o {option}" for option in changed)
    if max_men is not None:
        cmd += f" --max-men {max_men}"
    return cmd + f" --db {path}"


def default_path(rules: RuleSet) -> Path:
    """``data/<rule set>.h5``; options set on top of the named rule set are part of the name
    (``data/standard_flying-never.h5``), so that each rule set gets its own file."""
    words = rules.describe().split()
    return Path("data") / ("_".join([words[0], *(w.replace("=", "-") for w in words[1:])]) + ".h5")


def subspace_dir(path: Path) -> Path:
    """``X.h5.d``: the folder of the subspace files of the database ``X.h5``."""
    return Path(str(path) + ".d")


def subspace_file(path: Path, name: str) -> Path:
    return subspace_dir(path) / f"{name}.h5"


def parts_dir(path: Path) -> Path:
    """``X.h5.parts``: where format version 1 kept the finished pairs of an interrupted run."""
    return Path(str(path) + ".parts")


def link_target(path: Path, name: str) -> str:
    """The external link's file name, relative to the main file's folder."""
    return f"{Path(path).name}.d/{name}.h5"


def subspace_files(path: Path) -> dict[str, Path]:
    folder = subspace_dir(path)
    if not folder.is_dir():
        return {}
    return {p.name[:-3]: p for p in sorted(folder.iterdir()) if p.suffix == ".h5" and parse_tier(p.stem)}  # (a temporary file starts with ".")


def v1_parts(path: Path) -> list[Path]:
    folder = parts_dir(path)
    return sorted(p for p in folder.glob("*.h5") if not p.name.startswith(".")) if folder.is_dir() else []


def exists(path: str | os.PathLike) -> bool:
    """Whether anything of a database is at ``path``: its main file, a subspace file of a run
    killed before its first main file, or (format version 1) a part file."""
    path = Path(path)
    return path.exists() or bool(subspace_files(path)) or bool(v1_parts(path))


def _write_header(f: h5py.File, rules: RuleSet, created: str | None = None) -> None:
    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = FORMAT_VERSION
    f.attrs["rules"] = json.dumps(rules.to_dict(), sort_keys=True)
    f.attrs["index_scheme"] = INDEX_SCHEME
    f.attrs["code_version"] = code_version()
    f.attrs["created"] = created or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    f.require_group("subspaces")


def check_header(f: h5py.File, path: Path, rules: RuleSet | None) -> RuleSet:
    if f.attrs.get("format") != FORMAT:
        raise DatabaseError(f"{path} is not a morris database (no format={FORMAT!r} attribute)")
    version = int(f.attrs.get("format_version", -1))
    if version not in READS_VERSIONS:
        raise MismatchError(f"{path} has format version {version}; this code reads versions 1 to {FORMAT_VERSION}")
    scheme = f.attrs.get("index_scheme")
    if scheme != INDEX_SCHEME:
        raise MismatchError(f"{path} uses index scheme {scheme!r}; this code uses {INDEX_SCHEME!r}")
    try:
        stored = RuleSet.from_dict(json.loads(f.attrs["rules"]))
    except Exception as e:  # noqa: BLE001 - any damage to the rules attribute is a bad file
        raise DatabaseError(f"{path}: cannot read the rule set ({e})") from None
    if rules is not None and stored.options != rules.options:
        raise MismatchError(
            f"{path} holds the rule set '{stored.describe()}', not '{rules.describe()}' "
            "(choose another --db, or the same --rules and options)"
        )
    return stored


def open_h5(path: Path, mode: str = "r") -> h5py.File:
    try:
        return h5py.File(path, mode, rdcc_nbytes=CHUNK_CACHE, rdcc_nslots=100_003)
    except FileNotFoundError:
        raise DatabaseError(f"no database at {path}") from None
    except OSError as e:
        raise DatabaseError(f"{path} is not a readable HDF5 file ({e.__class__.__name__})") from None


def subspaces_group(f: h5py.File, path: Path) -> h5py.Group:
    group = f.get("subspaces")
    if not isinstance(group, h5py.Group):
        raise DatabaseError(f"{path} is damaged: it has no 'subspaces' group")
    return group


def chunked_dataset(group: h5py.Group, name: str, n: int, dtype) -> h5py.Dataset:
    """An empty dataset of n values, chunked, gzip + shuffle: what ``chunks.write_values`` fills."""
    return group.create_dataset(
        name,
        shape=(n,),
        dtype=dtype,
        chunks=(min(CHUNK, max(1, n)),),
        compression="gzip",
        compression_opts=chunks.LEVEL,  # (what HDF5 would write with; chunks.py writes ISA-L)
        shuffle=True,
    )


def _chunked(group: h5py.Group, name: str, values: np.ndarray) -> tuple[h5py.Dataset, str]:
    """``values`` as a chunked dataset (gzip + shuffle, ``chunks.write_values``) and its checksum."""
    ds = chunked_dataset(group, name, values.shape[0], values.dtype)
    return ds, chunks.write_values(ds, values)


def _write_dataset(group: h5py.Group, name: str, values: np.ndarray, stats: dict) -> None:
    ds, digest = _chunked(group, name, values)
    for key in STAT_KEYS:
        ds.attrs[key] = stats.get(key, 0) if key.endswith("_hand") else stats[key]
    ds.attrs["checksum"] = digest


def _write_history(f: h5py.File, rules: RuleSet, name: str, side: dict) -> None:
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


def _write_atomic(final: Path, fill: Callable[[h5py.File], None]) -> None:
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


def write_subspace(path: Path, rules: RuleSet, values: np.ndarray, stats: dict, side: dict | None = None) -> None:
    """One subspace's file; ``side``: its history-rule side table (``_write_history``), which a
    moving subspace of a history database must have."""
    name = subspace_name(stats["mover"], stats["opponent"], stats.get("mover_hand", 0), stats.get("opponent_hand", 0))
    moving = not (stats.get("mover_hand", 0) or stats.get("opponent_hand", 0))
    if (side is not None) != (is_history(rules) and moving):
        raise ValueError(f"subspace {name}: a history rule's moving subspace, and it alone, has a side table")

    def fill(f: h5py.File) -> None:
        _write_header(f, rules)
        _write_dataset(f["subspaces"], name, values, stats)
        if side is not None:
            _write_history(f, rules, name, side)

    _write_atomic(subspace_file(path, name), fill)


def copy_subspace(path: Path, rules: RuleSet, name: str, source: Path) -> None:
    """Copy subspace ``name`` from ``source`` (a subspace file, or a version 1 main or part file)
    into its own subspace file of the database at ``path``, compressed chunks as they are."""

    def fill(f: h5py.File) -> None:
        with open_h5(source) as src:
            _write_header(f, rules, str(src.attrs.get("created", "")) or None)
            src.copy(src["subspaces"][name], f["subspaces"], name)
            if "history" in src and name in src["history"]:
                src.copy(src["history"][name], f.require_group("history"), name)

    _write_atomic(subspace_file(path, name), fill)


def main_file(path: Path) -> tuple[int | None, str | None, dict[str, str | None]]:
    """The main file's format version, creation time and links (name: the external link's file
    name, None for a dataset held inline); (None, None, {}) where there is no main file."""
    if not path.exists():
        return None, None, {}
    with open_h5(path) as f:
        check_header(f, path, None)
        links = {}
        for name in subspaces_group(f, path):
            link = f["subspaces"].get(name, getlink=True)
            links[name] = link.filename if isinstance(link, h5py.ExternalLink) else None
        return int(f.attrs["format_version"]), str(f.attrs.get("created", "")) or None, links


def write_main(path: Path, rules: RuleSet, created: str | None, extra: dict | None = None) -> None:
    """A new main file linking every subspace file in ``X.h5.d/``, renamed over the old one, with
    the root attributes ``extra`` (``morris rank``'s ``ultra_*``, ``storage.ranks``) besides the
    header: a solve writes none, so the draw ranks of a database it adds to are dropped (they
    depend on every tier's statistics) until ``morris rank`` runs again."""
    names = sorted(subspace_files(path))
    extra = extra or {}

    def fill(f: h5py.File) -> None:
        _write_header(f, rules, created)
        for key, value in extra.items():
            f.attrs[key] = value
        for name in names:
            f["subspaces"][name] = h5py.ExternalLink(link_target(path, name), f"/subspaces/{name}")
            if is_history(rules) and not any(parse_tier(name)[2:]):
                f.require_group("history")[name] = h5py.ExternalLink(link_target(path, name), f"/history/{name}")

    _write_atomic(path, fill)


def remove_temporaries(path: Path) -> None:
    stale = list(path.parent.glob(f".{path.name}.*tmp")) if path.parent.is_dir() else []
    for folder in (subspace_dir(path), parts_dir(path)):
        if folder.is_dir():
            stale += [p for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    for p in stale:
        p.unlink(missing_ok=True)


