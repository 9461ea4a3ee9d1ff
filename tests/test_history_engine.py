"""The history rule's engine (``solver.history``) against the plain reference
(``tests/reference_history.py``): every admissible state of every subspace, position by position,
under both readings (``reclose=same-man``, ``running-mill``), and whole games with their placing
tiers; hand-made positions where a ban decides, looked up in the engine's result.

The reference enumerates every position without symmetry and builds the explicit graph of the
states; the engine numbers symmetry-reduced states (a side table beside the plain slots) and
solves them by counts and un-moves, so a state the reference holds is found in the engine by its
canonical form: each comparison also checks that symmetric states get one value.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from reference_history import solve_history, solve_history_whole

from solver.history.layout import Store
from solver.history.solve import lookup, solve_in_memory, solve_moving
from solver.history.states import state_numbers
from solver.history.tables import history_tables
from solver.index.tables import board_index
from solver.rules import make_rules
from solver.values import decode, decode_many

# Under -m slow, the whole module: compiling the history rule's engine takes about 150 s of a
# worker from an empty numba cache, half the default run's budget. (test_history_rule.py, the
# reference, the notation and the refusals, stays in the default run.)
pytestmark = pytest.mark.slow

READINGS = ("same-man", "running-mill")


def engine_values(moving, rules, hs):
    """(kind, plies) the engine gives each state of the reference's ``HSubspace`` hs."""
    store = Store(list(moving.values()))
    ht, ix = history_tables(rules), board_index(rules.board).tables
    nums = state_numbers(hs.mover, hs.opp, hs.ban.astype(np.int64), hs.pending.astype(np.int64), *store.args(), ht, ix)
    assert (nums >= 0).all(), "a state of the reference missing from the engine's numbering"
    return decode_many(store.values[nums])


def assert_moving_equal(name, options, subspaces):
    rules = make_rules(name, options)
    ref = solve_history(rules, subspaces=subspaces)
    mine = solve_moving(rules, subspaces)
    assert set(mine) == set(ref)
    states = 0
    for sub, hs in ref.items():
        kind, plies = engine_values(mine, rules, hs)
        bad = np.flatnonzero((kind != hs.value) | (plies != hs.plies))
        assert len(bad) == 0, (sub, len(bad), [(int(hs.mover[i]), int(hs.opp[i]), int(hs.ban[i]), int(hs.pending[i])) for i in bad[:3]])
        states += len(kind)
    # every state of the engine's numbering is one of the reference's (no extra, no missing state):
    # the reference lists each state once per orientation, so compare the canonical numbers
    return states


@pytest.mark.parametrize("reading", READINGS)
def test_six_board_three_men_equals_the_reference(reading):
    assert assert_moving_equal("six", [f"reclose={reading}", "men=3"], [(3, 3)]) == 170_992


@pytest.mark.slow
@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize(
    "name, options, subspaces",
    [
        ("six", ["men=4"], [(4, 4)]),  # 2.2 M states; twins 3-4 / 4-3
        ("six", ["men=5"], [(5, 4)]),  # 5 men: a move that breaks a mill to close another (running-mill's ban)
        ("standard", ["men=3"], [(3, 3)]),  # flying: records of a man that flies back (2.05x the positions)
    ],
)
def test_larger_games_equal_the_reference(reading, name, options, subspaces):
    assert assert_moving_equal(name, [f"reclose={reading}", *options], subspaces) > 0


def test_only_the_pending_ban_decides():
    """docs/history-rule.md 3.1: White a1 a3 b2, Black b4 c4 d3, White to move. Plain, White has
    lost in 2 (Black's d3-d4 closes b4-c4-d4, and White cannot reach d4); if Black's last move was
    d4-d3, out of that mill, Black may not go straight back, and White, a tempo up, wins in 5."""
    rules = make_rules("six", ["men=3", "reclose=same-man"])
    moving = solve_moving(rules, [(3, 3)])
    assert decode(lookup(moving, rules, "W:a1,a3,b2 B:b4,c4,d3 w")) == ("loss", 2)
    assert decode(lookup(moving, rules, "W:a1,a3,b2 B:b4,c4,d3 w pending d3-d4")) == ("win", 5)
    # after White's b2-b3 the ban is Black's, active: Black loses in 4
    assert decode(lookup(moving, rules, "W:a1,a3,b3 B:b4,c4,d3 b ban d3-d4")) == ("loss", 4)
    # under the other reading d4-d3 made no ban (it closed no mill): the plain value
    other = make_rules("six", ["men=3", "reclose=running-mill"])
    assert decode(lookup(solve_moving(other, [(3, 3)]), other, "W:a1,a3,b2 B:b4,c4,d3 w")) == ("loss", 2)


def assert_whole_equal(name, options):
    rules = make_rules(name, options)
    ref = solve_history_whole(rules)
    moving, placed = solve_in_memory(rules)
    index = board_index(rules.board)
    checked = 0
    for tier, sub in ref.items():
        if tier[2] == tier[3] == 0:
            kind, plies = engine_values(moving, rules, sub)
        else:
            values = placed[tier]
            kind, plies = decode_many(values[index.rank_many(sub.mover, sub.opp)])
        assert np.array_equal(kind, sub.value) and np.array_equal(plies, sub.plies), tier
        checked += len(kind)
    start = placed[(0, 0, rules.men, rules.men)][index.rank(0, 0)]
    return checked, decode(start)


@pytest.mark.slow
@pytest.mark.parametrize("reading", READINGS)
def test_whole_games_equal_the_reference(reading):
    """Six Men's Morris whole (the reference's 49 M positions: a few minutes each)."""
    checked, start = assert_whole_equal("six", [f"reclose={reading}"])
    assert start == ("draw", None) and checked > 40_000_000


@pytest.mark.parametrize("reading", READINGS)
def test_the_forward_check_passes_and_catches_a_changed_value(reading):
    """``verify_moving`` (each state against its legal moves' successors, nothing of the solver's
    un-moves) passes on the six board's moving phase to 4 men a side, and flags a changed value."""
    from solver.history.check import verify_moving

    rules = make_rules("six", [f"reclose={reading}", "men=4"])
    moving = solve_moving(rules, [(4, 4)])
    assert sum(verify_moving(rules, moving).values()) == 0
    h = moving[3, 4]
    decided = np.flatnonzero(h.state_values != 0)
    h.state_values[decided[len(decided) // 2]] += 2  # the same side wins (or loses), two plies later
    assert verify_moving(rules, moving)[3, 4] == 1


def test_the_stored_layout_round_trips():
    """``keys``/``values`` (the plain slots, then the side table) and ``from_layout`` are inverse:
    what is written is what a later group reads back."""
    from solver.history.layout import HistorySubspace

    rules = make_rules("six", ["reclose=same-man", "men=4"])
    for (a, b), h in solve_moving(rules, [(4, 4)]).items():
        assert len(h.values) == h.slots + len(h.keys) and np.all(np.diff(h.keys) > 0)
        back = HistorySubspace.from_layout(rules, a, b, h.keys, h.values)
        assert np.array_equal(back.counts, h.counts) and np.array_equal(back.block_first, h.block_first)
        assert np.array_equal(back.state_values, h.state_values)


def test_a_run_that_keeps_one_group_gives_the_same_values():
    """``keep=False`` without ``load``: the inputs gone before ``progress``, what later groups read
    kept as compact copies (a byte a state): the values every group hears are those of a run
    that keeps everything."""
    from solver.history.solve import solve_moving

    rules = make_rules("six", ["reclose=same-man", "men=4"])
    whole = solve_moving(rules, [(4, 4)])
    heard = {}
    left = solve_moving(rules, [(4, 4)], lambda g, halves: heard.update({(h.a, h.b): h.state_values.copy() for h in halves}), keep=False)
    assert set(heard) == set(whole) and all(np.array_equal(heard[s], whole[s].state_values) for s in whole)
    assert not left or all(h.state_values.dtype == np.uint8 for h in left.values())


class Cut(Exception):
    """The run killed right after a save."""


def cut_at(n: int, folder, rules):
    """A checkpoint of ``rules`` in ``folder`` saving at every chance, whose n-th save of the
    group 4-4 kills the run (raises ``Cut``)."""
    from solver.history.checkpoint import Checkpoint

    class Cutting(Checkpoint):
        saves = 0

        def save(self, group, *args, **kw):
            super().save(group, *args, **kw)
            if group == [(4, 4)]:
                self.saves += 1
                if self.saves == n:
                    raise Cut

    return Cutting(folder, rules.describe(), every=0)


def test_a_run_cut_inside_a_group_resumes_from_its_saved_levels(tmp_path):
    """A run killed inside a group (here right after its third save: the judged states and two
    levels) and run again resumes that group from the save, at the level it had reached, and
    gives every state the values of a run never cut; the save is gone once the group is heard.
    A save of other rules is not read (and is removed)."""
    from solver.history.checkpoint import Checkpoint

    rules = make_rules("six", ["reclose=same-man", "men=4"])
    whole = solve_moving(rules, [(4, 4)])
    folder = tmp_path / "db.h5.checkpoint"

    with pytest.raises(Cut):
        solve_moving(rules, [(4, 4)], checkpoint=cut_at(3, folder, rules))
    assert (folder / "4-4" / "meta.json").exists()
    stale = Checkpoint(folder, make_rules("six", ["reclose=running-mill", "men=4"]).describe(), every=1e9)
    heard = {}

    def progress(group, halves):
        heard.update({(h.a, h.b): (h.state_values.copy(), dict(h.timing)) for h in halves})

    solve_moving(rules, [(4, 4)], progress, checkpoint=stale)  # another reading's run: starts afresh
    assert heard[4, 4][1].get("resumed_at_level") is None and not folder.exists()
    with pytest.raises(Cut):
        solve_moving(rules, [(4, 4)], checkpoint=cut_at(3, folder, rules))
    heard.clear()
    solve_moving(rules, [(4, 4)], progress, checkpoint=Checkpoint(folder, rules.describe(), every=0))
    assert heard[4, 4][1]["resumed_at_level"] == 2 and heard[4, 4][1]["levels"] > 2
    assert set(heard) == set(whole) and all(np.array_equal(heard[s][0], whole[s].state_values) for s in whole)
    assert not folder.exists()


def test_a_run_cut_while_judging_resumes_with_the_next_part(tmp_path, monkeypatch):
    """A run killed while a group's states are judged (5 parts a run here, against 4,096 at full
    size; cut right after the fourth save, 20 of 4-4's 68 parts judged) resumes the judging with
    the next part, judges no part twice, and gives every state the values of a run never cut."""
    from solver.history import solve
    from solver.history.checkpoint import Checkpoint

    rules = make_rules("six", ["reclose=same-man", "men=4"])
    whole = solve_moving(rules, [(4, 4)])
    folder = tmp_path / "db.h5.checkpoint"
    monkeypatch.setattr(solve, "JUDGE_PARTS", 5)
    judged_runs = []
    init_group = solve.k.init_group

    def counting(parts, spread, *args):
        if len(parts) == 68:  # (the group 4-4's runs; 3-3 and 3-4 with 4-3 have 12 and 60 parts)
            judged_runs.append(spread.copy())
        return init_group(parts, spread, *args)

    monkeypatch.setattr(solve.k, "init_group", counting)

    with pytest.raises(Cut):
        solve_moving(rules, [(4, 4)], checkpoint=cut_at(4, folder, rules))
    meta = json.loads((folder / "4-4" / "meta.json").read_text())
    assert (meta["judged"], meta["levels"], meta["parts"]) == (20, 0, 68)
    cut_runs = judged_runs[:]
    judged_runs.clear()
    heard = {}

    def progress(group, halves):
        heard.update({(h.a, h.b): (h.state_values.copy(), dict(h.timing)) for h in halves})

    solve_moving(rules, [(4, 4)], progress, checkpoint=Checkpoint(folder, rules.describe(), every=1e9))
    assert [len(r) for r in cut_runs] == [5] * 4 and [len(r) for r in judged_runs] == [5] * 9 + [3]
    assert sorted(np.concatenate(cut_runs + judged_runs).tolist()) == list(range(68))
    assert heard[4, 4][1]["resumed_judging"] == "20 of 68 parts judged" and heard[4, 4][1]["levels"] > 0
    assert set(heard) == set(whole) and all(np.array_equal(heard[s][0], whole[s].state_values) for s in whole)
    assert not folder.exists()


@pytest.mark.slow
def test_inputs_held_in_two_bytes_give_the_same_values(monkeypatch):
    """Where a subspace's largest code passes a byte its inputs are held in 2 bytes a state: the
    same values (forced here on every input; the kernels compiled for both widths)."""
    from solver.history import solve

    rules = make_rules("six", ["reclose=same-man", "men=4"])
    narrow = solve.solve_moving(rules, [(4, 4)])
    monkeypatch.setattr(solve, "INPUT_TOP", 0)
    wide = solve.solve_moving(rules, [(4, 4)])
    assert all(np.array_equal(narrow[s].state_values, wide[s].state_values) for s in narrow)


def test_a_run_that_keeps_one_group_frees_the_groups_before():
    """With ``keep=False`` nothing of a group's arrays outlives its ``progress`` (a half is a view
    that keeps them all alive, so a name left bound to one would hold a whole group)."""
    import gc
    import weakref

    from solver.history.solve import solve_moving

    rules = make_rules("six", ["reclose=same-man", "men=4"])
    before = []

    def progress(group, halves):
        gc.collect()
        assert all(r() is None for r in before), group
        before.append(weakref.ref(halves[0].state_values.base))

    solve_moving(rules, [(4, 4)], progress, keep=False)
    gc.collect()
    assert len(before) == 3 and all(r() is None for r in before)


def test_the_parts_are_spread_so_that_each_thread_gets_both_halves():
    """``spread_order`` takes the parts of a subspace and its twin alternately, each half in its own
    order: a level's decisions lie almost all in one half, and the threads split the order in
    equal runs, so each run must hold its share of both halves (a run per half left one thread
    with the level's work)."""
    from solver.history.solve import spread_order

    parts = np.array([(3, 5, lo, min(1000, lo + 64)) for lo in range(0, 1000, 64)]
                     + [(5, 3, lo, min(2600, lo + 64)) for lo in range(0, 2600, 64)], dtype=np.int64)
    order = spread_order(parts)
    assert sorted(order.tolist()) == list(range(len(parts)))
    for runs in (2, 4):
        for run in np.array_split(order, runs):
            for half in ((3, 5), (5, 3)):
                mine = (parts[run, 0] == half[0]).sum()
                total = (parts[:, 0] == half[0]).sum()
                assert abs(mine - total / runs) <= 1.5, (runs, half, mine, total)
    for half in ((3, 5), (5, 3)):  # each half in its own order
        los = parts[order][parts[order, 0] == half[0], 2]
        assert (np.diff(los) > 0).all()


@pytest.mark.parametrize("reading", READINGS)
def test_counts_made_when_judged_equal_the_ranked_ones(reading, monkeypatch):
    """Where the next mover's men have no symmetry, a state's count is its moves inside, set when
    it is judged; elsewhere it waits for ``count_slot``, which ranks every successor and keeps the
    distinct ones. Each count set when judged must equal what ``count_slot`` makes of the same
    state (the six board has many symmetric positions: a count of moves where two moves lead to
    one state would never reach 0, and the state would stay a draw)."""
    from solver.history import kernels as k
    from solver.history.states import C0, first_state, scratch, slot_states
    from solver.index.kernels import SYMMETRIC

    rules = make_rules("six", [f"reclose={reading}", "men=4"])
    seen = {"set": 0, "waits": 0}
    init = k.init_group

    def checked(parts, spread, info, counts, bfirst, value, count, *rest):
        init(parts, spread, info, counts, bfirst, value, count, *rest)
        ht, ix, g = rest[-4], rest[-3], rest[-2]
        ranked = np.full_like(count, k.UNKNOWN)
        rows, kids, _, _, _, _, _, _, _, _, _, facts, lists, tmp, own2, _ = k.level_scratch()
        syms, bans, pends, codes = scratch()
        syms2, bans2, pends2, own = scratch()
        for a, b in {(int(p[0]), int(p[1])) for p in parts}:
            for s in range(int(info[a, b, 1])):
                n = int(counts[info[a, b, C0] + s])
                t = first_state(a, b, s, info, counts, bfirst)
                if n == 0 or not any(value[t + j] >= k.PEND_BASE and value[t + j] != k.PEND_NOLOSS for j in range(n)):
                    continue
                m, o = slot_states(a, b, s, n, ht, ix, bans2, pends2, syms2, own)
                symmetric = bool(ix.mask_info[o] & SYMMETRIC)
                assert k.count_slot(m, o, rows, kids, facts, lists, tmp, own2, syms, info, counts, bfirst, value, ranked, ht, ix, g,
                                    syms2, bans, pends, codes) == 0
                for j in range(n):
                    if value[t + j] < k.PEND_BASE or value[t + j] == k.PEND_NOLOSS:
                        continue
                    assert (count[t + j] == k.UNKNOWN) == symmetric, (a, b, s, j)
                    if not symmetric:
                        assert count[t + j] == ranked[t + j], (a, b, s, j, int(count[t + j]), int(ranked[t + j]))
                    seen["waits" if symmetric else "set"] += 1

    monkeypatch.setattr(k, "init_group", checked)
    solve_moving(rules, [(4, 4)])
    assert seen["set"] > 1000 and seen["waits"] > 100, seen


@pytest.mark.slow
@pytest.mark.parametrize("reading", READINGS)
def test_standard_board_three_men_whole_equals_the_reference(reading):
    """The standard board with 3 men a side, whole (placing, then moving with flying: records of
    a man that flies back), every state of every tier against the reference (about 8.5 GiB and
    a few minutes a reading, the reference's explicit graph)."""
    checked, start = assert_whole_equal("standard", ["men=3", f"reclose={reading}"])
    assert start == ("win", 23) and checked > 5_000_000
