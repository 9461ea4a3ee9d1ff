"""HDF5 databases: one file per rule set, one dataset per subspace, self-describing.

Layout (format version 1; the README's "Database layout" page says the same for h5py users):

    /                       attrs: format="morris-db", format_version, rules (JSON), index_scheme,
                                   code_version, created
    /subspaces/<a>-<b>      uint16[slots], chunked, gzip + shuffle; attrs: mover, opponent,
                            positions, slots, win, draw, loss, max_win, max_loss, max_plies,
                            seconds, checksum ("sha256:<hex>" of the little-endian values)

Crash safety: a solved subspace is first written to its own file under ``<db>.parts/`` (under a
temporary name, then renamed), and the parts are merged into the main file by writing a new main
file and renaming it over the old one. A kill at any moment leaves the old main file and every
finished part intact; ``Database`` reads both, and the next ``solve`` resumes from them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError, MismatchError, MissingSubspaceError
from ..rules.rulesets import RuleSet

FORMAT = "morris-db"
FORMAT_VERSION = 1
INDEX_SCHEME = "orbit-rep-colex/1"
CHUNK = 1 << 16  # 128 KiB of values: a single probe decompresses one chunk
CHUNK_CACHE = 256 << 20  # bytes of decompressed chunks kept per open file
STAT_KEYS = ("mover", "opponent", "positions", "slots", "win", "draw", "loss", "max_win", "max_loss", "max_plies", "seconds")


def code_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("morris-solver")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def checksum(values: np.ndarray) -> str:
    return "sha256:" + hashlib.sha256(np.ascontiguousarray(values, dtype="<u2").tobytes()).hexdigest()


def subspace_name(a: int, b: int) -> str:
    return f"{a}-{b}"


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


def parts_dir(path: Path) -> Path:
    return Path(str(path) + ".parts")


def _write_header(f: h5py.File, rules: RuleSet) -> None:
    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = FORMAT_VERSION
    f.attrs["rules"] = json.dumps(rules.to_dict(), sort_keys=True)
    f.attrs["index_scheme"] = INDEX_SCHEME
    f.attrs["code_version"] = code_version()
    f.attrs["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    f.require_group("subspaces")


def _check_header(f: h5py.File, path: Path, rules: RuleSet | None) -> RuleSet:
    if f.attrs.get("format") != FORMAT:
        raise DatabaseError(f"{path} is not a morris database (no format={FORMAT!r} attribute)")
    version = int(f.attrs.get("format_version", -1))
    if version != FORMAT_VERSION:
        raise MismatchError(f"{path} has format version {version}; this code reads version {FORMAT_VERSION}")
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


def _open_h5(path: Path, mode: str = "r") -> h5py.File:
    try:
        return h5py.File(path, mode, rdcc_nbytes=CHUNK_CACHE, rdcc_nslots=100_003)
    except FileNotFoundError:
        raise DatabaseError(f"no database at {path}") from None
    except OSError as e:
        raise DatabaseError(f"{path} is not a readable HDF5 file ({e.__class__.__name__})") from None


def _write_dataset(group: h5py.Group, name: str, values: np.ndarray, stats: dict) -> None:
    ds = group.create_dataset(
        name,
        data=values,
        chunks=(min(CHUNK, max(1, values.shape[0])),),
        compression="gzip",
        compression_opts=4,
        shuffle=True,
    )
    for key in STAT_KEYS:
        ds.attrs[key] = stats[key]
    ds.attrs["checksum"] = checksum(values)


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_part(path: Path, rules: RuleSet, results: list[tuple[np.ndarray, dict]]) -> None:
    """Write solved subspaces (values, stats) as one part file, atomically."""
    parts = parts_dir(path)
    parts.mkdir(parents=True, exist_ok=True)
    names = sorted(subspace_name(s["mover"], s["opponent"]) for _, s in results)
    final = parts / f"{names[0]}.h5"
    tmp = parts / f".{names[0]}.h5.tmp"
    with h5py.File(tmp, "w") as f:
        _write_header(f, rules)
        for values, stats in results:
            _write_dataset(f["subspaces"], subspace_name(stats["mover"], stats["opponent"]), values, stats)
    _fsync_path(tmp)
    os.replace(tmp, final)


def assemble(path: Path, rules: RuleSet) -> int:
    """Merge the part files into the main file (a new file renamed over the old); return how
    many subspaces were added. Compressed chunks are copied as they are."""
    parts = sorted(parts_dir(path).glob("*.h5"))
    if not parts:
        return 0
    tmp = path.with_name(f".{path.name}.tmp")
    added = 0
    with h5py.File(tmp, "w") as out:
        _write_header(out, rules)
        if path.exists():
            with _open_h5(path) as old:
                _check_header(old, path, rules)
                out.attrs["created"] = old.attrs.get("created", out.attrs["created"])
                for name in old["subspaces"]:
                    old.copy(old["subspaces"][name], out["subspaces"], name)
        for part in parts:
            with _open_h5(part) as f:
                _check_header(f, part, rules)
                for name in f["subspaces"]:
                    if name not in out["subspaces"]:
                        f.copy(f["subspaces"][name], out["subspaces"], name)
                        added += 1
    _fsync_path(tmp)
    os.replace(tmp, path)
    for part in parts:
        part.unlink()
    try:
        parts_dir(path).rmdir()
    except OSError:
        pass
    return added


@dataclass
class SubspaceInfo:
    mover: int
    opponent: int
    positions: int
    slots: int
    win: int
    draw: int
    loss: int
    max_win: int
    max_loss: int
    max_plies: int
    seconds: float
    bytes_on_disk: int
    checksum: str
    file: Path

    @property
    def name(self) -> str:
        return subspace_name(self.mover, self.opponent)


class Database:
    """Read access to a database: the main file plus any finished parts of an interrupted run.

    Files are opened per read and closed again, so a database object is cheap and never holds a
    subspace in memory unless asked for its whole values (``values``); ``read_slots`` reads
    single values through HDF5's chunk cache.
    """

    def __init__(self, path: str | os.PathLike, rules: RuleSet | None = None, must_exist: bool = True):
        self.path = Path(path)
        self.rules: RuleSet | None = rules
        self._where: dict[str, Path] = {}
        self._info: dict[str, SubspaceInfo] = {}
        self._handles: dict[Path, h5py.File] = {}
        files = ([self.path] if self.path.exists() else []) + sorted(parts_dir(self.path).glob("*.h5"))
        if not files and must_exist:
            raise DatabaseError(f"no database at {self.path} (build one with: {solve_command(rules, None, self.path)})")
        for file in files:
            with _open_h5(file) as f:
                stored = _check_header(f, file, self.rules)
                self.rules = self.rules or stored
                if not isinstance(f.get("subspaces"), h5py.Group):
                    raise DatabaseError(f"{file} is damaged: it has no 'subspaces' group")
                for name, ds in f["subspaces"].items():
                    if name in self._info:
                        continue
                    a = dict(ds.attrs)
                    self._where[name] = file
                    self._info[name] = SubspaceInfo(
                        mover=int(a["mover"]), opponent=int(a["opponent"]), positions=int(a["positions"]),
                        slots=int(a["slots"]), win=int(a["win"]), draw=int(a["draw"]), loss=int(a["loss"]),
                        max_win=int(a["max_win"]), max_loss=int(a["max_loss"]), max_plies=int(a["max_plies"]),
                        seconds=float(a["seconds"]), bytes_on_disk=int(ds.id.get_storage_size()),
                        checksum=str(a["checksum"]), file=file,
                    )

    # -- catalogue ------------------------------------------------------------------------------
    def subspaces(self) -> list[SubspaceInfo]:
        return sorted(self._info.values(), key=lambda s: (s.mover + s.opponent, s.mover, s.opponent))

    def has(self, a: int, b: int) -> bool:
        return subspace_name(a, b) in self._info

    def info(self, a: int, b: int) -> SubspaceInfo:
        name = subspace_name(a, b)
        if name not in self._info:
            raise MissingSubspaceError(
                f"subspace {name} is not in {self.path} (build it with: "
                f"{solve_command(self.rules, max(a, b), self.path)})"
            )
        return self._info[name]

    # -- values ---------------------------------------------------------------------------------
    def _file(self, file: Path) -> h5py.File:
        if file not in self._handles:
            self._handles[file] = _open_h5(file)
        return self._handles[file]

    def dataset(self, a: int, b: int) -> h5py.Dataset:
        info = self.info(a, b)
        return self._file(info.file)["subspaces"][info.name]

    def values(self, a: int, b: int) -> np.ndarray:
        """The whole subspace in memory."""
        ds = self.dataset(a, b)
        try:
            return ds[...]
        except OSError as e:
            raise DatabaseError(f"subspace {a}-{b} in {self.info(a, b).file} is corrupt: {e}") from None

    def read_slots(self, a: int, b: int, slots: np.ndarray) -> np.ndarray:
        ds = self.dataset(a, b)
        slots = np.asarray(slots, dtype=np.int64)
        if slots.size == 0:
            return np.zeros(0, dtype=np.uint16)
        order = np.argsort(slots)
        uniq, inverse = np.unique(slots[order], return_inverse=True)
        try:
            got = ds[uniq]  # h5py fancy indexing wants increasing, unique indices
        except OSError as e:
            raise DatabaseError(f"subspace {a}-{b} in {self.info(a, b).file} is corrupt: {e}") from None
        out = np.empty(slots.shape[0], dtype=np.uint16)
        out[order] = got[inverse]
        return out

    def close(self) -> None:
        for h in self._handles.values():
            h.close()
        self._handles.clear()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
