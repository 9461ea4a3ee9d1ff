"""``verify``'s held values (``HeldTiers``): what no later check reads goes at once, and past the
budget what is read again furthest ahead goes first, never what the next check reads (that the
verdicts are the same under any budget: ``test_verify.py``)."""

from __future__ import annotations

import numpy as np

from solver.verify.held import HeldTiers

KB = 1000  # bytes of each tier's values here (uint8, one byte a slot)


def held_with(reads, budget=None):
    loaded = []

    def load(t):
        loaded.append(t)
        return np.zeros(KB, dtype=np.uint8)

    return HeldTiers(load, reads, budget, lambda t: KB), loaded


def walk(h, reads):
    """Run the checks: each reads its tiers, then says it is done."""
    for i, ts in enumerate(reads):
        for t in ts:
            h(t)
        h.done(i)


def test_without_budget_a_tier_goes_after_its_last_read():
    reads = [["A", "B"], ["A", "C"], ["C"], ["D"]]
    h, loaded = held_with(reads)
    h("A"), h("B")
    h.done(0)
    assert sorted(h.held) == ["A"]  # B is read by no later check
    h("A"), h("C")
    h.done(1)
    assert sorted(h.held) == ["C"]
    assert loaded == ["A", "B", "C"]


def test_over_budget_the_furthest_next_read_goes_first():
    # after check 0, A is read next at 1, B at 3, C at 2: with room for one tier beside what
    # check 1 reads, B (furthest) goes and C stays
    reads = [["A", "B", "C"], ["A"], ["C"], ["B"]]
    h, loaded = held_with(reads, budget=2 * KB)
    for t in reads[0]:
        h(t)
    h.done(0)
    assert sorted(h.held) == ["A", "C"]
    for i, ts in enumerate(reads[1:], start=1):
        for t in ts:
            h(t)
        h.done(i)
    assert loaded == ["A", "B", "C", "B"]  # B read back, A and C never


def test_room_is_kept_for_what_the_next_check_must_load():
    # check 1 loads D (not held): only one of A, C fits beside it in 2 KB; C is read sooner
    reads = [["A", "C"], ["D"], ["C"], ["A"]]
    h, _ = held_with(reads, budget=2 * KB)
    h("A"), h("C")
    h.done(0)
    assert sorted(h.held) == ["C"]


def test_the_next_checks_reads_stay_whatever_the_budget():
    reads = [["A", "B", "C"], ["A", "B"], ["C"]]
    h, _ = held_with(reads, budget=1)
    for t in reads[0]:
        h(t)
    h.done(0)
    assert sorted(h.held) == ["A", "B"]  # C goes: it is read after check 1


def test_derived_arrays_count_and_go_with_their_tier():
    reads = [["A", "B"], ["B"], ["A"]]
    h, _ = held_with(reads, budget=3 * KB)
    h("A")
    extra = h.derived("A", lambda v: np.zeros(2 * KB, dtype=np.uint8))
    assert h.derived("A", lambda v: 1 / 0) is extra  # made once
    h("B")
    assert h.nbytes() == 4 * KB
    h.done(0)
    assert sorted(h.held) == ["B"] and not h.extra  # A with its 2 KB went: over budget, read last


def test_held_bytes_stay_within_budget_between_checks():
    """Random reads: after each check, what is held plus what the next check must load fits the
    budget (or the next check's reads alone exceed it); fewer tiers in memory means some are read
    back, which an unbounded run never does."""
    rng = np.random.default_rng(1)
    names = [f"T{i}" for i in range(12)]
    reads = [[str(t) for t in rng.choice(names, size=rng.integers(1, 4), replace=False)] for _ in range(60)]
    h, loaded = held_with(reads, budget=4 * KB)
    for i, ts in enumerate(reads[:-1]):
        for t in ts:
            h(t)
        h.done(i)
        coming = set(reads[i + 1])
        assert h.nbytes() + KB * len(coming - set(h.held)) <= max(4 * KB, KB * len(coming))
    unbounded, loaded_all = held_with(reads)
    walk(unbounded, reads)
    assert len(loaded_all) == len(set(loaded_all)) < len(loaded)
