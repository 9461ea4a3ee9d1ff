"""A tier's compressed chunks written and read on every core.

HDF5 runs its filters (here shuffle, then gzip) on one thread, so a tier of a gigabyte took
seconds to write and to read while the other cores waited: the whole 9-men game writes some
57 GB of values and reads much of it back. Here the same pipeline runs in a thread pool and the
chunks go to and from the file as they are (``write_direct_chunk``, ``read_direct_chunk``).
The deflate streams come from Intel's ISA-L (``isal``): the same zlib format that HDF5's gzip
filter reads, made about 7x faster than zlib at level 4 for 4 to 11 % more bytes (both let go of the
GIL). So any HDF5 reader (h5py alone) reads the files with its own filters. A dataset whose
layout is not the one written here (another filter, another chunk size, a chunk not written) is
read by HDF5 itself.
"""

from __future__ import annotations

import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np
from isal import isal_zlib

LEVEL = 1  # ISA-L's level (0-3); the datasets say gzip level 1, what HDF5 would use to write more


def threads() -> int:
    """The kernels' threads where numba is loaded (``--threads``), else every core: a lookup
    process reads tiers without loading numba."""
    numba = sys.modules.get("numba")
    return numba.get_num_threads() if numba is not None else os.cpu_count() or 1


def _shuffle(chunk: np.ndarray) -> np.ndarray:
    """HDF5's shuffle filter: the values' first bytes, then their second bytes, ... (a
    contiguous array of itemsize planes). Two-byte values by shifts: a transpose copies at a
    fifth of the speed."""
    if chunk.itemsize == 2:
        planes = np.empty((2, chunk.shape[0]), dtype=np.uint8)
        word = chunk.view(np.uint16)
        planes[0] = word  # (the low byte: numpy casts modulo 256)
        planes[1] = word >> 8
        return planes
    return np.ascontiguousarray(chunk.view(np.uint8).reshape(-1, chunk.itemsize).T)


def _unshuffle(data: bytes, dtype: np.dtype, count: int) -> np.ndarray:
    planes = np.frombuffer(data, dtype=np.uint8).reshape(dtype.itemsize, count)
    if dtype.itemsize == 2:
        word = planes[1].astype(np.uint16)
        word <<= 8
        word |= planes[0]
        return word.view(dtype)
    return np.ascontiguousarray(planes.T).view(dtype).reshape(count)


def compress_chunk(chunk: np.ndarray, size: int) -> bytes:
    """One chunk of ``size`` values as the dataset stores it: shuffled and deflated, a last chunk
    padded with zeros (HDF5 stores it whole, past the end as zeros)."""
    if chunk.shape[0] < size:
        chunk = np.concatenate([chunk, np.zeros(size - chunk.shape[0], dtype=chunk.dtype)])
    return isal_zlib.compress(_shuffle(chunk), LEVEL)


def write_values(ds: h5py.Dataset, values: np.ndarray) -> str:
    """Write ``values`` into ``ds`` (created with chunks, gzip at ``LEVEL`` and shuffle, nothing
    written yet) chunk by chunk, compressed in threads; returns the sha256 of the values (little
    endian), computed beside the compression."""
    values = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<"))
    size = ds.chunks[0]
    starts = range(0, values.shape[0], size)

    def compress(start: int) -> bytes:
        return compress_chunk(values[start : start + size], size)

    digest = hashlib.sha256()
    with ThreadPoolExecutor(threads()) as pool:
        hashed = pool.submit(digest.update, memoryview(values).cast("B"))
        for start, data in zip(starts, pool.map(compress, starts)):
            ds.id.write_direct_chunk((start,), data)
        hashed.result()
    return "sha256:" + digest.hexdigest()


def direct(ds: h5py.Dataset) -> bool:
    """Whether the chunks of ``ds`` are the ones ``write_values`` writes."""
    return ds.ndim == 1 and ds.chunks is not None and ds.compression == "gzip" and ds.shuffle and not ds.fletcher32 and ds.scaleoffset is None


def read_chunk(ds: h5py.Dataset, start: int) -> np.ndarray | None:
    """The values of the chunk that begins at ``start`` (whole: the last one runs past the end),
    inflated by ISA-L from the raw chunk (a lookup reads a few slots of many chunks: HDF5's own
    zlib took several times longer). None where the layout is not ``write_values``' or HDF5
    skipped a filter for this chunk: the caller reads through HDF5 then."""
    if not direct(ds):
        return None
    size, dtype = ds.chunks[0], ds.dtype
    mask, data = ds.id.read_direct_chunk((start,))
    if mask != 0:
        return None
    try:
        plain = isal_zlib.decompress(data, bufsize=size * dtype.itemsize)
    except isal_zlib.error as e:
        raise ValueError(f"the chunk at {start} does not decompress ({e})") from None
    return _unshuffle(plain, dtype, size)


def read_values(ds: h5py.Dataset) -> np.ndarray:
    """The whole dataset, its chunks decompressed in threads (by HDF5 itself where the layout
    is another)."""
    if not direct(ds):
        return ds[...]
    n, size, dtype = ds.shape[0], ds.chunks[0], ds.dtype
    if ds.id.get_num_chunks() != -(-n // size):  # a chunk never written reads as zeros
        return ds[...]
    out = np.empty(n, dtype=dtype)

    def expand(start: int, data: bytes) -> None:
        try:
            plain = isal_zlib.decompress(data, bufsize=size * dtype.itemsize)  # (one buffer, no regrowing)
        except isal_zlib.error as e:
            raise ValueError(f"the chunk at {start} does not decompress ({e})") from None
        stop = min(n, start + size)
        out[start:stop] = _unshuffle(plain, dtype, size)[: stop - start]

    with ThreadPoolExecutor(threads()) as pool:  # (chunks read here while the pool expands)
        pending = []
        for start in range(0, n, size):
            mask, data = ds.id.read_direct_chunk((start,))
            if mask != 0:  # a filter skipped for this chunk: let HDF5 undo what it did
                for f in pending:
                    f.cancel()
                return ds[...]
            pending.append(pool.submit(expand, start, data))
        for f in pending:
            f.result()
    return out


PIECE = 1 << 22  # entries ``pieces`` reads at a time (a multiple of the files' chunks)


def pieces(ds: h5py.Dataset):
    """A dataset read ``PIECE`` entries at a time (a subspace or side table too large to read
    whole: a checksum, a check that streams it into place)."""
    for lo in range(0, ds.shape[0], PIECE):
        yield ds[lo : lo + PIECE]
