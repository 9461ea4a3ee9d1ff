"""``morris verify`` of a history-rule database's moving subspaces (docs/history-rule.md), by the
verify's own records, canonical forms and numbering (``history_records``, ``history_kernels``):
nothing of ``solver.history``, whose numbering the check is there to hold to the rules.

A subspace (a, b) is checked holding only itself and the subspaces its moves lead into
(``reached``), each read from the file a piece at a time (at 9 men the moving phase does not fit
in memory at once): its plain slots, and its side table's keys split into a byte a slot (how many
keys it has) and a code a key, with the keys' values. The subspace's two checksums are computed
from what is read (``read_checksums`` keeps those of every subspace read). ``check_slots`` then
judges every slot: its stored states against those the rules admit, each state's value against
its legal moves' successors. Held: 3.25 bytes a slot and 6 a key of each subspace read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import DatabaseError, MorrisError
from ..index import board_index
from ..rules.notation import Position, format_history_position
from ..rules.tables import game_tables
from ..storage.chunks import pieces
from ..storage.files import checksum_pieces, history_checksum_pieces, subspace_name
from ..tiers import removal_depth
from ..values import DUP, describe
from . import history_kernels as hk
from .history_records import CODE_BITS, LOW10, record_tables, to_ban

MAX_LISTED = 5
CALL_SLOTS = 1 << 22  # slots a kernel call takes (its fault counts: a row a CHUNK)
WHAT = {
    hk.EXTRA: "stored, but not a state the rules admit here (a dead record, both on one point, not the least image, or a duplicate slot)",
    hk.MISSING: "a state the rules admit, not stored",
    hk.UNREACHED: "a legal move leads to a state that is not stored",
    hk.OVERFLOW: "more records than the check's buffers hold",
}


def reached(a: int, b: int, depth: int, present) -> list[tuple[int, int]]:
    """Moving subspace (a, b) and those a move from it leads into (the sides swap; a removal takes
    up to ``depth`` of the opponent's men), as far as ``present`` has them: a missing one shows as
    the states whose successors are not found."""
    out = [(a, b)] + [(b - k, a) for k in range(depth + 1)]
    return [t for i, t in enumerate(out) if t in present and t not in out[:i]]


@dataclass
class HistoryVerdict:
    checksum_ok: bool
    mismatches: int = 0  # states whose value or presence is wrong
    error: str | None = None
    examples: list[str] = field(default_factory=list)
    states: int = 0  # states read: positions and keys
    faults: list[int] = field(default_factory=list)  # states of each fault kind (``history_kernels``)


@dataclass
class _Held:
    """The subspaces a check reads, in the arrays ``history_kernels`` take."""

    info: np.ndarray
    plain: np.ndarray
    counts: np.ndarray
    bfirst: np.ndarray
    codes: np.ndarray
    xvals: np.ndarray
    faults: dict  # (a, b): keys out of order, outside the subspace or too many for a slot
    states: dict  # (a, b): positions and keys read


class HistoryCheck:
    """``check(s)``: the ``HistoryVerdict`` of the moving subspace ``s`` (a ``SubspaceInfo``) of
    the database ``db``."""

    def __init__(self, db):
        self.db, rules = db, db.rules
        self.rt = record_tables(rules)  # (one line where the check knows no such rule)
        self.g = game_tables(replace(rules, reclose="allowed"))
        self.index = board_index(rules.board)
        self.present = {(s.mover, s.opponent) for s in db.subspaces()}
        self.depth = removal_depth(rules)
        self.read_checksums: dict[str, tuple[str, str]] = {}  # computed from what was read

    def check(self, s) -> HistoryVerdict:
        a, b = s.mover, s.opponent
        try:
            held = self._read(reached(a, b, self.depth, self.present))
        except (MorrisError, OSError, ValueError) as e:
            return HistoryVerdict(False, error=str(e), states=int(s.history["states"]) if s.history else s.positions)
        sums = self.read_checksums[s.name]
        verdict = HistoryVerdict(sums == (s.checksum, s.history["checksum"]), states=held.states[a, b])
        others = [f"{subspace_name(*t)} ({n:,} keys)" for t, n in held.faults.items() if n and t != (a, b)]
        if others:
            verdict.error = f"side tables out of order or overfull: {', '.join(others)}"
            return verdict
        verdict.mismatches = held.faults[a, b]
        faults = np.zeros(hk.KINDS, dtype=np.int64)
        listed: list[np.ndarray] = []
        slots = int(held.info[a, b, hk.SLOTS])
        for lo in range(0, slots, CALL_SLOTS):
            hi = min(slots, lo + CALL_SLOTS)
            chunks = (hi - lo + hk.CHUNK - 1) // hk.CHUNK
            found = np.zeros((chunks, hk.KINDS), dtype=np.int64)
            examples = np.full((chunks, 5), -1, dtype=np.int64)
            hk.check_slots(a, b, lo, hi, held.info, held.plain, held.counts, held.bfirst, held.codes, held.xvals,
                           self.rt, self.g, self.index.tables, found, examples)
            faults += found.sum(axis=0)
            if len(listed) < MAX_LISTED:
                listed.extend(examples[examples[:, 0] >= 0][: MAX_LISTED - len(listed)])
        verdict.mismatches += int(faults.sum())
        verdict.faults = [int(x) for x in faults]
        verdict.examples = [self._example(s.name, a, b, *(int(x) for x in row)) for row in listed]
        lacking = [subspace_name(b - k, a) for k in range(self.depth + 1) if b - k >= 3 and (b - k, a) not in self.present]
        if lacking and faults[hk.UNREACHED]:
            verdict.error = f"its moves lead into {', '.join(lacking)}, not in the database"
        return verdict

    def _read(self, subs: list[tuple[int, int]]) -> _Held:
        """The subspaces ``subs`` read into one ``_Held``, their checksums into ``read_checksums``."""
        db, men = self.db, self.db.rules.men
        info = np.full((men + 1, men + 1, 3), -1, dtype=np.int64)
        sizes = []
        at = [0, 0, 0]  # slots, blocks, keys so far
        for a, b in subs:
            n, side = self.index.slots(a, b), db.history_group(a, b)
            keys = side["keys"].shape[0]
            if db.dataset(a, b).shape != (n,):
                raise DatabaseError(f"subspace {subspace_name(a, b)} holds {db.dataset(a, b).shape[0]:,} values, not the {n:,} slots of its index")
            if side["values"].shape != (keys,):
                raise DatabaseError(f"the side table of {subspace_name(a, b)} holds {keys:,} keys and {side['values'].shape[0]:,} values")
            info[a, b] = (at[0], n, at[1])
            sizes.append((at[2], keys))
            at = [at[0] + n, at[1] + -(-n // (1 << hk.BLOCK_BITS)), at[2] + keys]
        held = _Held(info, np.empty(at[0], np.uint16), np.zeros(at[0], np.uint8), np.empty(at[1], np.int64),
                     np.empty(at[2], np.uint32), np.empty(at[2], np.uint16), {}, {})
        for (a, b), (k0, keys) in zip(subs, sizes):
            p0, n, b0 = (int(x) for x in info[a, b])
            plain, counts = held.plain[p0 : p0 + n], held.counts[p0 : p0 + n]
            positions = [0]
            fill = _into(pieces(db.dataset(a, b)), plain, positions)
            values_sum = checksum_pieces(fill)
            side = db.history_group(a, b)
            faults = [0]
            side_sum = history_checksum_pieces(
                self._split(pieces(side["keys"]), n, p0, held, k0, faults), _into(pieces(side["values"]), held.xvals[k0 : k0 + keys], [0])
            )
            if int(counts.sum(dtype=np.int64)) != keys:
                faults[0] = max(faults[0], 1)
            per_block = np.add.reduceat(counts, np.arange(0, n, 1 << hk.BLOCK_BITS), dtype=np.int64)
            held.bfirst[b0] = k0
            np.cumsum(per_block[:-1], out=held.bfirst[b0 + 1 : b0 + len(per_block)])
            held.bfirst[b0 + 1 : b0 + len(per_block)] += k0
            held.faults[a, b] = faults[0]
            held.states[a, b] = positions[0] + keys
            self.read_checksums[subspace_name(a, b)] = (values_sum, side_sum)
        return held

    @staticmethod
    def _split(parts, slots, p0, held, row, faults):
        """The keys' pieces passed on, each split into counts and codes on the way."""
        last = np.full(1, -1, dtype=np.int64)
        for keys in parts:
            keys = np.ascontiguousarray(keys, dtype=np.int64)
            faults[0] += int(hk.split_keys(keys, slots, p0, held.counts, held.codes, row, last))
            row += len(keys)
            yield keys

    def _example(self, name: str, a: int, b: int, slot: int, code: int, kind: int, stored: int, want: int) -> str:
        m, o = self.index.unrank(a, b, slot)
        rules = self.db.rules
        try:
            text = format_history_position(Position(m, o, "w"), rules.board_data, to_ban(code >> CODE_BITS, rules), to_ban(code & LOW10, rules))
        except (ValueError, IndexError):  # (a stored code the rules cannot name)
            text = f"{format_history_position(Position(m, o, 'w'), rules.board_data)} code {code}"
        head = f"{name} slot {slot} ({text})"
        if kind == hk.WRONG:
            return f"{head}: stored {describe(stored)}, successors give {describe(want)}"
        return f"{head}: {WHAT[kind]}"


def _into(parts, out: np.ndarray, positions: list[int]):
    """The pieces passed on, each copied into ``out`` in turn; ``positions[0]`` counts the
    values that hold a position (not DUP)."""
    at = 0
    for p in parts:
        out[at : at + len(p)] = p
        at += len(p)
        positions[0] += int(np.count_nonzero(p != DUP))
        yield p
