"""Draw ranks of the moving phase without a stored graph: ``ranks.rank_draws``'s analysis, one
group (a subspace and its twin, or a symmetric subspace) at a time, by counts and un-moves as
the engine's cycling groups are solved (``engine.kernels.cycles``), a few bytes a slot.

The explicit analysis takes the drawing moves' values from a queue in Malom's order, key
(-|k|, tempo * sign(k)) with k the value's rank less the mover's tier's value, and a value
better than the mover's tier decides the mover at once; a worse one takes one off its count of
drawing moves, and the count's end decides it at the last (best) of the worse ones. Inside a
group of the moving phase a decided position's value comes back to its predecessors (in the
twin, whose value is the opposite) with the same |k| and the tempo key one higher, so the queue
can be taken a key at a time ("levels"), and what the queue holds at a level is found by a scan:

- the moves that remove lead out of the group into ranked subspaces: ``prepare`` reads their
  values once per position and keeps only what the queue would do with them: the first good one
  (decides the position at its key unless a move inside decides it sooner), else the last bad one
  (the count ends there at the earliest), or that one of them settles at the position's own
  value (the count never ends);
- ``count`` holds the distinct drawn successor slots inside the group; ``level_good`` and
  ``level_bad`` then take one level: the positions decided with a value of that key reach their
  predecessors by ``cycles.unmoves`` (the opponent's man moved back), which are decided good at
  once or counted down (atomically: the thread that takes the last decides). A position reached
  twice by one move's inverse is one slot here and two edges there; both are taken at one pop, so
  the counts end at the same level.

At one key a value can be good for one position and bad for another of the same tier (k = d with
tempo u, k = -d with tempo -u): the explicit queue takes them in the order they were pushed; here
the good ones go first (``level_good`` before ``level_bad``), which is what the definition wants
(a good move is never given up for a worse one). The tests find no position where the two differ.
Under ``blocked=passes`` the position before a pass is a predecessor too (``_predecessors``); no
test game has a drawn blocked position, so that path is unchecked.

Per slot of the group: ``state`` (1 byte), ``count`` (1), ``rank`` and ``tempo`` (int16 each;
while undecided they hold the value the moves that remove give): 6 bytes, with the strong values
(2) 8; the ranked smaller subspaces 6 bytes a slot (strong value, rank, tempo).
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from ..engine.kernels.atomic import atomic_fetch_sub
from ..engine.kernels.codes import CHUNK
from ..engine.kernels.cycles import unmoves
from ..engine.kernels.successors import has_move, sort_unique
from ..index import board_index
from ..index.kernels import rank_position, unrank_position
from ..index.slots import slot_of
from ..jit import helper
from ..rules.bits import popcount
from ..rules.movegen import MAX_MOVES, ONGOING, OPT_FLY, OPT_PASS, apply_move, game_status, generate_moves
from ..rules.rulesets import RuleSet
from ..rules.tables import game_tables
from ..tiers import Tier, groups_in_order, twin
from .secval import SectorValues

# a slot's state
NONE = 0  # not a draw, or a draw with no move (a full board): never decided here
OPEN = 1  # undecided; no move that removes reaches a draw
OPEN_GOOD = 2  # undecided; rank, tempo: the best value a move that removes gives, better than the tier's
OPEN_BAD = 3  # undecided; rank, tempo: the last (best) of the removals' drawn values, all worse
OPEN_STUCK = 4  # undecided; a removal's draw settles at the tier's own value: the count never ends
NEW_GOOD = 5  # decided at this level, good (rank, tempo written by ``apply``)
NEW_BAD = 6  # decided at this level, bad
DECIDED = 7  # rank, tempo final, not yet passed on to the predecessors
DONE = 8  # rank, tempo final and passed on: later scans skip it by its state alone

NO_RANK = 0x7FFF  # ``ranks.NO_RANK``: rank of a slot that holds no draw
D_MAX = 1 << 14  # |k| below this
U_BITS = 20  # tempo key in [-2^19, 2^19)
U_OFF = 1 << (U_BITS - 1)
LAST = np.int64(1) << 62  # no level left


@helper
def _sign(x):
    return (x > 0) - (x < 0)


@helper
def move_rank(rank, tempo, mover_value):
    """``ranks.move_value``: a successor's (rank, tempo) for the mover."""
    r = -rank
    if r == mover_value:
        return r, 0
    return r, -tempo + _sign(r - mover_value)


@helper
def level_key(r, t, v):
    """The explicit queue's order (-|k|, tempo * sign(k)), k = r - v, as one int: smaller first;
    LAST where k = 0 (never queued)."""
    k = r - v
    if k == 0:
        return LAST
    d = k if k > 0 else -k
    return (np.int64(D_MAX - d) << U_BITS) | (t * _sign(k) + U_OFF)


@helper
def key_value(key, v, good):
    """The (rank, tempo) that has ``key`` for a tier of value v, better than v if ``good``."""
    d = D_MAX - (key >> U_BITS)
    u = (key & ((1 << U_BITS) - 1)) - U_OFF
    if good:
        return v + d, u
    return v - d, -u


@helper
def _predecessors(x, y, m, o, pass_ok, flying_y, out, g, ix):
    """``cycles.unmoves``, and under the passing rule the position before a pass (o's side had
    no move): the distinct drawn-or-not slots of the twin tier that reach (m, o) in one move."""
    k = unmoves(x, y, 0, m, o, out, g, ix)
    if pass_ok and not has_move(o, m, g, flying_y):
        out[k] = slot_of(o, m, ix)
        k = sort_unique(out, k + 1)
    return k


@nb.njit(cache=True, parallel=True)
def prepare(x, y, values, twin_values, own_value, ext_rank, ext_tempo, ext_off, state, count, rank, tempo, g, ix):
    """Start every slot of tier (x, y) (``values`` its strong values, ``twin_values`` those of
    (y, x)): a draw's count of distinct drawn successor slots in the twin, and what its moves that
    remove give (``state``, ``rank``, ``tempo``; see the module's note). The smaller subspaces
    (y - j, x), j = 1, 2, 3, are ``ext_rank[ext_off[j]:ext_off[j + 1]]`` and the same in
    ``ext_tempo`` (their ranks, NO_RANK where no draw: their strong values are not needed; an
    empty range: not ranked). Returns the number of a draw's moves that found no slot there (0)."""
    slots = values.shape[0]
    nchunks = (slots + CHUNK - 1) // CHUNK
    bad = np.zeros(nchunks, dtype=np.int64)
    for c in nb.prange(nchunks):
        buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
        inside = np.empty(MAX_MOVES, dtype=np.int64)
        for s in range(c * CHUNK, min(slots, (c + 1) * CHUNK)):
            state[s] = NONE
            count[s] = 0
            rank[s] = own_value
            tempo[s] = 0
            if values[s] != 0:
                continue
            m, o = unrank_position(x, y, s, ix)
            if game_status(m, o, 0, 0, g, buf) != ONGOING:
                continue  # a draw with no move: no edge in the explicit graph either
            nm = generate_moves(m, o, 0, 0, g, buf)
            k = 0
            good_key = LAST
            bad_key = -np.int64(1)
            stuck = False
            gr = gt = br = bt = 0
            for j in range(nm):
                m2, o2, _ = apply_move(m, o, 0, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
                cy = popcount(o2)
                if cy == y:  # nothing removed: the twin
                    q = rank_position(o2, m2, ix)
                    if twin_values[q] == 0:
                        inside[k] = q
                        k += 1
                    continue
                if cy < 3:
                    continue  # the opponent is left with two men: a win, never a draw's move
                e = y - cy
                lo, hi = ext_off[e], ext_off[e + 1]
                q = rank_position(o2, m2, ix)
                if q >= hi - lo:
                    bad[c] += 1
                    continue
                if ext_rank[lo + q] == NO_RANK:
                    continue  # a win or a loss: no edge
                r, t = move_rank(ext_rank[lo + q], ext_tempo[lo + q], own_value)
                key = level_key(r, t, own_value)
                if key == LAST:
                    stuck = True
                elif r > own_value:
                    if key < good_key:
                        good_key, gr, gt = key, r, t
                elif key > bad_key:
                    bad_key, br, bt = key, r, t
            if k > 1:
                k = sort_unique(inside, k)
            if k > 255:
                bad[c] += 1
                continue
            count[s] = k
            if good_key != LAST:
                state[s] = OPEN_GOOD
                rank[s] = gr
                tempo[s] = gt
            elif stuck:
                state[s] = OPEN_STUCK
            elif bad_key >= 0:
                state[s] = OPEN_BAD
                rank[s] = br
                tempo[s] = bt
            else:
                state[s] = OPEN
    return bad.sum()


@helper
def _pending(st, cnt, r, t, own, other):
    """The level at which a slot next does something (LAST: never again): an undecided one's
    removal value, a decided one's coming back to its predecessors (key in the twin's frame)."""
    if st == OPEN_GOOD or (st == OPEN_BAD and cnt == 0):
        return level_key(r, t, own)
    if st == DECIDED:
        r2, t2 = move_rank(r, t, other)
        return level_key(r2, t2, other)
    return LAST


@nb.njit(cache=True, parallel=True)
def lowest_levels(parts, offsets, values_of, tiers, state, count, rank, tempo, lowest):
    """Each part's first pending level (``_pending``)."""
    for c in nb.prange(parts.shape[0]):
        lo, hi, i = parts[c, 0], parts[c, 1], parts[c, 2]
        own, other = values_of[i], values_of[1 - i if tiers.shape[0] == 2 else i]
        low = LAST
        for s in range(lo, hi):
            low = min(low, _pending(state[s], count[s], rank[s], tempo[s], own, other))
        lowest[c] = low


@helper
def _part(c, parts, part_of, offsets, values_of, tiers, two):
    """Work item c of a level: its slots lo..hi of tier i, the twin tier j, their sector values,
    the tier's men, and where the two tiers' slots and parts start."""
    lo, hi, i = parts[c, 0], parts[c, 1], parts[c, 2]
    j = 1 - i if two else i
    return lo, hi, j, values_of[i], values_of[j], tiers[i, 0], tiers[i, 1], offsets[i], offsets[j], part_of[j]


@nb.njit(cache=True, parallel=True)
def level_good(level, parts, part_of, offsets, values_of, tiers, flying, state, rank, tempo, lowest, touched, g, ix):
    """Level ``level``, its good values: a position whose removals give the best value at this
    level is decided; a decided one whose value comes back good to its predecessors decides them."""
    pass_ok = g.opts[OPT_PASS] != 0
    two = tiers.shape[0] == 2
    for c in nb.prange(parts.shape[0]):
        if lowest[c] != level:
            continue
        lo, hi, j, own, other, x, y, off, twin_off, twin_part = _part(np.int64(c), parts, part_of, offsets, values_of, tiers, two)
        out = np.empty(g.n * g.n + 1, dtype=np.int64)
        for s in range(lo, hi):
            st = state[s]
            if st == OPEN_GOOD:
                if level_key(rank[s], tempo[s], own) == level:
                    state[s] = NEW_GOOD
                continue
            if st != DECIDED:
                continue
            r2, t2 = move_rank(rank[s], tempo[s], other)
            if r2 <= other or level_key(r2, t2, other) != level:
                continue
            state[s] = DONE
            m, o = unrank_position(x, y, s - off, ix)
            k = _predecessors(x, y, m, o, pass_ok, flying[j], out, g, ix)
            for e in range(k):
                q = twin_off + out[e]
                sq = state[q]
                if OPEN <= sq <= OPEN_STUCK:
                    state[q] = NEW_GOOD
                    touched[twin_part + out[e] // CHUNK] = 1


@nb.njit(cache=True, parallel=True)
def level_bad(level, parts, part_of, offsets, values_of, tiers, flying, state, count, rank, tempo, lowest, touched, g, ix):
    """Level ``level``, its bad values: a decided position's value comes back worse than its
    predecessors' tier: one off each undecided one's count; the thread that takes the last decides
    it at this value unless its removals' last bad value comes later (it waits for that level) or
    one of them never comes (stuck). A position whose count ended before and whose removals' last
    bad value is at this level is decided here."""
    pass_ok = g.opts[OPT_PASS] != 0
    two = tiers.shape[0] == 2
    for c in nb.prange(parts.shape[0]):
        if lowest[c] != level:
            continue
        lo, hi, j, own, other, x, y, off, twin_off, twin_part = _part(np.int64(c), parts, part_of, offsets, values_of, tiers, two)
        out = np.empty(g.n * g.n + 1, dtype=np.int64)
        for s in range(lo, hi):
            st = state[s]
            if st == OPEN_BAD:
                if count[s] == 0 and level_key(rank[s], tempo[s], own) == level:
                    state[s] = NEW_BAD
                continue
            if st != DECIDED:
                continue
            r2, t2 = move_rank(rank[s], tempo[s], other)
            if r2 >= other or level_key(r2, t2, other) != level:
                continue
            state[s] = DONE
            m, o = unrank_position(x, y, s - off, ix)
            k = _predecessors(x, y, m, o, pass_ok, flying[j], out, g, ix)
            for e in range(k):
                q = twin_off + out[e]
                sq = state[q]
                if sq != OPEN and sq != OPEN_BAD and sq != OPEN_STUCK:
                    continue
                if atomic_fetch_sub(count, q, 1) != 1:
                    continue
                touched[twin_part + out[e] // CHUNK] = 1
                if sq == OPEN or (sq == OPEN_BAD and level_key(rank[q], tempo[q], other) <= level):
                    state[q] = NEW_BAD
                # else: stuck for ever, or waits for its removals' last bad value (a later level)


@nb.njit(cache=True, parallel=True)
def apply(level, parts, values_of, tiers, state, count, rank, tempo, lowest, touched):
    """Write the values decided at ``level`` in the parts that took part or were reached, and
    their next pending level. Returns the first pending level over all parts (LAST: done)."""
    two = tiers.shape[0] == 2
    for c in nb.prange(parts.shape[0]):
        if lowest[c] != level and touched[c] == 0:
            continue
        touched[c] = 0
        lo, hi, i = parts[c, 0], parts[c, 1], parts[c, 2]
        own, other = values_of[i], values_of[1 - i if two else i]
        low = LAST
        for s in range(lo, hi):
            st = state[s]
            if st == NEW_GOOD or st == NEW_BAD:
                r, t = key_value(level, own, st == NEW_GOOD)
                rank[s] = r
                tempo[s] = t
                state[s] = DECIDED
            p = _pending(state[s], count[s], rank[s], tempo[s], own, other)
            if p > level:
                low = min(low, p)
        lowest[c] = low
    first = LAST
    for c in range(parts.shape[0]):
        first = min(first, lowest[c])
    return first


@nb.njit(cache=True, parallel=True)
def settle(state, values, own_value, rank, tempo):
    """The final (rank, tempo) of a tier in place: NO_RANK, 0 where no draw; (own_value, 0) for a
    draw never decided (it settles in its own tier)."""
    for s in nb.prange(state.shape[0]):
        if values[s] != 0:
            rank[s] = NO_RANK
            tempo[s] = 0
        elif state[s] != DECIDED and state[s] != DONE:
            rank[s] = own_value
            tempo[s] = 0


@nb.njit(cache=True, parallel=True)
def flip_below(rank, depth, own_value):
    """Malom's key2 (the stored depth) from the tempo, or back, in place: negated where the rank
    is below the tier's own value (``tempo = depth * sign(rank - own)``; both 0 where equal)."""
    for s in nb.prange(rank.shape[0]):
        if rank[s] < own_value:
            depth[s] = -depth[s]


def _parts(sizes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, parts (start, stop, tier) of at most CHUNK slots, first part of each tier)."""
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    rows, part_of = [], []
    for i, n in enumerate(sizes):
        part_of.append(len(rows))
        rows += [(offsets[i] + lo, offsets[i] + min(n, lo + CHUNK), i) for lo in range(0, n, CHUNK)]
    return offsets, np.array(rows, dtype=np.int64).reshape(-1, 3), np.array(part_of, dtype=np.int64)


def rank_pair(rules: RuleSet, tiers: tuple[Tier, ...], strong: dict, secvals: SectorValues, lower: dict,
              stats: dict | None = None) -> dict:
    """(rank, tempo) int16 arrays over every slot of each tier of one moving-phase group (a tier
    and its twin, or a symmetric tier): ``strong[t]`` the strong values of the group's tiers and
    of the smaller subspaces its moves that remove reach, ``lower[t]`` the (rank, tempo) of those
    (NO_RANK where no draw). Returns {tier: (rank, tempo)}; a slot with no draw: (NO_RANK, 0).
    ``stats`` gets the seconds of the first pass and of the levels, and the number of levels."""
    if any(t[2] or t[3] for t in tiers):
        raise ValueError(f"{tiers}: the implicit ranking covers the moving phase only")
    g = game_tables(rules)
    ix = board_index(rules.board).tables
    vals = [secvals.values[t] for t in tiers]
    if len(tiers) == 2 and vals[0] != -vals[1] or len(tiers) == 1 and vals[0] != 0:
        raise ValueError(f"{tiers}: a moving-phase group's values must be opposite (got {vals})")
    sizes = [strong[t].shape[0] for t in tiers]
    offsets, parts, part_of = _parts(sizes)
    total = int(offsets[-1])
    t0 = time.perf_counter()
    state = np.zeros(total, dtype=np.uint8)
    count = np.zeros(total, dtype=np.uint8)
    rank = np.zeros(total, dtype=np.int16)
    tempo = np.zeros(total, dtype=np.int16)
    for i, t in enumerate(tiers):
        x, y = t[0], t[1]
        # the smaller subspaces (y - e, x): e's range is ext_off[e]:ext_off[e + 1] (empty: none)
        er, et, off = [], [], [0, 0]
        for e in range(1, rules.most_removals(x) + 1):
            u = (y - e, x, 0, 0)
            if y - e >= 3 and u in lower:  # else an empty range: a draw's move there is an error
                er.append(lower[u][0])
                et.append(lower[u][1])
            off.append(off[0] + sum(a.shape[0] for a in er))
        off += [off[-1]] * (5 - len(off))
        ext_rank = np.concatenate(er) if er else np.zeros(0, dtype=np.int16)
        ext_tempo = np.concatenate(et) if et else np.zeros(0, dtype=np.int16)
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        bad = prepare(x, y, strong[t], strong[twin(t)], vals[i], ext_rank, ext_tempo,
                      np.array(off, dtype=np.int64), state[lo:hi], count[lo:hi], rank[lo:hi], tempo[lo:hi], g, ix)
        if bad:
            raise ValueError(f"{t}: {bad} drawn positions' moves lead into smaller subspaces not ranked yet "
                             "(or reach over 255 drawn slots)")
    values_of = np.array(vals, dtype=np.int64)
    tier_arr = np.array([t[:2] for t in tiers], dtype=np.int64)
    flying = np.array([bool(g.opts[OPT_FLY]) and t[0] == 3 for t in tiers], dtype=np.bool_)
    lowest = np.zeros(parts.shape[0], dtype=np.int64)
    touched = np.zeros(parts.shape[0], dtype=np.uint8)
    lowest_levels(parts, offsets, values_of, tier_arr, state, count, rank, tempo, lowest)
    level = int(lowest.min()) if lowest.size else int(LAST)
    t1, levels = time.perf_counter(), 0
    while level != LAST:
        levels += 1
        level_good(level, parts, part_of, offsets, values_of, tier_arr, flying, state, rank, tempo, lowest, touched, g, ix)
        level_bad(level, parts, part_of, offsets, values_of, tier_arr, flying, state, count, rank, tempo, lowest, touched, g, ix)
        nxt = int(apply(level, parts, values_of, tier_arr, state, count, rank, tempo, lowest, touched))
        if nxt <= level:
            raise AssertionError(f"{tiers}: level {nxt} after {level}: the queue's order does not hold")
        level = nxt
        if level != LAST and abs((level & ((1 << U_BITS) - 1)) - U_OFF) > 30000:
            raise ValueError(f"{tiers}: a tempo beyond int16")
    if stats is not None:
        stats.update(first_pass_s=t1 - t0, levels_s=time.perf_counter() - t1, levels=levels)
    for i, t in enumerate(tiers):  # (views of the group's arrays: no copy at the peak)
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        settle(state[lo:hi], strong[t], vals[i], rank[lo:hi], tempo[lo:hi])
        lower[t] = (rank[lo:hi], tempo[lo:hi])
    return {t: lower[t] for t in tiers}


def rank_moving_phase(db, rules: RuleSet | None = None, secvals: SectorValues | None = None,
                      tiers: list[Tier] | None = None, sink=None) -> dict:
    """{tier: (rank, tempo)} over every slot of each moving-phase tier of ``db`` (or of
    ``tiers``), group by group in the order the strong solve took them (its smaller subspaces
    first). ``secvals`` defaults to those of the database's statistics. With ``sink``, each
    tier's arrays go to ``sink(tier, rank, tempo)`` as its group is done and are dropped once no
    later group moves into them (the peak is then one group and the smaller subspaces it reads:
    ``plan``); the result then holds only those still kept at the end."""
    from .secval import database_stats, sector_values

    rules = rules or db.rules
    secvals = secvals or sector_values(rules, database_stats(db))
    moving = [t for t in (tiers or db.tier_keys()) if t[2] == 0 and t[3] == 0]
    groups = groups_in_order(rules, moving)
    depth = rules.most_removals(rules.men)
    lower: dict = {}
    for grp in groups:
        strong = {t: db.values(*t) for t in grp.tiers}
        rank_pair(rules, grp.tiers, strong, secvals, lower)
        if sink is not None:
            men = sum(grp.tiers[0][:2])
            for t in grp.tiers:
                sink(t, *lower[t])
            # groups come by men on the board: nothing later removes into a tier this far below
            for t in [t for t in lower if sum(t[:2]) < men - depth]:
                del lower[t]
    return lower

