"""The history rule's forward check (``solver.history.verify.check_half``) judges each state by its
legal moves, with any values behind them: the successors are given random values, each sampled
state of a twin subspace the value that the plain reference's moves give it
(``tests/reference_history.py``: its own move generator, bans and records), and half of those
then a wrong one, which the check must flag, and only those. A check run on solved databases
only sees the successors that decide; here every legal successor, forbidden move and record counts.

The twin subspace 3-4's moves lead into 4-3 and 3-3 only, so its states' values can be set without
changing what any of them should be."""

from __future__ import annotations

import numpy as np
import pytest
from reference_history import HistoryGen

from solver.history.layout import HistorySubspace, Store
from solver.history.states import V0, state_numbers, subspace_index
from solver.history.tables import history_tables, plain_rules
from solver.history.verify import check_half
from solver.index.tables import board_index
from solver.rules import make_rules
from solver.rules.tables import game_tables
from solver.values import DUP

# Under -m slow, the whole module: compiling the history rule's engine takes about 150 s of a
# worker from an empty numba cache, half the default run's budget. (test_history_rule.py, the
# reference, the notation and the refusals, stays in the default run.)
pytestmark = pytest.mark.slow

CODE_BITS = 10


def expected(codes: list[int | None]) -> int:
    """The stored code a state's successors' codes give it (None: the successor's side has lost)."""
    if not codes:
        return 1  # blocked: lost in 0
    losses = [1 if c is None else c for c in codes if c is None or c % 2 == 1]
    if losses:
        return min(losses) + 1  # the quickest win
    if 0 in codes:
        return 0
    return max(codes) + 1  # the longest loss


def sample_states(gen: HistoryGen, n_points: int, rng, want_records: int, want_plain: int):
    """States (mover, opp, ban, pending) of random 3-against-4 positions: ``want_records`` with a
    record, ``want_plain`` without."""
    with_records, plain = [], []
    while len(with_records) < want_records or len(plain) < want_plain:
        pts = rng.permutation(n_points)
        m = sum(1 << int(p) for p in pts[:3])
        o = sum(1 << int(p) for p in pts[3:7])
        for code in gen.states(m, o):
            state = (m, o, code >> CODE_BITS, code & ((1 << CODE_BITS) - 1))
            if code and len(with_records) < want_records:
                with_records.append(state)
            elif not code and len(plain) < want_plain:
                plain.append(state)
    return with_records + plain


@pytest.mark.parametrize("reading", ["same-man", "running-mill"])
# (the standard board: the 3-men side flies; its whole 3-4 checked takes 15 s, so it runs with the slow tests)
@pytest.mark.parametrize("board", ["six", pytest.param("standard", marks=pytest.mark.slow)])
def test_each_state_is_judged_by_its_legal_moves_whatever_their_values(board, reading):
    rules = make_rules(board, [f"reclose={reading}", "men=4"])
    ht, bix = history_tables(rules), board_index(rules.board)
    ix = bix.tables
    rng = np.random.default_rng(11)
    parts = []
    for a, b in [(3, 4), (4, 3), (3, 3)]:  # 3-4 and what its moves reach, numbered as the solve does
        counts, block_first = subspace_index(a, b, bix.slots(a, b), ht, ix)
        # every kind of value, any depth (nothing solved: the check must not care)
        parts.append(HistorySubspace(a, b, bix.slots(a, b), counts, block_first, rng.integers(0, 24, int(counts.sum())).astype(np.uint16), rules))
    store = Store(parts)
    gen = HistoryGen(rules)

    def numbers(states):
        # (rows of one contiguous array each: the kernel compiles for C-layout arrays only once)
        cols = np.array(states, dtype=np.int64).reshape(-1, 4).T.copy()
        nums = state_numbers(cols[0], cols[1], cols[2], cols[3], *store.args(), ht, ix)
        assert (nums >= 0).all(), "a state of the reference missing from the engine's numbering"
        return nums

    states = sample_states(gen, int(ix.n), rng, want_records=700, want_plain=300)
    nums = numbers(states)
    succs = [gen.successors(*state) for state in states]
    known = [s for row in succs for s in row if s is not None]
    codes = iter(store.values[numbers(known)].tolist())
    want: dict[int, int] = {}
    for row, num in zip(succs, nums.tolist()):
        w = expected([None if s is None else next(codes) for s in row])
        assert want.setdefault(num, w) == w  # (symmetric states share a number, so their value)
    picked = np.array(sorted(want), dtype=np.int64)
    wrong = rng.random(len(picked)) < 0.5
    for num, w in zip(picked, wrong):
        v = want[int(num)]
        store.values[num] = (v + 2 if v else 2) if w else v  # a later win or loss, or a win for a draw
    assert DUP not in store.values[picked]
    bad = np.zeros(store.states_of[3, 4], dtype=np.bool_)
    err = np.zeros(3, np.int64)
    check_half(3, 4, *store.args(), store.values, ht, ix, game_tables(plain_rules(rules)), bad, err)
    assert not err.any()
    flagged = bad[picked - store.info[3, 4, V0]]
    assert np.array_equal(flagged, wrong), (int(flagged.sum()), int(wrong.sum()), int((flagged != wrong).sum()))
    records = sum(1 for s in states if s[2] or s[3])
    assert records >= 700 and sum(1 for s in states if s[2] and s[3]) > 0  # both kinds of record met
