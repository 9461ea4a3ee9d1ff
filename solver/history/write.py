"""A solved half of a group written to its subspace file a piece at a time (``write_half``).

``storage.write.add_subspaces`` takes a subspace's side table whole: at 9 men a half's keys
alone are 8.7 GB (8 bytes a state with a record), and its checksum copies them once more. Here
the keys are made (``HistorySubspace.side_piece``), compressed and hashed a piece of slots at a
time, into the same file as ``storage.writer.write_subspace`` writes (the same datasets, chunks,
filters, attrs and checksums, which ``morris verify`` recomputes): what a half's write holds
beside the group is its plain values (2 bytes a slot) and its side table's values (2 bytes a
state with a record).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import h5py
import numpy as np

from ..engine.kernels.codes import tally
from ..errors import DatabaseError
from ..rules.rulesets import RuleSet
from ..storage import chunks
from ..storage.files import HISTORY_FORMAT, subspace_dir, subspace_file, subspace_name
from ..storage.writer import chunked_dataset, fsync_path, write_atomic, write_dataset, write_header
from ..storage.write import link_subspaces
from .layout import HistorySubspace

PIECE_CHUNKS = 1 << 12  # chunks of 1,024 slots made at a time: 4 M slots, some 8 M keys (64 MB)


class _Chunks:
    """A dataset filled a piece at a time: each chunk written as it fills, shuffled and deflated
    as ``storage.chunks.write_values`` writes it (the last one padded with zeros), and every piece
    hashed into ``digest``."""

    def __init__(self, ds: h5py.Dataset, digest):
        self.ds, self.digest, self.size = ds, digest, ds.chunks[0]
        self.buf = np.zeros(self.size, ds.dtype)
        self.fill = self.start = 0

    def add(self, piece: np.ndarray) -> None:
        piece = np.ascontiguousarray(piece, dtype=self.buf.dtype.newbyteorder("<"))
        self.digest.update(memoryview(piece).cast("B"))
        i = 0
        while i < len(piece):
            n = min(self.size - self.fill, len(piece) - i)
            self.buf[self.fill : self.fill + n] = piece[i : i + n]
            self.fill += n
            i += n
            if self.fill == self.size:
                self._flush()

    def _flush(self) -> None:
        self.ds.id.write_direct_chunk((self.start,), chunks.compress_chunk(self.buf[: self.fill], self.size))
        self.start += self.size
        self.fill = 0

    def close(self) -> None:
        if self.fill:
            self._flush()


def write_half(path: Path, rules: RuleSet, h: HistorySubspace, seconds: float, cpu: float) -> tuple[dict, dict]:
    """Write ``h`` into its subspace file of the database at ``path`` and link it; returns (the
    plain positions' statistics, the side table's attrs)."""
    name = subspace_name(h.a, h.b)
    canon_before, nx = h.side_offsets()
    plain = np.empty(h.slots, np.uint16)
    xvals = np.empty(nx, np.uint16)
    out: dict = {}

    def fill(f: h5py.File) -> None:
        write_header(f, rules)
        g = f.require_group("history").create_group(name)
        digest = hashlib.sha256()  # (the side table's checksum: the keys, then the values)
        keys = _Chunks(chunked_dataset(g, "keys", nx, np.int64), digest)
        x, nchunks = 0, len(canon_before)
        for c in range(0, nchunks, PIECE_CHUNKS):
            k, v = h.side_piece(c, min(nchunks, c + PIECE_CHUNKS), canon_before, nx, plain)
            keys.add(k)
            xvals[x : x + len(v)] = v
            x += len(v)
        keys.close()
        if x != nx:  # (an explicit check: ``python -O`` drops asserts)
            raise DatabaseError(f"{name}: the side table's pieces hold {x:,} states, {nx:,} expected; nothing was written")
        vals = _Chunks(chunked_dataset(g, "values", nx, np.uint16), digest)
        vals.add(xvals)
        vals.close()
        stats, side = subspace_stats_of(h.a, h.b, plain, xvals, seconds, cpu)
        write_dataset(f["subspaces"], name, plain, stats)
        g.attrs["history_format"] = HISTORY_FORMAT
        g.attrs["reclose"] = rules.reclose
        g.attrs["keys"] = nx
        for key, value in side.items():
            g.attrs[key] = value
        g.attrs["checksum"] = "sha256:" + digest.hexdigest()
        out.update(stats=stats, side=side)

    folder = subspace_dir(path)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        fsync_path(folder.parent)
    write_atomic(subspace_file(path, name), fill)
    link_subspaces(path, rules)
    return out["stats"], out["side"]


def _side_stats(plain, side) -> dict:
    p, r = tally(plain), tally(side)
    return {
        "states": int(p[0] + r[0]), "win": int(p[1] + r[1]), "draw": int(p[2] + r[2]), "loss": int(p[3] + r[3]),
        "max_win": int(max(p[4], r[4])), "max_loss": int(max(p[5], r[5])),
    }


def _plain_stats(a: int, b: int, plain, seconds: float, cpu: float) -> dict:
    pos, win, draw, loss, max_win, max_loss = (int(x) for x in tally(plain))
    return {
        "mover": a, "opponent": b, "mover_hand": 0, "opponent_hand": 0, "positions": pos, "slots": len(plain),
        "win": win, "draw": draw, "loss": loss, "max_win": max_win, "max_loss": max_loss,
        "max_plies": max(max_win, max_loss), "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
    }


def subspace_stats_of(a: int, b: int, plain, side, seconds: float, cpu: float) -> tuple[dict, dict]:
    """(the plain positions' statistics, the side table's tallies over every state) from the
    stored layout: ``plain`` the plain slots, ``side`` the side table's values."""
    return _plain_stats(a, b, plain, seconds, cpu), _side_stats(plain, side)


def with_states(stats: dict, history: dict | None) -> dict:
    """A row's statistics with the states of its side table (``states``: positions and the states
    with a record)."""
    return dict(stats, states=int(history["states"]) if history else stats["positions"])
