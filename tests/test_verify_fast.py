"""The verify's two judges of a position, position by position: the rules' own tests
(``moves.fold_moves``, ``placing_kernels._fold_placements``: successors ranked from the position's
free-point form, removals through the run's tables) and ``generate_moves``' list, each successor
ranked by the index. The successors' values are random (DUP among them), so that a successor
left out or ranked to another slot changes the expected value: the walks' tests on solved
databases see only the successors that decide."""

from __future__ import annotations

import itertools

import numba as nb
import numpy as np
import pytest

from solver.index import board_index
from solver.index.compact import rank_tables
from solver.index.slots import canon_setup
from solver.rules import make_rules
from solver.rules.boards import MAX_SYMMETRIES
from solver.rules.movegen import MAX_MOVES
from solver.rules.tables import game_tables
from solver.tiers import successor_kinds
from solver.values import DUP
from solver.verify import kernels as vk
from solver.verify import placing_kernels as pk
from solver.verify.moves import TWO_MILLS, setup_removals

CODES = 40  # random stored codes 0..CODES - 1: draws, wins and losses of many depths


@nb.njit
def _judges(a, b, ha, hb, moving, succ, g, ix, ranks, tabled, out):
    """out[k] = (fast, listed) for each canonical position (m, o) of tier (a, b, ha, hb), in the
    walks' order (o an orbit minimum of b men, m a set of o's free points); returns how many. With
    ``moving``, the twin walk's judges of moving pair (a, b) (``succ[4:]``: the twin, then after 1,
    2, 3 removals), else the tier walk's."""
    n, binom = ix.n, ix.binom
    per_twin = binom[n - b, a]
    syms = np.empty(MAX_SYMMETRIES, dtype=np.int64)
    buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
    fp = np.empty(n, dtype=np.int64)
    qsyms = np.empty((n, MAX_SYMMETRIES), dtype=np.int64)
    qn = np.empty(n, dtype=np.int64)
    qmc = np.empty(n, dtype=np.int64)
    qrep = np.empty(n, dtype=np.int64)
    qpts = np.empty((n, 3, 256), dtype=np.int32)
    memo = np.zeros(binom[n - b, a + 1], dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    low = np.empty(n + 1, dtype=np.int64)
    high = np.empty(n + 1, dtype=np.int64)
    k = 0
    for r in range(ix.rep_offset[b + 1] - ix.rep_offset[b]):  # the orbit minima of b men
        o = ix.reps[ix.rep_offset[b] + r]
        nsyms = canon_setup(o, ix, syms)
        nfree = vk._free_points(o, n, fp)
        free = ((1 << n) - 1) & ~o
        nq = setup_removals(o, tabled, qsyms, qn, qmc, qrep, qpts, g, ix)
        stamp[0] += 1
        rem = (nq, qsyms, qn, qmc, qrep, qpts, tabled, ranks)
        run = (fp, nfree, nq, qsyms, qn, qmc, qrep, memo, stamp, low, high, qpts, tabled, ranks)
        cm = (1 << a) - 1
        for j in range(per_twin):
            if j:
                cm = vk._next_colex(cm)
            m = vk._spread(cm, free, ix.deposit)
            if nsyms == 1 or vk._smallest_image(m, syms, nsyms, ix.sym_img):
                if moving:
                    out[k, 0] = vk._expected_fast(m, cm, o, r, syms, nsyms, rem, succ[4], succ[5], g, ix)
                    out[k, 1] = vk.expected_with_setup(m, o, o, r, syms, nsyms, per_twin, buf, succ[4], succ[5], succ[6], succ[7], b, g, ix)
                else:
                    out[k, 0] = pk._expected_fast(m, cm, o, ha, hb, r, syms, nsyms, run, succ, g, ix)
                    out[k, 1] = pk._expected_with_setup(m, o, ha, hb, r, syms, nsyms, buf, succ, g, ix)
                k += 1
    return k


def _random(size: int, rng) -> np.ndarray:
    v = rng.integers(0, CODES, size=size).astype(np.uint16)
    v[rng.random(size) < 0.02] = DUP
    return v


def _agree(out: np.ndarray, k: int, some_listed: bool) -> int:
    """The fast judge equals the list's wherever it serves (TWO_MILLS: it leaves the position to
    the list, only where ``some_listed``: a move closing two mills under one removal per mill, or
    a blocked side that passes); returns how many it left."""
    fast, listed = out[:k, 0], out[:k, 1]
    served = fast != TWO_MILLS
    assert k > 0 and np.array_equal(fast[served], listed[served])
    assert len(set(listed[served].tolist())) > 5  # the random values reach the verdicts
    assert some_listed or served.all()
    return int(k - served.sum())


MOVING = [
    # flying at 3 men (under -m slow: 15 s; the default run's test_verify.py verifies the standard
    # game with 3 men, whose 3-3 flies, by every way)
    pytest.param("standard", (), [(3, 3), (4, 3), (3, 4)], False, marks=pytest.mark.slow),
    ("twelve", ("double-mill=per-mill",), [(5, 3)], True),  # a slide onto a diagonal closes two mills
    ("six", ("removal=optional",), [(4, 4), (5, 3)], False),
    ("six", ("blocked=passes", "removal-from-mills=forfeit"), [(5, 5), (6, 4)], True),
    pytest.param("twelve", (), [(4, 4), (5, 3)], False, marks=pytest.mark.slow),  # the diagonal board
    pytest.param("no-flying", (), [(3, 4), (4, 4)], False, marks=pytest.mark.slow),
    pytest.param("standard", (), [(4, 4), (5, 4)], False, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("rule_set,options,pairs,listed", MOVING)
def test_the_moving_judges_agree_position_by_position(rule_set, options, pairs, listed):
    """Each pair with the removals ranked through the run's point tables and through
    ``slot_with`` (as the walk does in runs shorter than TABLED_FROM)."""
    rules = make_rules(rule_set, list(options))
    index = board_index(rules.board)
    g, ix, ranks = game_tables(rules), index.tables, rank_tables()
    rng = np.random.default_rng(1)
    left = 0
    for (a, b), tabled in itertools.product(pairs, (True, False)):
        none = np.zeros(0, dtype=np.uint16)  # (placements: none in the moving phase)
        succ = (none,) * 4 + tuple(_random(index.slots(b - k, a), rng) for k in range(4))
        out = np.empty((index.slots(a, b), 2), dtype=np.int64)
        k = _judges(a, b, 0, 0, True, succ, g, ix, ranks, tabled, out)
        left += _agree(out, k, listed)
    assert (left > 0) == listed


TIERS = [
    ("lasker", (), [(3, 3, 1, 1), (3, 4, 2, 0), (2, 3, 1, 1), (2, 4, 1, 1)], False),  # flying with a man in hand
    pytest.param("lasker", (), [(4, 3, 0, 2), (4, 4, 1, 0)], False, marks=pytest.mark.slow),
    ("six", ("lasker=on",), [(3, 3, 1, 1), (4, 2, 0, 1)], False),
    pytest.param("six", ("lasker=on", "double-mill=per-mill", "removal=optional"), [(4, 4, 1, 1), (5, 4, 0, 1)], True,
                 marks=pytest.mark.slow),  # (10 s)
    ("standard", (), [(3, 3, 2, 2), (4, 3, 0, 1), (3, 3, 1, 0)], False),  # placements alone; moves alone
    ("six", ("blocked=passes",), [(5, 5, 0, 1), (4, 5, 1, 0)], True),
]


@pytest.mark.parametrize("rule_set,options,tiers,listed", TIERS)
def test_the_tier_judges_agree_position_by_position(rule_set, options, tiers, listed):
    """As the moving pairs'; under Lasker's rule a position with a man in hand places and moves."""
    rules = make_rules(rule_set, list(options))
    index = board_index(rules.board)
    g, ix, ranks = game_tables(rules), index.tables, rank_tables()
    rng = np.random.default_rng(2)
    left = 0
    for t, tabled in itertools.product(tiers, (True, False)):
        a, b, ha, hb = t
        succ = tuple(_random(index.slots(x, y), rng) if min(x, y, hx, hy) >= 0 and x + hx >= 3 else np.zeros(0, dtype=np.uint16)
                     for x, y, hx, hy in successor_kinds(t))
        out = np.empty((index.slots(a, b), 2), dtype=np.int64)
        k = _judges(a, b, ha, hb, False, succ, g, ix, ranks, tabled, out)
        left += _agree(out, k, listed)
    assert (left > 0) == listed
