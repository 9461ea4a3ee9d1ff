"""The solved values that ``verify`` keeps in memory between checks, within a budget.

A check reads its own tier and the tiers its moves lead to; most of them are read again by
later checks. Holding every one until its last use (as the verify did) took 17.6 GiB for the
standard game with one removal per mill and would take over 50 GiB for Lasker's tiers with men in
hand, where a tier is read from dozens of others. So the held tiers are kept within a budget: past
it, those whose next read lies furthest ahead are let go first (they are read back from the
database when their turn comes), never one the next check reads.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

import numpy as np

from ..engine.held import over_budget
from ..tiers import Tier


class HeldTiers:
    """Values of the tiers that ``reads`` (for each check in order, the tiers it reads) lists,
    loaded with ``load`` when first asked for. ``done(i)`` after check ``i`` lets go of what no
    later check reads and, with a ``budget`` (bytes), of what does not fit: the held values and
    what was derived from them (``derived``), plus what the next check must still load
    (``size``: the bytes of a tier's values, without reading them). ``checksum(t)``: ``digest``
    of t's values as loaded, computed once a run (a tier let go and loaded again keeps it)."""

    def __init__(
        self,
        load: Callable[[Tier], np.ndarray],
        reads: list[list[Tier]],
        budget: int | None = None,
        size: Callable[[Tier], int] | None = None,
        digest: Callable[[np.ndarray], str] | None = None,
    ):
        self.load, self.reads, self.budget, self.size, self.digest = load, reads, budget, size, digest
        self.sums: dict[Tier, str] = {}
        self.uses: dict[Tier, list[int]] = {}  # the checks that read each tier, in order
        for i, ts in enumerate(reads):
            for t in dict.fromkeys(ts):
                self.uses.setdefault(t, []).append(i)
        self.held: dict[Tier, np.ndarray] = {}
        self.extra: dict[Tier, np.ndarray] = {}  # derived from a held tier's values, let go with them

    def __call__(self, t: Tier) -> np.ndarray:
        if t not in self.held:
            self.held[t] = self.load(t)
        return self.held[t]

    def checksum(self, t: Tier) -> str:
        if t not in self.sums:
            self.sums[t] = self.digest(self(t))
        return self.sums[t]

    def derived(self, t: Tier, make: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``make(values of t)``, kept while t is held."""
        if t not in self.extra:
            self.extra[t] = make(self(t))
        return self.extra[t]

    def nbytes(self) -> int:
        return sum(v.nbytes for v in self.held.values()) + sum(v.nbytes for v in self.extra.values())

    def done(self, i: int) -> None:
        """Check ``i`` is over: keep what later checks read, within the budget."""
        later = {t: nxt for t in self.held if (nxt := self._next_use(t, i)) is not None}
        for t in [t for t in self.held if t not in later]:
            self._drop(t)
        if self.budget is None:
            return
        coming = self.reads[i + 1] if i + 1 < len(self.reads) else []
        reserve = sum(self.size(t) for t in set(coming) if t not in self.held) if self.size else 0
        sizes = {t: self.held[t].nbytes + (self.extra[t].nbytes if t in self.extra else 0) for t in self.held}
        # over_budget's distance: 0 for what the next check reads (never dropped)
        for t in over_budget(sizes, {t: later[t] - (i + 1) for t in sizes}, self.budget - reserve):
            self._drop(t)

    def _next_use(self, t: Tier, i: int) -> int | None:
        uses = self.uses.get(t, [])
        k = bisect_right(uses, i)
        return uses[k] if k < len(uses) else None

    def _drop(self, t: Tier) -> None:
        del self.held[t]
        self.extra.pop(t, None)


def plan_reads(reads: list[list[Tier]], size: Callable[[Tier], int], budget: int | None) -> dict:
    """What ``HeldTiers`` does over ``reads`` within ``budget``, nothing read: the most bytes of
    values in memory at once (a check's own reads included) and at which check, and the bytes
    read from the database (a tier read back counted each time; ``once_bytes``: each tier once)."""

    class Stub:
        def __init__(self, t: Tier):
            self.nbytes = size(t)

    read = []
    held = HeldTiers(lambda t: read.append(t) or Stub(t), reads, budget, size)
    peak, at = 0, None
    for i, ts in enumerate(reads):
        for t in ts:
            held(t)
        if held.nbytes() > peak:
            peak, at = held.nbytes(), i
        held.done(i)
    return {
        "peak_bytes": peak, "peak_check": at, "read_bytes": sum(size(t) for t in read),
        "once_bytes": sum(size(t) for t in set(read)),
    }
