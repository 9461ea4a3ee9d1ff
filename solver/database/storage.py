"""HDF5 databases: a small main file per rule set, and one file per subspace beside it.

Layout (format version 3; the README's "Database layout" section says the same for h5py users):

    X.h5                        the main file
      /                         attrs: format="morris-db", format_version, rules (JSON),
                                       index_scheme, code_version, created
      /subspaces/<name>         an HDF5 external link to /subspaces/<name> in "X.h5.d/<name>.h5"
                                (relative: HDF5 looks for it beside the main file, from any working
                                directory, so the file and its folder can move together)
    X.h5.d/<name>.h5            one subspace: the same root attrs, and
      /subspaces/<name>         uint16[slots], chunked, gzip + shuffle; attrs: mover, opponent,
                                mover_hand, opponent_hand, positions, slots, win, draw, loss,
                                max_win, max_loss, max_plies, seconds, cpu_seconds, checksum
                                ("sha256:<hex>" of the little-endian values)

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

import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError, MismatchError, MissingSubspaceError
from ..rules.rulesets import RuleSet

FORMAT = "morris-db"
FORMAT_VERSION = 3
READS_VERSIONS = (1, 2, 3)
INDEX_SCHEME = "orbit-rep-colex/1"
CHUNK = 1 << 16  # 128 KiB of values: a single probe decompresses one chunk
CHUNK_CACHE = 256 << 20  # bytes of decompressed chunks kept per open file
STAT_KEYS = ("mover", "opponent", "mover_hand", "opponent_hand", "positions", "slots", "win", "draw", "loss", "max_win", "max_loss", "max_plies", "seconds", "cpu_seconds")
SUBSPACE_FILE = re.compile(r"^\d+-\d+(-\d+-\d+)?\.h5$")  # <a>-<b>[-<ha>-<hb>].h5; a temporary file starts with "."


def code_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("morris-solver")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def checksum(values: np.ndarray) -> str:
    return "sha256:" + hashlib.sha256(np.ascontiguousarray(values, dtype="<u2").tobytes()).hexdigest()


def subspace_name(a: int, b: int, ha: int = 0, hb: int = 0) -> str:
    """``a-b`` for the moving phase, ``a-b-ha-hb`` for a tier with men in hand."""
    return f"{a}-{b}" if ha == 0 and hb == 0 else f"{a}-{b}-{ha}-{hb}"


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


def _link_target(path: Path, name: str) -> str:
    """The external link's file name, relative to the main file's folder."""
    return f"{Path(path).name}.d/{name}.h5"


def _subspace_files(path: Path) -> dict[str, Path]:
    folder = subspace_dir(path)
    if not folder.is_dir():
        return {}
    return {p.name[:-3]: p for p in sorted(folder.iterdir()) if SUBSPACE_FILE.match(p.name)}


def _v1_parts(path: Path) -> list[Path]:
    folder = parts_dir(path)
    return sorted(p for p in folder.glob("*.h5") if not p.name.startswith(".")) if folder.is_dir() else []


def exists(path: str | os.PathLike) -> bool:
    """Whether anything of a database is at ``path``: its main file, a subspace file of a run
    killed before its first main file, or (format version 1) a part file."""
    path = Path(path)
    return path.exists() or bool(_subspace_files(path)) or bool(_v1_parts(path))


def _write_header(f: h5py.File, rules: RuleSet, created: str | None = None) -> None:
    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = FORMAT_VERSION
    f.attrs["rules"] = json.dumps(rules.to_dict(), sort_keys=True)
    f.attrs["index_scheme"] = INDEX_SCHEME
    f.attrs["code_version"] = code_version()
    f.attrs["created"] = created or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    f.require_group("subspaces")


def _check_header(f: h5py.File, path: Path, rules: RuleSet | None) -> RuleSet:
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


def _open_h5(path: Path, mode: str = "r") -> h5py.File:
    try:
        return h5py.File(path, mode, rdcc_nbytes=CHUNK_CACHE, rdcc_nslots=100_003)
    except FileNotFoundError:
        raise DatabaseError(f"no database at {path}") from None
    except OSError as e:
        raise DatabaseError(f"{path} is not a readable HDF5 file ({e.__class__.__name__})") from None


def _subspaces_group(f: h5py.File, path: Path) -> h5py.Group:
    group = f.get("subspaces")
    if not isinstance(group, h5py.Group):
        raise DatabaseError(f"{path} is damaged: it has no 'subspaces' group")
    return group


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
        ds.attrs[key] = stats.get(key, 0) if key.endswith("_hand") else stats[key]
    ds.attrs["checksum"] = checksum(values)


def _fsync_path(path: Path) -> None:
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
        _fsync_path(tmp)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_path(final.parent)


def _write_subspace(path: Path, rules: RuleSet, values: np.ndarray, stats: dict) -> None:
    name = subspace_name(stats["mover"], stats["opponent"], stats.get("mover_hand", 0), stats.get("opponent_hand", 0))

    def fill(f: h5py.File) -> None:
        _write_header(f, rules)
        _write_dataset(f["subspaces"], name, values, stats)

    _write_atomic(subspace_file(path, name), fill)


def _copy_subspace(path: Path, rules: RuleSet, name: str, source: Path) -> None:
    """Copy subspace ``name`` from ``source`` (a subspace file, or a version 1 main or part file)
    into its own subspace file of the database at ``path``, compressed chunks as they are."""

    def fill(f: h5py.File) -> None:
        with _open_h5(source) as src:
            _write_header(f, rules, str(src.attrs.get("created", "")) or None)
            src.copy(src["subspaces"][name], f["subspaces"], name)

    _write_atomic(subspace_file(path, name), fill)


def _main_file(path: Path) -> tuple[int | None, str | None, dict[str, str | None]]:
    """The main file's format version, creation time and links (name: the external link's file
    name, None for a dataset held inline); (None, None, {}) where there is no main file."""
    if not path.exists():
        return None, None, {}
    with _open_h5(path) as f:
        _check_header(f, path, None)
        links = {}
        for name in _subspaces_group(f, path):
            link = f["subspaces"].get(name, getlink=True)
            links[name] = link.filename if isinstance(link, h5py.ExternalLink) else None
        return int(f.attrs["format_version"]), str(f.attrs.get("created", "")) or None, links


def _write_main(path: Path, rules: RuleSet, created: str | None) -> None:
    """A new main file linking every subspace file in ``X.h5.d/``, renamed over the old one."""
    names = sorted(_subspace_files(path))

    def fill(f: h5py.File) -> None:
        _write_header(f, rules, created)
        for name in names:
            f["subspaces"][name] = h5py.ExternalLink(_link_target(path, name), f"/subspaces/{name}")

    _write_atomic(path, fill)


def _remove_temporaries(path: Path) -> None:
    stale = list(path.parent.glob(f".{path.name}.*tmp")) if path.parent.is_dir() else []
    for folder in (subspace_dir(path), parts_dir(path)):
        if folder.is_dir():
            stale += [p for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    for p in stale:
        p.unlink(missing_ok=True)


def add_subspaces(path: str | os.PathLike, rules: RuleSet, results: list[tuple[np.ndarray, dict]]) -> None:
    """Add solved subspaces (values, stats): each to its own file, then a new main file that
    links them. Whatever the database holds already is neither read nor rewritten (but a format
    version 1 database is migrated first, once)."""
    path = Path(path)
    version, created, _ = _main_file(path)
    if version == 1 or _v1_parts(path):
        relink(path, rules)
        version, created, _ = _main_file(path)
    write_subspace_files(path, rules, results)
    _write_main(path, rules, created)


def write_subspace_files(path: str | os.PathLike, rules: RuleSet, results: list[tuple[np.ndarray, dict]]) -> None:
    """Write solved subspaces (values, stats) each to its own file, and link none: what a cluster
    worker does (the client links them, ``link_subspaces``). Several processes may call this at
    once for different subspaces of one database."""
    path = Path(path)
    folder = subspace_dir(path)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        _fsync_path(folder.parent)
    for values, stats in results:
        _write_subspace(path, rules, values, stats)


def link_subspaces(path: str | os.PathLike, rules: RuleSet) -> None:
    """A new main file linking every subspace file the folder holds (the writer alone calls it,
    under the writer lock): after workers have written their subspaces with
    ``write_subspace_files``."""
    path = Path(path)
    _write_main(path, rules, _main_file(path)[1])


def relink(path: str | os.PathLike, rules: RuleSet) -> list[str]:
    """Bring the database at ``path`` up to date before a solve adds to it (the caller holds the
    writer lock): remove temporary files a kill left behind, migrate format version 1, and link
    the subspace files that the main file does not link (a kill between the two steps of
    ``add_subspaces``). Returns a line for each change made."""
    path = Path(path)
    _remove_temporaries(path)
    if not exists(path):
        return []
    with Database(path, rules) as db:  # refuses another rule set, damaged files, missing files
        inline = [(s.name, s.file) for s in db.subspaces() if s.file != subspace_file(path, s.name)]
    lines = []
    if inline:
        subspace_dir(path).mkdir(exist_ok=True)
        for name, source in inline:
            _copy_subspace(path, rules, name, source)
        lines.append(f"migrated {path} to format version {FORMAT_VERSION}: {len(inline)} subspaces copied into {subspace_dir(path)}/")
    version, created, links = _main_file(path)
    want = {name: _link_target(path, name) for name in _subspace_files(path)}
    if links != want:
        unlinked = len(set(want) - set(links)) if version is not None and version >= 2 else 0
        _write_main(path, rules, created)
        if unlinked:
            lines.append(f"linked {unlinked} subspace files that {path} did not link yet")
    for part in _v1_parts(path):
        part.unlink()
    try:
        parts_dir(path).rmdir()
    except OSError:
        pass
    return lines


def copy_database(src: str | os.PathLike, dst: str | os.PathLike) -> None:
    """Copy the database at ``src`` to a new one at ``dst``: each subspace into its own file in
    ``dst``'s folder, then a main file linking them. The way to give a database another name (its
    links name its folder, so renaming the files alone leaves plain h5py without the data)."""
    src, dst = Path(src), Path(dst)
    if exists(dst):
        raise DatabaseError(f"cannot copy to {dst}: a database is there already")
    with Database(src) as db:
        rules, held = db.rules, [(s.name, s.file) for s in db.subspaces()]
    created = _main_file(src)[1] if src.exists() else None
    subspace_dir(dst).mkdir(parents=True)
    for name, file in held:
        _copy_subspace(dst, rules, name, file)
    _write_main(dst, rules, created)


@dataclass
class SubspaceInfo:
    mover: int
    opponent: int
    mover_hand: int
    opponent_hand: int
    positions: int
    slots: int
    win: int
    draw: int
    loss: int
    max_win: int
    max_loss: int
    max_plies: int
    seconds: float
    cpu_seconds: float  # 0 where the file predates it
    bytes_on_disk: int
    checksum: str
    file: Path

    @property
    def name(self) -> str:
        return subspace_name(self.mover, self.opponent, self.mover_hand, self.opponent_hand)

    @property
    def tier(self) -> tuple[int, int, int, int]:
        return (self.mover, self.opponent, self.mover_hand, self.opponent_hand)

    @property
    def placing(self) -> bool:
        """Whether the tier has men in hand (the placing phase)."""
        return bool(self.mover_hand or self.opponent_hand)


class Database:
    """Read access to a database: the subspaces its main file links, any subspace file a killed
    run had not linked yet, and (format version 1) the datasets inline in the main file and the
    parts of an interrupted run.

    Files are opened per read and closed again, so a database object is cheap and never holds a
    subspace in memory unless asked for its whole values (``values``); ``read_slots`` reads
    single values through HDF5's chunk cache.
    """

    def __init__(self, path: str | os.PathLike, rules: RuleSet | None = None, must_exist: bool = True):
        self.path = Path(path)
        self.rules: RuleSet | None = rules
        self._info: dict[str, SubspaceInfo] = {}
        self._pending: dict[str, Path] = {}  # subspace files not read yet, by subspace name
        self._handles: dict[Path, h5py.File] = {}
        if not exists(self.path):
            if must_exist:
                raise DatabaseError(f"no database at {self.path} (build one with: {solve_command(rules, None, self.path)})")
            return
        files = _subspace_files(self.path)
        if self.path.exists():
            with _open_h5(self.path) as f:
                stored = _check_header(f, self.path, self.rules)
                self.rules = self.rules or stored
                group = _subspaces_group(f, self.path)
                for name in group:
                    if not isinstance(group.get(name, getlink=True), h5py.ExternalLink):
                        self._add(name, group[name], self.path)  # format version 1: inline
                    elif name not in files:
                        missing = subspace_file(self.path, name)
                        raise DatabaseError(
                            f"{self.path} links subspace {name} to {missing}, which is missing (put it back, "
                            f"or remove {self.path} and run morris solve again to link what {missing.parent} holds)"
                        )
        # A subspace's own file is opened when it is first asked about: a lookup in a database of
        # 49 files then opens the few it reads, not all of them (about 2 ms each).
        self._pending.update(files)
        if self.rules is None and files:
            self._load(next(iter(files)))
        for file in _v1_parts(self.path):
            self._read_file(file, skip=self._pending)  # a subspace's own file wins over a v1 part

    def _load(self, name: str) -> None:
        file = self._pending.pop(name, None)
        if file is not None:
            self._read_file(file)

    def _read_file(self, file: Path, skip: dict[str, Path] | None = None) -> None:
        with _open_h5(file) as f:
            stored = _check_header(f, file, self.rules)
            self.rules = self.rules or stored
            group = _subspaces_group(f, file)
            if file.parent == subspace_dir(self.path) and file.stem not in group:
                raise DatabaseError(f"{file} is damaged: it has no subspace {file.stem}")
            for name in group:
                if not skip or name not in skip:
                    self._add(name, group[name], file)

    def _add(self, name: str, ds: h5py.Dataset, file: Path) -> None:
        if name in self._info:
            return
        if not isinstance(ds, h5py.Dataset):
            raise DatabaseError(f"{file} is damaged: subspaces/{name} is not a dataset")
        a = dict(ds.attrs)
        self._info[name] = SubspaceInfo(
            mover=int(a["mover"]), opponent=int(a["opponent"]), mover_hand=int(a.get("mover_hand", 0)),
            opponent_hand=int(a.get("opponent_hand", 0)), positions=int(a["positions"]),
            slots=int(a["slots"]), win=int(a["win"]), draw=int(a["draw"]), loss=int(a["loss"]),
            max_win=int(a["max_win"]), max_loss=int(a["max_loss"]), max_plies=int(a["max_plies"]),
            seconds=float(a["seconds"]), cpu_seconds=float(a.get("cpu_seconds", 0.0)), bytes_on_disk=int(ds.id.get_storage_size()),
            checksum=str(a["checksum"]), file=file,
        )

    # -- catalogue ------------------------------------------------------------------------------
    def tiers(self) -> list[SubspaceInfo]:
        """Every subspace, the moving phase's and the tiers with men in hand: by men in hand,
        then men on the board."""
        for name in list(self._pending):
            self._load(name)
        return sorted(
            self._info.values(),
            key=lambda s: (s.mover_hand + s.opponent_hand, s.mover + s.opponent, s.mover, s.opponent, s.mover_hand),
        )

    def tier_keys(self) -> list[tuple[int, int, int, int]]:
        """The tier of every subspace, from the names alone (no file is opened)."""
        return sorted(tuple(int(x) for x in (name + "-0-0").split("-")[:4]) for name in {*self._info, *self._pending})

    def subspaces(self) -> list[SubspaceInfo]:
        """The subspaces of the moving phase (no men in hand)."""
        return [s for s in self.tiers() if not s.placing]

    def has(self, a: int, b: int, ha: int = 0, hb: int = 0) -> bool:
        name = subspace_name(a, b, ha, hb)
        self._load(name)  # a damaged file says so here, as it did when every file was read at once
        return name in self._info

    def info(self, a: int, b: int, ha: int = 0, hb: int = 0) -> SubspaceInfo:
        name = subspace_name(a, b, ha, hb)
        self._load(name)
        if name not in self._info:
            if ha or hb:
                raise MissingSubspaceError(
                    f"tier {name} (men in hand) is not in {self.path} (build it with: "
                    f"{solve_command(self.rules, None, self.path)} --whole-game, or --extended for "
                    "hands a game from the start does not reach)"
                )
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

    def dataset(self, a: int, b: int, ha: int = 0, hb: int = 0) -> h5py.Dataset:
        info = self.info(a, b, ha, hb)
        return self._file(info.file)["subspaces"][info.name]

    def values(self, a: int, b: int, ha: int = 0, hb: int = 0) -> np.ndarray:
        """The whole subspace in memory."""
        ds = self.dataset(a, b, ha, hb)
        try:
            return ds[...]
        except OSError as e:
            info = self.info(a, b, ha, hb)
            raise DatabaseError(f"subspace {info.name} in {info.file} is corrupt: {e}") from None

    def read_slots(self, a: int, b: int, slots: np.ndarray, ha: int = 0, hb: int = 0) -> np.ndarray:
        ds = self.dataset(a, b, ha, hb)
        slots = np.asarray(slots, dtype=np.int64)
        if slots.size == 0:
            return np.zeros(0, dtype=np.uint16)
        order = np.argsort(slots)
        uniq, inverse = np.unique(slots[order], return_inverse=True)
        try:
            got = ds[uniq]  # h5py fancy indexing wants increasing, unique indices
        except OSError as e:
            info = self.info(a, b, ha, hb)
            raise DatabaseError(f"subspace {info.name} in {info.file} is corrupt: {e}") from None
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
