"""Reading a database: ``Database`` (the subspaces and tiers it holds, their statistics and values)."""

from __future__ import annotations

import os
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError, MissingSubspaceError
from ..rules.rulesets import RuleSet
from ..tiers import parse_tier
from . import chunks
from .files import (
    check_header,
    default_path,
    exists,
    is_history,
    open_h5,
    solve_command,
    subspace_dir,
    subspace_file,
    subspace_files,
    subspace_name,
    subspaces_group,
    v1_parts,
)


KEPT_CHUNKS = 2048  # inflated chunks kept by read_slots (128 KiB each for the databases: 256 MiB)


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
    history: dict | None = None  # the history rule's side table's attrs (/history/<name>), if any

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


def catalogue_key(t: tuple[int, int, int, int]) -> tuple[int, int, int, int, int]:
    """The order of ``Database.tiers`` (and of the verify's checks): by men in hand, then men on
    the board."""
    a, b, ha, hb = t
    return (ha + hb, a + b, a, b, ha)


class Database:
    """Read access to a database: the subspaces its main file links, any subspace file a killed
    run had not linked yet, and (format version 1) the datasets inline in the main file and the
    parts of an interrupted run.

    Files are opened per read and closed again, so a database object is cheap and never holds a
    subspace in memory unless asked for its whole values (``values``); ``read_slots`` reads
    single values a chunk at a time, keeping the last ``KEPT_CHUNKS`` inflated chunks (up to
    256 MiB). ``add_book`` answers from an opening book the tiers the database lacks.
    ``check_on_first_read`` has a tier's values checked before the first of them is read (the
    opening books' check, ``books.opened``).
    """

    def __init__(self, path: str | os.PathLike, rules: RuleSet | None = None, must_exist: bool = True):
        self.path = Path(path)
        self.rules: RuleSet | None = rules
        self._info: dict[str, SubspaceInfo] = {}
        self._pending: dict[str, Path] = {}  # subspace files not read yet, by subspace name
        self._handles: dict[Path, h5py.File] = {}
        self.book_min_hand: int | None = None  # the path is an opening book (``solver.books``)
        self._chunks: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()  # inflated, most recent last
        self._ultra_attrs: dict = {}  # the main file's draw-rank attributes (``storage.ranks``)
        self._from_book: set[str] = set()  # tiers add_book answers
        self._first_read: dict[str, Callable[[np.ndarray], None]] = {}  # check_on_first_read's checks, by tier
        if not exists(self.path):
            if must_exist:
                raise DatabaseError(f"no database at {self.path} (build one with: {solve_command(rules, None, self.path)})")
            return
        files = subspace_files(self.path)
        if self.path.exists():
            with open_h5(self.path) as f:
                stored = check_header(f, self.path, self.rules)
                self.rules = self.rules or stored
                self._ultra_attrs = {k: f.attrs[k] for k in f.attrs if k.startswith("ultra_")}
                if int(f.attrs.get("book", 0)) == 1:
                    self.book_min_hand = int(f.attrs["book_min_hand"])
                group = subspaces_group(f, self.path)
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
        for file in v1_parts(self.path):
            self._read_file(file, skip=self._pending)  # a subspace's own file wins over a v1 part

    def _load(self, name: str) -> None:
        file = self._pending.pop(name, None)
        if file is not None:
            self._read_file(file)

    def _read_file(self, file: Path, skip: dict[str, Path] | None = None) -> None:
        with open_h5(file) as f:
            stored = check_header(f, file, self.rules)
            self.rules = self.rules or stored
            group = subspaces_group(f, file)
            if file.parent == subspace_dir(self.path) and file.stem not in group:
                raise DatabaseError(f"{file} is damaged: it has no subspace {file.stem}")
            side = f.get("history")
            for name in group:
                if not skip or name not in skip:
                    self._add(name, group[name], file, dict(side[name].attrs) if side is not None and name in side else None)

    def _add(self, name: str, ds: h5py.Dataset, file: Path, side: dict | None = None) -> None:
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
            checksum=str(a["checksum"]), file=file, history=side,
        )

    def add_book(self, path: Path) -> int:
        """Answer from the opening book at ``path`` (same rule set) the tiers this database does
        not hold; returns how many it adds."""
        path = Path(path)
        added = 0
        with open_h5(path) as f:
            check_header(f, path, self.rules)
            group = subspaces_group(f, path)
            for name in group:
                if name not in self._info and name not in self._pending:
                    self._add(name, group[name], path)
                    self._from_book.add(name)
                    added += 1
        return added

    def book_tiers(self) -> list[SubspaceInfo]:
        """The tiers an opening book answers: every tier where the database is a book, else
        those ``add_book`` added."""
        if self.book_min_hand is not None:
            return self.tiers()
        return [self._info[name] for name in sorted(self._from_book)]

    def check_on_first_read(self, name: str, check: Callable[[np.ndarray], None]) -> None:
        """Have ``check`` see the whole values of tier ``name`` before any of them is first read
        (``values``, ``read_slots``); where it raises, every read of the tier raises."""
        self._first_read[name] = check

    # -- catalogue ------------------------------------------------------------------------------
    def tiers(self) -> list[SubspaceInfo]:
        """Every subspace, the moving phase's and the tiers with men in hand: by men in hand,
        then men on the board."""
        for name in list(self._pending):
            self._load(name)
        return sorted(self._info.values(), key=lambda s: catalogue_key(s.tier))

    def tier_keys(self) -> list[tuple[int, int, int, int]]:
        """The tier of every subspace, from the names alone (no file is opened)."""
        return sorted(parse_tier(name) for name in {*self._info, *self._pending})

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
            if self.book_min_hand is not None:
                raise MissingSubspaceError(
                    f"tier {name} is not in the opening book {self.path.name} (it holds the tiers with "
                    f"{self.book_min_hand} or more men in hand); solve the whole game for it: "
                    f"{solve_command(self.rules, None, default_path(self.rules))} --whole-game"
                )
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
            self._handles[file] = open_h5(file)
        return self._handles[file]

    def dataset(self, a: int, b: int, ha: int = 0, hb: int = 0) -> h5py.Dataset:
        info = self.info(a, b, ha, hb)
        if info.name in self._first_read:
            self.values(a, b, ha, hb)  # its check, on all its values, before the first is read
        return self._file(info.file)["subspaces"][info.name]

    def values(self, a: int, b: int, ha: int = 0, hb: int = 0) -> np.ndarray:
        """The whole subspace in memory."""
        info = self.info(a, b, ha, hb)
        ds = self._file(info.file)["subspaces"][info.name]
        try:
            values = chunks.read_values(ds)
        except (OSError, zlib.error, ValueError) as e:  # (chunks: a bad chunk is a ValueError)
            raise DatabaseError(f"subspace {info.name} in {info.file} is corrupt: {e}") from None
        check = self._first_read.get(info.name)
        if check is not None:
            check(values)
            del self._first_read[info.name]
        return values

    def read_slots(self, a: int, b: int, slots: np.ndarray, ha: int = 0, hb: int = 0) -> np.ndarray:
        ds = self.dataset(a, b, ha, hb)
        slots = np.asarray(slots, dtype=np.int64)
        if slots.size == 0:
            return np.zeros(0, dtype=np.uint16)
        got = self._read_by_chunks(subspace_name(a, b, ha, hb), ds, slots)
        if got is not None:
            return got
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

    def _read_by_chunks(self, name: str, ds: h5py.Dataset, slots: np.ndarray) -> np.ndarray | None:
        """The values at ``slots``, each chunk they fall in read raw and inflated by ISA-L
        (``chunks.read_chunk``), the last ``KEPT_CHUNKS`` kept; None where the dataset's layout
        is another (HDF5 reads it then)."""
        if not chunks.direct(ds):
            return None
        size = ds.chunks[0]
        if slots.min() < 0 or slots.max() >= ds.shape[0]:
            raise IndexError(f"slot outside subspace {name}")
        out = np.empty(slots.shape[0], dtype=ds.dtype)
        which = slots // size
        for c in np.unique(which):
            key = (name, int(c))
            chunk = self._chunks.get(key)
            if chunk is None:
                try:
                    chunk = chunks.read_chunk(ds, int(c) * size)
                except (OSError, ValueError) as e:
                    raise DatabaseError(f"subspace {name} in {ds.file.filename} is corrupt: {e}") from None
                if chunk is None:
                    return None
                self._chunks[key] = chunk
                if len(self._chunks) > KEPT_CHUNKS:
                    self._chunks.popitem(last=False)
            else:
                self._chunks.move_to_end(key)
            at = which == c
            out[at] = chunk[slots[at] - int(c) * size]
        return out

    # -- the history rule's side tables (/history/<name>; files.py) ----------------------------------
    def history_group(self, a: int, b: int) -> h5py.Group:
        """``/history/<a-b>`` of a moving subspace: ``keys`` and ``values`` of its states with a
        record, and their attrs."""
        info = self.info(a, b)
        if info.history is None:
            why = "it has no" if is_history(self.rules) else "a database of a rule set without the history rule has no"
            raise DatabaseError(f"{info.file}: {why} side table /history/{info.name} (the states with a ban)")
        return self._file(info.file)["history"][info.name]

    def history_row(self, a: int, b: int, key: int) -> int:
        """The row of ``key`` in subspace (a, b)'s side table, -1 where it lacks it: a binary
        search over the keys' chunks (ascending), reading only those it looks at, so that a
        lookup does not read gigabytes of keys (a 9-men subspace holds about a billion)."""
        ds = self.history_group(a, b)["keys"]
        n = ds.shape[0]
        if n == 0:
            return -1
        name = f"history-keys/{subspace_name(a, b)}"
        size = ds.chunks[0] if ds.chunks else n

        def rows(lo: int, hi: int) -> np.ndarray:
            at = np.arange(lo, hi, dtype=np.int64)
            got = self._read_by_chunks(name, ds, at)
            return got if got is not None else ds[lo:hi]

        lo, hi = 0, (n + size - 1) // size  # the last chunk whose first key is at most ``key``
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if int(rows(mid * size, mid * size + 1)[0]) <= key:
                lo = mid
            else:
                hi = mid
        chunk = rows(lo * size, min(n, (lo + 1) * size))
        j = int(np.searchsorted(chunk, key))
        return lo * size + j if j < len(chunk) and int(chunk[j]) == key else -1

    def history_values(self, a: int, b: int) -> np.ndarray:
        """The values of those states, whole, in the order of their keys."""
        return self._whole(self.history_group(a, b)["values"], f"the side table of {subspace_name(a, b)}")

    def read_history(self, a: int, b: int, rows: np.ndarray) -> np.ndarray:
        """The values of the side table's ``rows`` (indices into its keys)."""
        ds = self.history_group(a, b)["values"]
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0:
            return np.zeros(0, dtype=np.uint16)
        got = self._read_by_chunks(f"history/{subspace_name(a, b)}", ds, rows)
        return got if got is not None else ds[...][rows]

    def _whole(self, ds: h5py.Dataset, what: str) -> np.ndarray:
        try:
            return chunks.read_values(ds)
        except (OSError, zlib.error, ValueError) as e:
            raise DatabaseError(f"{what} in {ds.file.filename} is corrupt: {e}") from None

    # -- draw ranks (ultra-strong play; storage.ranks) ---------------------------------------------
    def ranks_state(self) -> str:
        """"ranked", "none" (never ranked) or "stale" (ranked over other tiers than it holds now)."""
        text = self.secval_text()
        if text is None:
            return "none"
        from .ranks import parse_secval_text

        try:
            ranked = {tuple(r[:4]) for r in parse_secval_text(text)[2]}
        except ValueError as e:
            raise DatabaseError(f"{self.path}: its ultra_secval attribute is damaged ({e})") from None
        own = {parse_tier(n) for n in {*self._info, *self._pending} if n not in self._from_book}
        return "ranked" if ranked == own else "stale"

    def secval_text(self) -> str | None:
        """The sector values the ranks were computed with, as the main file stores them (Malom's
        ``.secval`` text; ``ultra.secval.stored_secvals`` reads it), or None."""
        text = self._ultra_attrs.get("ultra_secval")
        return None if text is None else str(text)

    def ranks_attrs(self) -> dict:
        """The main file's ``ultra_*`` attributes (empty where the database has no ranks)."""
        return dict(self._ultra_attrs)

    def rank_group(self, a: int, b: int, ha: int = 0, hb: int = 0) -> h5py.Group:
        """``/ultra/<name>`` of the tier: its ``rank`` and ``depth`` datasets and their attrs."""
        from .ranks import read_tier_ranks

        info = self.info(a, b, ha, hb)
        return read_tier_ranks(self._file(info.file), info.name, info.file)

    def read_ranks(self, a: int, b: int, slots: np.ndarray, ha: int = 0, hb: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(rank, depth) at ``slots`` of the tier (int16; ``ranks.NO_RANK`` and 0 where no draw)."""
        group = self.rank_group(a, b, ha, hb)
        slots = np.asarray(slots, dtype=np.int64)
        if slots.size == 0:
            return np.zeros(0, dtype=np.int16), np.zeros(0, dtype=np.int16)
        uniq, inverse = np.unique(slots, return_inverse=True)
        try:
            return group["rank"][uniq][inverse], group["depth"][uniq][inverse]
        except OSError as e:
            info = self.info(a, b, ha, hb)
            raise DatabaseError(f"the ranks of tier {info.name} in {info.file} are corrupt: {e}") from None

    def close(self) -> None:
        self._chunks.clear()
        for h in self._handles.values():
            h.close()
        self._handles.clear()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
