"""The moving phase under the history rule, group by group (``solve_moving``).

Groups are taken as the plain engine takes them: a subspace and its twin, by the men on the
board, fewest first (a removal leads into a group solved before). Each group's states are
numbered (``states``), judged (``kernels.init_group``) and settled level by level
(``kernels.level_step``); its values are then what later groups' removals read. A run holds one
group and the subspaces its removals lead into (``solve_moving(keep=False)``, reading solved
groups back through ``load``); ``solve_in_memory`` holds everything, for the small games.
The arrays a group hands on are ``layout``'s, the order of the groups ``groups``'s.
"""

from __future__ import annotations

import time

import numpy as np

from ..engine.kernels.cycles import interleave
from ..errors import RulesError
from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from . import kernels as k
from .groups import closure, moving_groups, removal_targets
from .layout import MEN, HistorySubspace, Store, input_dtype
from .states import MAX_CODES, count_states
from .tables import check_supported, history_tables, plain_rules

JUDGE_PARTS = 4096  # parts judged between two chances to save (about 4 M slots: seconds, at 9 men)


def gather_inputs(rules: RuleSet, targets, held: dict, load) -> Store:
    """The store of what a group's removals read: each of ``targets`` copied from ``held`` (a
    ``HistorySubspace``) or read by ``load`` straight into place, in a byte a state where every
    largest code fits."""
    bix = board_index(rules.board)
    tops = []
    for t in targets:
        if t in held:
            v = held[t].state_values
            tops.append(int(v.max()) if len(v) else 0)
        elif load is None:
            raise RulesError(f"history engine: subspace {t[0]}-{t[1]} is needed but neither solved nor given")
        else:
            tops.append(load.top(*t))
    src = Store.allocate([(a, b, bix.slots(a, b)) for a, b in targets])
    for t in targets:
        if t in held:
            src.counts_of(*t)[:] = held[t].counts
        else:
            load.counts(*t, src)
    src.allocate_values(input_dtype(max(tops, default=0)))
    for t in targets:
        if t in held:
            src.values_of(*t)[:] = held[t].state_values
        else:
            load.values(*t, src)
    return src


def solve_group(rules: RuleSet, group: list[tuple[int, int]], src: Store | list[HistorySubspace], checkpoint=None) -> list[HistorySubspace]:
    """The states of ``group`` (a subspace and its twin) solved, reading ``src`` (the store of
    what its removals lead into, or those subspaces). The halves returned are views into one
    array of values (2 bytes a state) and the group's counts; what else the solve held (a count a
    state) is gone by then. With a ``checkpoint.Checkpoint`` the level loop is saved as it goes
    and, where a save of this group exists, resumed from it."""
    if not isinstance(src, Store):
        src = gather_inputs(rules, sorted({(h.a, h.b) for h in src}), {(h.a, h.b): h for h in src}, None)
    ht = history_tables(rules)
    g = game_tables(plain_rules(rules))
    bix = board_index(rules.board)
    ix = bix.tables
    t0 = time.perf_counter()
    gs = Store.allocate([(a, b, bix.slots(a, b)) for a, b in group])
    for a, b in group:
        if count_states(a, b, bix.slots(a, b), ht, ix, gs.counts_of(a, b)):
            raise ValueError(f"subspace {a}-{b}: a position with more than {MAX_CODES} states")
    gs.allocate_values(np.uint16)
    value = gs.values
    count = np.zeros(len(value), np.uint8)
    parts, part0 = [], np.full((MEN, MEN), -1, dtype=np.int64)
    for a, b in group:
        part0[a, b] = len(parts)
        slots = bix.slots(a, b)
        parts += [(a, b, lo, min(slots, lo + k.PART)) for lo in range(0, slots, k.PART)]
    parts = np.array(parts, dtype=np.int64).reshape(-1, 4)
    order = spread_order(parts)
    lowest = np.full(len(parts), k.NONE, np.uint32)
    touched = np.full(len(parts), k.NONE, np.uint32)
    err = np.zeros(3, np.int64)
    arrays = {"value": value, "count": count, "lowest": lowest}
    states = len(value)
    t1, c1 = time.perf_counter(), time.process_time()
    saved = None
    if checkpoint:
        checkpoint.begin()
        saved = checkpoint.load(group, states, len(parts), arrays)
    levels, earlier, earlier_cpu = (saved["levels"], saved["seconds"], saved.get("cpu_seconds", 0.0)) if saved else (0, 0.0, 0.0)
    judged = saved.get("judged", len(parts)) if saved else 0  # (a save before "judged" was made after the judging)
    judged_before = judged

    def save_if_due(first):  # between two runs of judging, or two levels where the loop goes on: what a rerun need not do again
        if checkpoint and not err.any() and (judged < len(parts) or first != k.NONE) and checkpoint.due():
            checkpoint.save(group, states, len(parts), arrays, first, levels, earlier + time.perf_counter() - t1,
                            earlier_cpu + time.process_time() - c1, judged=judged)

    # The states judged a run of parts at a time, with a save where one is due: a large group's
    # judging takes long (8-9 with 9-8 of the standard ban: about 30 minutes before its first
    # level), and a run cut inside it would otherwise judge the group again from its start.
    while judged < len(parts) and not err.any():
        upto = min(len(parts), judged + JUDGE_PARTS)
        k.init_group(parts, order[judged:upto], *gs.args(), value, count, *src.args(), src.values, lowest, ht, ix, g, err)
        judged = upto
        if judged < len(parts):
            save_if_due(k.NONE)
    judging = judged_before < len(parts)
    first = int(lowest.min(initial=k.NONE)) if judging or not saved else saved["first"]
    t2 = time.perf_counter()
    if judging:
        save_if_due(first)
    while first != k.NONE and not err.any():
        first = int(k.level_step(first - 1, parts, order, part0, *gs.args(), value, count, lowest, touched, ht, ix, g, err))
        levels += 1
        save_if_due(first)
    t3 = time.perf_counter()
    del count, src  # (the caller's store of inputs goes when it drops its own reference)
    if err.any():
        raise RulesError(f"history engine: inconsistent states in group {group} (missing successors, predecessors, overflows: {err.tolist()})")
    k.finish(value)
    if states and int(value.max()) >= k.MAX_PEND_LEVEL:  # what later groups' undecided values must hold
        raise RulesError(f"history engine: group {group} has a level of {int(value.max()) - 1:,} plies, past what it can hold")
    halves = [gs.subspace(a, b, rules) for a, b in group]
    for h in halves:
        h.timing = {"index_s": round(t1 - t0, 3), "init_s": round(t2 - t1, 3), "levels_s": round(t3 - t2, 3), "levels": levels}
        if saved:
            h.timing.update(resumed_at_level=saved["levels"], earlier_s=saved["seconds"], earlier_cpu_s=earlier_cpu)
            if judging:
                h.timing.update(resumed_judging=f"{judged_before:,} of {len(parts):,} parts judged")
    return halves


def spread_order(parts: np.ndarray) -> np.ndarray:
    """The order the kernels take a group's parts (rows a, b, lo, hi) in: the two halves
    alternated, each in its own order. The threads split the parts in equal runs, and one level's
    decisions lie almost all in one half (after a loss in one, the wins are in its twin), which a
    run per half would leave to one thread (Viking's 3-5 with 5-3 took as long on two threads as
    on one). Lasker's groups are taken so too: ``cycles.interleave``."""
    halves, half = np.unique(parts[:, 0] * MEN + parts[:, 1], return_inverse=True)
    sizes = np.zeros(len(halves), dtype=np.int64)
    np.maximum.at(sizes, half, parts[:, 3])
    # (cycles' parts: start, stop and tier, its start counted from offsets[tier]; here each half's own)
    return interleave(np.column_stack((parts[:, 2], parts[:, 3], half)), np.zeros(len(halves), dtype=np.int64), sizes)


def compact(h: HistorySubspace) -> HistorySubspace:
    """A copy of ``h`` in arrays of its own, a byte a state where its codes fit: what a later
    group reads of it, without the rest of its group's arrays."""
    top = int(h.state_values.max()) if h.states else 0
    return HistorySubspace(h.a, h.b, h.slots, h.counts.copy(), h.block_first.copy(), h.state_values.astype(input_dtype(top)), h.rules)


def solve_moving(rules: RuleSet, subspaces, progress=None, stored=frozenset(), load=None, keep: bool = True, check=None,
                 checkpoint=None) -> dict[tuple[int, int], HistorySubspace]:
    """Every state of the moving subspaces ``subspaces`` and of what their removals reach, group
    by group; ``progress(group, halves)`` hears each group solved. A group whose subspaces are all
    in ``stored`` is skipped, and what a later group reads of it comes from ``load`` (an object
    with ``top(a, b)``, ``counts(a, b, store)`` and ``values(a, b, store)``: ``store.DatabaseInputs``),
    straight into the store of that group's inputs.

    With ``keep`` False a run holds one group and its inputs (``plan``): the inputs are dropped
    before ``progress`` hears the group, and the group after it; a subspace that a later group
    reads is read again through ``load``, or, without one, kept as a compact copy (``compact``).
    The result then holds those copies. ``check(group, inputs)``, where given, hears each
    group's store of inputs before the group is solved (and may stop the run). ``checkpoint``
    (``checkpoint.Checkpoint``) saves each group's level loop as it goes, resumes a group from its
    save, and drops the save once ``progress`` has heard the group."""
    check_supported(rules)
    groups = [g for g in moving_groups(closure(rules, subspaces))]
    reads = [sorted({t for a, b in g for t in removal_targets(rules, a, b)}) for g in groups]
    result: dict[tuple[int, int], HistorySubspace] = {}
    for i, group in enumerate(groups):
        if all(s in stored for s in group):
            continue
        src = gather_inputs(rules, reads[i], result, load)
        if check:
            check(group, src)
        halves = solve_group(rules, group, src, checkpoint)
        del src
        later = {t for r in reads[i + 1 :] for t in r}
        if not keep:
            for t in [t for t in result if t not in later]:
                del result[t]
        if progress:
            progress(group, halves)
        if checkpoint:
            checkpoint.clear(group)
        for h in halves:
            if keep:
                result[h.a, h.b] = h
            elif (h.a, h.b) in later and load is None:
                result[h.a, h.b] = compact(h)
        del halves, h  # (the loop's name too: a half is a view that keeps its group's arrays alive)
    return result


def solve_in_memory(rules: RuleSet, progress=None) -> tuple[dict[tuple[int, int], HistorySubspace], dict[tuple, np.ndarray]]:
    """The whole game: the moving phase's states (``solve_moving``), then the tiers with men in
    hand, which hold plain positions only (no man moves while men are in hand, so no ban is made
    there, and the first position of the moving phase carries none): the plain engine's placing
    passes, reading the moving tiers' plain states. Returns (moving states, {placing tier: values})."""
    from ..engine import placing
    from ..engine.order import placing_groups
    from ..tiers import whole_game_tiers

    check_supported(rules)
    plain = plain_rules(rules)
    tiers = whole_game_tiers(plain)
    moving = solve_moving(rules, [(t[0], t[1]) for t in tiers if t[2] == t[3] == 0 and min(t[0], t[1]) >= 3], progress)
    index = board_index(rules.board)
    placed: dict[tuple, np.ndarray] = {}

    def solved(t):
        if t[2] == t[3] == 0:
            h = moving[t[0], t[1]]
            return h.values[: h.slots]
        return placed[t]

    for group in placing_groups(plain):
        for r in placing.solve_group(plain, index, group, solved):
            placed[r.tier] = r.values
    return moving, placed


def lookup(moving: dict[tuple[int, int], HistorySubspace], rules: RuleSet, text: str) -> int:
    """The stored value (``solver.values``' code) of a moving-phase position written with the
    history rule's suffix (``notation.parse_history_position``), from ``solve_moving``'s result.
    A record that is not live is dropped (the state is then the plain one, or has the other)."""
    from ..rules.notation import parse_history_position
    from .records import live
    from .states import state_numbers
    from .tables import encode_ban

    pos, ban, pending = parse_history_position(text, rules)
    ht = history_tables(rules)
    m, o = pos.mover, pos.opponent
    b_code = int(live(encode_ban(ban, rules), m, o, ht))
    p_code = int(live(encode_ban(pending, rules), o, m, ht))
    store = Store(list(moving.values()))
    ix = board_index(rules.board).tables
    n = state_numbers(*(np.array([x], np.int64) for x in (m, o, b_code, p_code)), *store.args(), ht, ix)[0]
    if n < 0:
        raise RulesError(f"{text!r}: no such state in the subspaces solved")
    return int(store.values[n])
