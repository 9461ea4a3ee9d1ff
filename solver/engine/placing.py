"""``morris solve --whole-game``: the moving phase, then every tier with men in hand, resumable.

The moving phase (tiers with no men in hand) is solved by the pair engine (``run.solve``); the
tiers with men in hand group by group (``tiers.groups_in_order``) with the kernels of
``kernels.placing``: one pass over the successors where every one is solved; where moves cycle
inside the group (Lasker's rule), retrograde analysis by counts and un-moves (``kernels.cycles``). Each group
is added to the database as it is finished, so a rerun after a kill skips it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from ..errors import DatabaseError, DepthOverflow
from ..index import BoardIndex, board_index
from ..index.compact import rank_tables
from ..rules.movegen import OPT_LASKER, OPT_MILL_WINS, OPT_PASS
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..tiers import Group, Tier, needed_by, successor_kinds, tier_name, twin
from ..values import NO_VALUES
from .kernels import codes, cycles, placements, placing
from .order import placing_groups


@dataclass
class TierResult:
    tier: Tier
    values: np.ndarray
    stats: dict


# How a group whose moves cycle is solved: "implicit" (``kernels.cycles``: counts and un-moves,
# 5 bytes a slot) or "explicit" (``kernels.placing.retrograde`` over the stored successor graph,
# about 60 bytes a slot and 16 an edge: the reference the tests compare with). Rules under which
# a blocked side passes always take the explicit graph (a pass beside men in hand is not an
# un-move of ``cycles``).
CYCLES = "implicit"
FAST_CYCLES = True
PART = 1 << 24  # slots of a tier judged at a time where moves cycle (their summaries: 8 bytes a slot)


def solve_group(
    rules: RuleSet, index: BoardIndex, group: Group, solved: Callable[[Tier], np.ndarray]
) -> list[TierResult]:
    """Solve the tiers of ``group``; ``solved(t)`` gives the values of a tier it reads."""
    g, ix = game_tables(rules), index.tables
    needed = set(needed_by(rules, group))
    if group.cycles and implicit_cycles(rules):
        return _solve_cycling(rules, index, group, {t: _inputs(rules, group, t, needed, solved) for t in group.tiers}, g, ix)
    sizes = [index.slots(t[0], t[1]) for t in group.tiers]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    # one array for the group where retrograde analysis runs over it whole, else one per tier
    # (its values handed on as they are: a copy cost time and, at 9 men, 2 GB of peak memory)
    value = np.empty(offsets[-1] if group.cycles else 0, dtype=np.uint16)
    # what the solved successors give, kept only where retrograde analysis needs it
    summary = offsets[-1] if group.cycles else len(group.tiers)
    nint = np.empty(summary, dtype=np.int32)
    win_at = np.empty(summary, dtype=np.uint16)
    loss_at = np.empty(summary, dtype=np.uint16)
    inputs = {t: _inputs(rules, group, t, needed, solved) for t in group.tiers}
    t0, c0 = time.perf_counter(), time.process_time()
    part = [slice(int(offsets[i]), int(offsets[i + 1])) for i in range(len(group.tiers))]
    out_values = [value[s] if group.cycles else np.empty(size, dtype=np.uint16) for s, size in zip(part, sizes)]
    for i, (t, s) in enumerate(zip(group.tiers, part)):
        succ, internal = inputs[t]
        keep = s if group.cycles else slice(i, i + 1)
        if _places_only(rules, group, t, internal):
            bad = placements.placement_pass(*t, out_values[i], succ, g, ix, rank_tables())
        else:
            bad = placing.tier_pass(*t, 0, out_values[i], nint[keep], win_at[keep], loss_at[keep], succ, internal, g, ix)
        if bad:
            raise DatabaseError(f"tier {tier_name(t)}: {bad} successors found no stored position (a damaged input tier)")
    if group.cycles and nint.any():  # (a group that cycles only through positions lost at once has none)
        ptr = np.zeros(offsets[-1] + 1, dtype=np.int64)
        np.cumsum(nint, out=ptr[1:])
        dst = np.empty(ptr[-1], dtype=np.int64)
        for t, s in zip(group.tiers, part):
            j = group.tiers.index(twin(t))
            placing.tier_edges(*t, value[s], nint[s], ptr[s.start : s.stop + 1], dst, offsets[j], inputs[t][1], g, ix)
        if placing.retrograde(value, nint, win_at, loss_at, ptr, dst) < 0:
            raise DepthOverflow(f"tiers {group.name}: a depth beyond the format's {codes.MAX_LEVEL} plies")
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    # (a tier held later must not hold its twin too: a cycling group's tiers are copied out)
    return [_result(t, v.copy() if group.cycles else v, seconds, cpu) for t, v in zip(group.tiers, out_values)]


def _result(t: Tier, v: np.ndarray, seconds: float, cpu: float) -> TierResult:
    pos, win, draw, loss, max_win, max_loss = codes.tally(v)
    stats = {
        "mover": t[0], "opponent": t[1], "mover_hand": t[2], "opponent_hand": t[3], "positions": int(pos),
        "slots": int(v.shape[0]), "win": int(win), "draw": int(draw), "loss": int(loss), "max_win": int(max_win),
        "max_loss": int(max_loss), "max_plies": int(max(max_win, max_loss)), "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
    }
    return TierResult(t, v, stats)


def implicit_cycles(rules: RuleSet) -> bool:
    """Whether a cycling group of ``rules`` is solved by ``kernels.cycles`` (see ``CYCLES``)."""
    return CYCLES == "implicit" and not rules.kernel_options()[OPT_PASS]


def _solve_cycling(rules, index, group, inputs, g, ix) -> list[TierResult]:
    """A group whose moves cycle, by counts and un-moves (``kernels.cycles``)."""
    sizes = [index.slots(t[0], t[1]) for t in group.tiers]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    value = np.empty(offsets[-1], dtype=np.uint16)
    ext = np.zeros(offsets[-1], dtype=np.uint16)
    count = np.zeros(offsets[-1], dtype=np.uint8)
    t0, c0 = time.perf_counter(), time.process_time()
    if _fast_cycles(rules, index, group):
        # the placements in their successors' order, then the moves
        for t, off, size in zip(group.tiers, offsets, sizes):
            here, succ = slice(off, off + size), inputs[t][0]
            bad = 0
            if t[2] > 0:
                bad = placements.placement_pass(*t, value[here], succ, g, ix, rank_tables())
            bad += cycles.moves_pass(*t, value[here], ext[here], count[here], succ, g, ix)
            if bad:
                raise DatabaseError(f"tier {tier_name(t)}: {bad} successors found no stored position (a damaged input tier)")
    else:
        part = min(PART, max(sizes))
        nint, win_at, loss_at = np.empty(part, np.int32), np.empty(part, np.uint16), np.empty(part, np.uint16)
        for t, off, size in zip(group.tiers, offsets, sizes):
            succ, internal = inputs[t]
            for lo in range(0, size, part):
                hi = min(size, lo + part)
                here, n = slice(off + lo, off + hi), hi - lo
                bad = placing.tier_pass(*t, lo, value[here], nint[:n], win_at[:n], loss_at[:n], succ, internal, g, ix)
                if bad:
                    raise DatabaseError(f"tier {tier_name(t)}: {bad} successors found no stored position (a damaged input tier)")
                cycles.summarise(*t, lo, value[here], ext[here], count[here], nint[:n], win_at[:n], loss_at[:n], g, ix)
        del nint, win_at, loss_at
    tiers = np.array(group.tiers, dtype=np.int64)
    twin_of = np.array([group.tiers.index(twin(t)) for t in group.tiers], dtype=np.int64)
    parts = np.array(
        [(off + lo, off + min(size, lo + codes.CHUNK), i) for i, (off, size) in enumerate(zip(offsets, sizes)) for lo in range(0, size, codes.CHUNK)],
        dtype=np.int64,
    ).reshape(-1, 3)
    part_of = np.concatenate([[0], np.cumsum([-(-size // codes.CHUNK) for size in sizes])]).astype(np.int64)
    order = cycles.interleave(parts, offsets, np.array(sizes, dtype=np.int64))
    lowest = np.zeros(len(parts) * cycles.BLOCKS, dtype=np.uint16)  # every block scanned at the first level
    part_low = np.zeros(len(parts), dtype=np.uint16)
    touched = np.full(len(parts) * cycles.BLOCKS, cycles.NONE, dtype=np.uint16)
    level = 0
    while True:
        nxt = cycles.level_step(level, value, ext, count, parts, order, part_of, lowest, part_low, touched, tiers, offsets, twin_of, g, ix)
        if nxt < 0:
            raise DepthOverflow(f"tiers {group.name}: a depth beyond the format's {codes.MAX_LEVEL} plies")
        if nxt == cycles.NONE:
            break
        level = int(nxt) - 1
    cycles.finish(value)
    del ext, count  # (before the tiers are copied out)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return [_result(t, value[off : off + size].copy(), seconds, cpu) for t, off, size in zip(group.tiers, offsets, sizes)]


def _fast_cycles(rules, index, group) -> bool:
    """Whether a cycling group's positions are judged by the placement pass and ``moves_pass``
    (the rules' plain cases: no mill that wins, a board with an empty point, so neither a full
    board's draw nor a mover who cannot place), else by ``tier_pass`` and ``summarise``.
    ``FAST_CYCLES`` False forces the latter (tests)."""
    return FAST_CYCLES and not rules.kernel_options()[OPT_MILL_WINS] and all(t[0] + t[1] < index.n for t in group.tiers)


def successor_values(t: Tier, stored: set, load: Callable[[Tier], np.ndarray], internal_kind: int = -1):
    """(values of each successor kind's tier, which kinds lie inside the group) for tier ``t``:
    ``load`` reads the tiers in ``stored``; the others (that no move of the tier reaches, or the
    kind ``internal_kind`` inside a cycling group) get an empty array."""
    succ, internal = [], np.zeros(placing.KINDS, dtype=np.int64)
    for kind, s in enumerate(successor_kinds(t)):
        if kind == internal_kind:
            internal[kind] = 1
            succ.append(NO_VALUES)
        else:
            succ.append(load(s) if s in stored else NO_VALUES)
    return tuple(succ), internal


def _places_only(rules, group, t, internal) -> bool:
    """Whether the mover of ``t`` can only place, with a point to place on: the pass in the
    successors' order (``kernels.placements``) then applies."""
    a, b, ha, _ = t
    return not group.cycles and ha >= 1 and not rules.kernel_options()[OPT_LASKER] and a + b < rules.board_data.n and not internal.any()


def _inputs(rules, group, t, needed, solved):
    inside = group.cycles and twin(t) in group.tiers
    return successor_values(t, needed, solved, placing.MOVE if inside else -1)


_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels of the tiers with men in hand once per
    process, so that the seconds stored with a tier are solving alone: Three Men's Morris reaches
    the pass of tiers that only place, and the first groups under Lasker's rule the others
    (their inputs are stand-ins; nothing is kept)."""
    global _warm
    if _warm or numba.config.DISABLE_JIT:
        return
    from ..rules.rulesets import get_rules, with_options

    three = get_rules("three")
    index = board_index(three.board)
    for rules in (three, with_options(three, {"lasker": "on"})):  # placements only; and cycles
        for group in placing_groups(rules):
            solve_group(rules, index, group, lambda t: np.zeros(index.slots(t[0], t[1]), dtype=np.uint16))
            if group.cycles:
                break
    _warm = True
