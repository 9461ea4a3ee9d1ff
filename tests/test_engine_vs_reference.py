"""The engine against the plain-Python reference solver (tests/reference.py: own move generation, no
symmetry): position by position where the reference can solve the whole subspace, and on seeded
samples through the reference's move generator where it cannot; plus ``verify`` on databases of
several option sets."""

from __future__ import annotations

import os
from collections import Counter
from functools import reduce
from itertools import combinations
from operator import or_
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from reference import DRAW, LOSS, WIN, MoveGen, bits, solve_reference

from solver.engine.order import pairs_up_to
from solver.engine.pair import solve_pair
from solver.engine.run import solve
from solver.index import board_index
from solver.rules import make_rules
from solver.storage.database import Database
from solver.values import DUP, describe
from solver.verify.check import verify

# the engines' parallel loops and atomics compared under two threads (tests/conftest.py)
pytestmark = pytest.mark.threads(2)

quiet = {"progress": False, "echo": lambda s: None}
PER_MILL = ("double-mill=per-mill",)
FORFEIT = ("removal-from-mills=forfeit",)


def _engine_values(db: Database, rules, a: int, b: int, movers: np.ndarray, opps: np.ndarray) -> np.ndarray:
    bi = board_index(rules.board)
    slots = bi.rank_many(movers, opps)
    return db.values(a, b)[slots]


def _compare_with_reference(tmp_path: Path, rules, max_men: int, subspaces=None, workers: int = 1, ref=None, path=None):
    """Every position the reference solves (``ref``, else solved here) holds the same value and
    plies in the engine's database (``path``, else solved here)."""
    if ref is None:
        ref = solve_reference(rules, max_men=max_men, subspaces=subspaces, workers=workers)
    if path is None:
        path = tmp_path / f"{rules.name}.h5"
        solve(rules, max_men, path, **quiet)
    with Database(path) as db:
        for (a, b), sub in ref.items():
            if a < 3 or b < 3:
                continue
            got = _engine_values(db, rules, a, b, sub.mover, sub.opp).astype(np.int64)
            want = np.where(sub.value == DRAW, 0, sub.plies + 1)
            assert np.all((sub.value != WIN) | (sub.plies % 2 == 1))
            assert np.all((sub.value != LOSS) | (sub.plies % 2 == 0))
            bad = np.nonzero(got != want)[0]
            assert bad.size == 0, f"{rules.name} {a}-{b}: {bad.size} of {got.size} positions differ"


# ---------------------------------------------------------------------------------------------
# Whole subspaces against the reference's solution
# ---------------------------------------------------------------------------------------------


def test_engine_matches_reference_six(tmp_path, solved_db, reference_moving):
    """Six Men's Morris up to 4 men, both solved once for the session (the engine's database and
    the reference's solution are read by other modules too)."""
    rules = make_rules("six")
    ref = reference_moving(rules, 4).result
    _compare_with_reference(tmp_path, rules, 4, ref=ref, path=solved_db("six", 4))


def test_engine_matches_reference_three(tmp_path):
    _compare_with_reference(tmp_path, make_rules("three"), 3)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,options",
    [("six", ["double-mill=per-mill", "removal=optional"]), ("six", ["blocked=passes"]), ("six", ["removal-from-mills=forfeit"])],
)
def test_engine_matches_reference_options(tmp_path, name, options):
    """Six up to 4 men under these options, position by position. The default run compares the
    same subspaces under the same options (every moving tier of the whole game with 4 men a side
    is one of them, solved by the same pair engine; ``men`` does not enter the moving phase) in
    ``test_whole_game.py::test_whole_game_matches_reference``: per-mill with optional removal as
    here, passes and forfeit together."""
    _compare_with_reference(tmp_path, make_rules(name, options), 4)


def test_engine_matches_reference_six_flying_3_3(tmp_path):
    """Flying on the six board (not flying there by default), where a removal wins at once."""
    _compare_with_reference(tmp_path, make_rules("six", ["flying=at-3"]), 3)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["standard", "no-flying"])
def test_engine_matches_reference_3_3(tmp_path, name):
    _compare_with_reference(tmp_path, make_rules(name), 3)


MEMORY_GB = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,options,max_men,subspaces",
    [
        ("twelve", (), 3, None),  # the diagonal board, flying: 2.7 M positions, 2-3 minutes
        ("six", ("flying=at-3",), 5, None),  # flying with up to 5 men a side: 8.2 M positions, 1-2 minutes
        pytest.param(
            # 3-4, 4-3 and 3-3: 27 M positions; over 25 minutes on two cores and ~22 GB of memory
            "standard", (), 4, [(3, 4)],
            marks=pytest.mark.skipif(MEMORY_GB < 32, reason="the reference needs ~22 GB of memory here"),
        ),
    ],
    ids=["twelve up to 3", "six flying up to 5", "standard 3-4"],
)
def test_engine_matches_reference_large(tmp_path, name, options, max_men, subspaces):
    _compare_with_reference(tmp_path, make_rules(name, list(options)), max_men, subspaces, workers=2)


# ---------------------------------------------------------------------------------------------
# Samples of larger subspaces against the reference's move generator
# ---------------------------------------------------------------------------------------------


class Stored:
    """The values an engine database stores, a subspace at a time (each read once). ``changed``
    maps (a, b, slot) to a value to answer instead (a corrupted copy)."""

    def __init__(self, db: Database, changed: dict | None = None):
        self.db, self.changed, self._held = db, changed or {}, {}

    def __call__(self, a: int, b: int) -> np.ndarray:
        if (a, b) not in self._held:
            v = self.db.values(a, b)
            for (x, y, slot), code in self.changed.items():
                if (x, y) == (a, b):
                    v[slot] = code
            self._held[(a, b)] = v
        return self._held[(a, b)]


class Solved:
    """The values of the pairs up to one pair, solved in memory by ``solve_pair`` (where the
    largest pair of ``solve`` up to its men is not needed)."""

    def __init__(self, rules, last: tuple[int, int]):
        index, self.values = board_index(rules.board), {}
        for a, b in pairs_up_to(max(last)):
            for r in solve_pair(rules, index, a, b, lambda x, y: self.values[x, y]):
                self.values[r.mover, r.opponent] = r.values
            if (a, b) == last:
                break

    def __call__(self, a: int, b: int) -> np.ndarray:
        return self.values[a, b]


@pytest.fixture(scope="module")
def engine_db(tmp_path_factory, solved_db):
    """engine_db(name, options, max_men) -> Stored: a database solved once for this module (the
    standard rule set's from the session's ``solved_db``); with ``max_men`` a pair (a, b), the
    pairs up to that one solved in memory (``Solved``)."""
    made: dict[tuple, Stored | Solved] = {}

    def get(name: str, options: tuple, max_men: int | tuple[int, int]) -> Stored | Solved:
        key = (name, options, max_men)
        if key not in made:
            if isinstance(max_men, tuple):
                made[key] = Solved(make_rules(name, list(options)), max_men)
            elif name in ("standard", "six") and not options:
                made[key] = Stored(Database(solved_db(name, max_men)))
            else:
                path = tmp_path_factory.mktemp(name) / "db.h5"
                solve(make_rules(name, list(options)), max_men, path, **quiet)
                made[key] = Stored(Database(path))
        return made[key]

    yield get
    for stored in made.values():
        if isinstance(stored, Stored):
            stored.db.close()


def _closing(gen: MoveGen, movers: np.ndarray, opps: np.ndarray, mills: int, flying: bool) -> np.ndarray:
    """Whether the mover has a move that closes ``mills`` mills at once, for each position: an
    empty point, ``mills`` mills through it whose other points hold the mover's men, and a man of
    the mover outside those mills that can reach it (a neighbour, or any when flying)."""
    empty = gen.full & ~(movers | opps)
    out = np.zeros(len(movers), dtype=bool)
    for p in range(gen.n):
        for ms in combinations(gen.mills_at[p], mills):
            union = reduce(or_, ms)
            need = union & ~(1 << p)
            source = (gen.full if flying else gen.neighbours[p]) & ~union
            out |= ((empty >> p) & 1 == 1) & (movers & need == need) & (movers & source != 0)
    return out


def _sample(rules, a: int, b: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Canonical positions of (a, b) as (slots, movers, opps): ``count`` at random, and up to
    ``count`` more of each kind the pool holds of positions whose mover can close a mill; two at
    once; two at once against an opponent with a mill (the second removal may be forfeited); a
    mill against an opponent whose men all stand in mills (the removal may be forfeited)."""
    bi = board_index(rules.board)
    rng = np.random.default_rng(seed)
    pool = np.unique(rng.integers(0, bi.slots(a, b), size=min(bi.slots(a, b), 100 * count)))
    movers, opps, canonical = bi.unrank_many(a, b, pool)
    pool, movers, opps = pool[canonical], movers[canonical], opps[canonical]
    gen = MoveGen(rules)
    flying = gen.flying and a == 3
    one, two = _closing(gen, movers, opps, 1, flying), _closing(gen, movers, opps, 2, flying)
    opp_mill = reduce(or_, [opps & m == m for m in gen.mills])
    all_in_mills = reduce(or_, [np.where(opps & m == m, m, 0) for m in gen.mills]) == opps
    pick = [rng.permutation(len(pool))[:count]]
    for wanted in (one, two, two & opp_mill, one & all_in_mills):
        pick.append(rng.permutation(np.nonzero(wanted)[0])[:count])
    keep = np.unique(np.concatenate(pick))
    return pool[keep], movers[keep], opps[keep]


class Reached(NamedTuple):
    positions: int
    decided_by_removal: int  # wins and losses whose shortest loss / longest win successor removed men
    moves: Counter  # (mills the move closed, men it removed) -> moves of that kind


def _check_against_movegen(rules, values, a: int, b: int, slots, movers, opps) -> Reached:
    """Assert the defining equations at each given canonical position of (a, b): the engine's
    value there against its successors as the reference's move generator lists them, valued by
    the engine (a successor whose side to move has fewer than 3 men: lost in 0). Values are
    stored codes: 0 a draw, plies + 1 otherwise (odd plies a win)."""
    gen, bi = MoveGen(rules), board_index(rules.board)
    rows, kinds = [], Counter()
    for m, o in zip(movers.tolist(), opps.tolist()):
        moves = gen.moves(m, o)
        rows.append(None if gen.is_lost(m, o, moves) else [(o2, m2) for m2, o2 in moves])
        for m2, o2 in moves:
            to = m2 & ~m
            closed = sum(1 for mill in gen.mills_at[to.bit_length() - 1] if m2 & mill == mill) if to else 0
            kinds[(closed, b - o2.bit_count())] += 1
    # the engine's value of every successor, subspace by subspace
    code_of = {}
    by_subspace: dict[tuple[int, int], set] = {}
    for row in rows:
        for s in row or ():
            if s[0].bit_count() < 3:
                code_of[s] = 1  # the side to move has lost: a loss in 0 plies
            else:
                by_subspace.setdefault((s[0].bit_count(), s[1].bit_count()), set()).add(s)
    for (x, y), succ in by_subspace.items():
        succ = sorted(succ)
        arr = np.array(succ, dtype=np.int64)
        got = values(x, y)[bi.rank_many(arr[:, 0], arr[:, 1])]
        assert not np.any(got == DUP), f"{x}-{y}: a successor ranks to a slot without a position"
        code_of.update(zip(succ, got.tolist()))

    stored = values(a, b)[slots].tolist()
    bad, by_removal = [], 0
    for m, o, row, have in zip(movers.tolist(), opps.tolist(), rows, stored):
        if row is None:
            want, best = 1, []  # lost: a loss in 0 plies
        else:
            codes = [code_of[s] for s in row]
            losses = [c for c in codes if c % 2 == 1]  # the successor's side to move loses
            if losses:
                want = min(losses) + 1
            elif all(c > 0 for c in codes):  # every successor a win
                want = max(codes) + 1
            else:
                want = 0
            best = [s for s, c in zip(row, codes) if c and c + 1 == want]
        if have != want:
            points = rules.board_data.points
            names = [" ".join(points[i] for i in bits(x)) for x in (m, o)]
            bad.append(f"mover {names[0]} / opponent {names[1]}: stored {describe(have)}, successors give {describe(want)}")
        by_removal += any(s[0].bit_count() < b for s in best)
    assert not bad, f"{rules.describe()} {a}-{b}: {len(bad)} of {len(stored)} positions disagree:\n" + "\n".join(bad[:5])
    return Reached(len(stored), by_removal, kinds)


LOCAL = [
    # name, options, max_men, (a, b), (mills closed, men removed) the sample must reach
    ("standard", (), 4, (3, 4), {(1, 1)}),  # flying meets the removals
    ("standard", (), 4, (4, 3), {(1, 1)}),
    ("twelve", (), 4, (3, 3), {(1, 1)}),  # the diagonal board
    ("twelve", (), 4, (3, 4), {(1, 1)}),
    ("twelve", (), 4, (4, 3), {(1, 1)}),
    # per-mill: two removals (into 3-5 from 5-5, winning at once from 5-4 and 5-3), flying at 3.
    # Only the diagonal board closes two mills with a slide (a1-a4-a7 and a1-b2-c3, coming from
    # d1); on the standard and six boards a point on two mills has all its neighbours on them,
    # and a side that flies has 3 men: there per-mill never removes two men in the moving phase.
    # The default run solves the pairs up to 4-5 and 5-4 (5-5, the largest, under -m slow: its
    # two removals into 3-5 are reached from 5-4 and 5-3 here as well)
    pytest.param("twelve", PER_MILL, 5, (5, 5), {(1, 1), (2, 2)}, marks=pytest.mark.slow),
    ("twelve", PER_MILL, (4, 5), (5, 4), {(1, 1), (2, 2)}),
    ("twelve", PER_MILL, (4, 5), (5, 3), {(2, 2)}),
    ("twelve", PER_MILL, (4, 5), (3, 5), {(1, 1)}),
    ("twelve", PER_MILL, (4, 5), (4, 5), {(1, 1)}),
    # per-mill with forfeit: the second removal forfeited when the men left all stand in a mill
    # (the pairs up to 4-5 and 5-4 only; with 5-5, the largest, under -m slow: its two removals
    # into 3-5 are checked without forfeit above, a mill whose removal is forfeited in 3-5 here)
    pytest.param("twelve", PER_MILL + FORFEIT, 5, (5, 5), {(2, 2), (1, 0)}, marks=pytest.mark.slow),
    # (with forfeit, the pairs up to 4-5 and 5-4 solved: 8 s, under -m slow as well; the default
    # run's test_verify_passes checks per-mill with forfeit on the six board up to 5 men)
    pytest.param("twelve", PER_MILL + FORFEIT, (4, 5), (5, 4), {(2, 1), (2, 2)}, marks=pytest.mark.slow),
    pytest.param("twelve", PER_MILL + FORFEIT, (4, 5), (3, 5), {(1, 1), (1, 0)}, marks=pytest.mark.slow),
]


def _case_id(name: str, options: tuple, max_men: int, ab: tuple | None = None, *_) -> str:
    return " ".join([name, *options, f"{ab[0]}-{ab[1]}" if ab else f"up to {max_men}"])


def _values(case) -> tuple:
    return tuple(case.values) if hasattr(case, "values") else case


@pytest.mark.parametrize("name,options,max_men,ab,must_reach", LOCAL, ids=[_case_id(*_values(c)) for c in LOCAL])
def test_engine_satisfies_reference_moves(engine_db, name, options, max_men, ab, must_reach):
    rules = make_rules(name, list(options))
    a, b = ab
    slots, movers, opps = _sample(rules, a, b, 1000, seed=a * 10 + b)
    reached = _check_against_movegen(rules, engine_db(name, options, max_men), a, b, slots, movers, opps)
    assert reached.decided_by_removal > 0
    assert must_reach <= set(reached.moves), f"the sample reaches only {sorted(reached.moves)}"


@pytest.mark.parametrize("where", ["own value", "successor"])
def test_local_check_catches_a_changed_value(engine_db, where):
    """A copy of the standard 3-4 values with one value changed fails the check: the position's
    own value two plies longer, or its quickest losing successor two plies quicker."""
    rules = make_rules("standard")
    stored = engine_db("standard", (), 4)
    slots, movers, opps = _sample(rules, 3, 4, 200, seed=1)
    _check_against_movegen(rules, stored, 3, 4, slots, movers, opps)  # the unchanged values pass
    bi, gen = board_index("standard"), MoveGen(rules)
    values = stored(3, 4)
    wins = [i for i in range(len(slots)) if values[slots[i]] % 2 == 0 and values[slots[i]] >= 4]  # a win in 3 or more
    i = wins[0]
    if where == "own value":
        changed = {(3, 4, int(slots[i])): int(values[slots[i]]) + 2}
    else:
        succ = [(o2, m2) for m2, o2 in gen.moves(int(movers[i]), int(opps[i])) if o2.bit_count() >= 3]
        at = [(s[0].bit_count(), s[1].bit_count(), bi.rank(*s)) for s in succ]  # (a, b, slot)
        codes = [int(stored(x, y)[slot]) for x, y, slot in at]
        quickest = codes.index(int(values[slots[i]]) - 1)  # a loss one ply shorter than the win
        changed = {at[quickest]: codes[quickest] - 2}
    with pytest.raises(AssertionError, match="1 of"):
        _check_against_movegen(rules, Stored(stored.db, changed), 3, 4, slots[i : i + 1], movers[i : i + 1], opps[i : i + 1])


# ---------------------------------------------------------------------------------------------
# ``morris verify`` on several option sets
# ---------------------------------------------------------------------------------------------


VERIFY = [
    ("six", PER_MILL + ("removal=optional",), 5),
    ("six", ("blocked=passes",), 5),
    ("six", FORFEIT, 5),
    ("six", PER_MILL + FORFEIT + ("flying=at-3",), 5),
    ("three", (), 3),
    ("twelve", (), 3),
]


@pytest.mark.parametrize("name,options,max_men", VERIFY, ids=[_case_id(*c) for c in VERIFY])
def test_verify_passes(engine_db, name, options, max_men):
    checks = verify(Path(engine_db(name, options, max_men).db.path), progress=False)
    assert len(checks) == (max_men - 2) ** 2 and all(c.ok for c in checks), [c.to_dict() for c in checks if not c.ok]


@pytest.mark.slow
@pytest.mark.parametrize("options", [PER_MILL, PER_MILL + FORFEIT], ids=["per-mill", "per-mill forfeit"])
def test_verify_passes_twelve_per_mill(engine_db, options):
    """Two removals on the diagonal board, up to 5 men (minutes)."""
    checks = verify(Path(engine_db("twelve", options, 5).db.path), progress=False)
    assert len(checks) == 9 and all(c.ok for c in checks), [c.to_dict() for c in checks if not c.ok]
