"""Games between a database's play (strong or ultra-strong) and fallible players, in numba.

For ``benchmarks/bench_ultra.py``: how often each strength beats players that err. Kernels only
(arrays in, arrays out); ``tables`` gathers a whole-game database's values and ranks into flat
arrays for them.

Players (``kind``):
- ``STRONG``: the first strongly optimal move in move order (the fastest win, a drawing move, the
  longest loss), as ``morris play`` chooses;
- ``ULTRA``: the same, but among drawing moves the first of the best (rank, tempo) (Malom's
  order, ``ultra.ranks.better``);
- ``NOISY``: with probability ``p`` a uniformly random legal move, otherwise a strongly optimal
  move chosen uniformly at random among them;
- ``SEARCH``: negamax alpha-beta to ``depth`` plies over the rules' move generator, scoring a
  position by men (on the board and in hand, 100 each) and mobility (the side to move's moves
  minus the opponent's), a lost position -10000 (sooner worse); ties among the best moves broken
  at random.

A game ends when the side to move has lost, at the third occurrence of a position (same men,
hands and side to move: a draw), or after ``max_plies`` plies (a draw).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..index.kernels import rank_position
from ..rules.bits import popcount
from ..rules.movegen import LOST, MAX_MOVES, ONGOING, apply_move, game_status, generate_moves
from .secval import stored_secvals

STRONG, ULTRA, NOISY, SEARCH = 0, 1, 2, 3
WIN, DRAW, LOSS = 1, 0, -1
ENDED, REPETITION, CAP = 0, 1, 2
TIER_SLOTS = 16**4
BIG = 1 << 30


def tier_key(a: int, b: int, ha: int, hb: int) -> int:
    return ((a * 16 + b) * 16 + ha) * 16 + hb


def tables(db):
    """(offset, secval, values, rank, depth) of a whole-game database with ranks: ``offset[key]``
    the first slot of tier ``key`` (``tier_key``) in the flat arrays, -1 where the database has
    no such tier; ``secval[key]`` the tier's sector value."""
    from ..storage.ranks import NO_RANK

    sv = stored_secvals(db)
    offset = np.full(TIER_SLOTS, -1, dtype=np.int64)
    secval = np.zeros(TIER_SLOTS, dtype=np.int64)
    values, ranks, depths = [], [], []
    at = 0
    for info in db.tiers():
        key = tier_key(*info.tier)
        offset[key] = at
        secval[key] = sv.values[info.tier]
        values.append(db.values(*info.tier))
        group = db.rank_group(*info.tier)
        ranks.append(group["rank"][...])
        depths.append(group["depth"][...])
        at += info.slots
    rank = np.concatenate(ranks).astype(np.int64)
    rank[rank == NO_RANK] = 0
    return offset, secval, np.concatenate(values).astype(np.int64), rank, np.concatenate(depths).astype(np.int64)


@nb.njit(cache=True)
def _sign(x):
    return (x > 0) - (x < 0)


@nb.njit(cache=True)
def move_values(me, opp, hm, ho, g, ix, offset, secval, values, rank, depth, buf, kind, plies, mrank, mtempo):
    """Every legal move's value for the mover (``kind`` WIN/DRAW/LOSS, ``plies``) and, for a draw,
    its (rank, tempo) for the mover; the number of moves (0: the game is over)."""
    if game_status(me, opp, hm, ho, g, buf) != ONGOING:
        return 0
    n = generate_moves(me, opp, hm, ho, g, buf)
    own = secval[tier_key_nb(popcount(me), popcount(opp), hm, ho)]
    for j in range(n):
        m2, o2, h2 = apply_move(me, opp, hm, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
        mrank[j] = 0
        mtempo[j] = 0
        if popcount(o2) + ho < 3:
            kind[j] = WIN
            plies[j] = 1
            continue
        key = tier_key_nb(popcount(o2), popcount(m2), ho, h2)
        slot = offset[key] + rank_position(o2, m2, ix)
        v = values[slot]
        if v == 0:
            kind[j] = DRAW
            plies[j] = 0
            r_after = rank[slot]
            t_after = depth[slot] * _sign(r_after - secval[key])
            r = -r_after
            mrank[j] = r
            mtempo[j] = 0 if r == own else -t_after + _sign(r - own)
        elif (v - 1) % 2 == 1:  # the opponent wins
            kind[j] = LOSS
            plies[j] = v
        else:
            kind[j] = WIN
            plies[j] = v
    return n


@nb.njit(cache=True)
def tier_key_nb(a, b, ha, hb):
    return ((a * 16 + b) * 16 + ha) * 16 + hb


@nb.njit(cache=True)
def _score(kind, plies, mrank, mtempo, j, ultra):
    """Larger is better: wins by fewest plies, draws (by rank, then tempo, where ``ultra``),
    losses by most plies."""
    if kind[j] == WIN:
        return 3 * BIG - plies[j]
    if kind[j] == LOSS:
        return -BIG + plies[j]
    if ultra:
        return mrank[j] * 65536 - mtempo[j]
    return 0


@nb.njit(cache=True)
def choose_best(n, kind, plies, mrank, mtempo, ultra, at_random):
    """The first (or, ``at_random``, a uniformly random) move of the best score."""
    best = -4 * BIG
    count = 0
    pick = -1
    for j in range(n):
        s = _score(kind, plies, mrank, mtempo, j, ultra)
        if s > best:
            best, count, pick = s, 1, j
        elif s == best:
            count += 1
            if at_random and np.random.randint(count) == 0:
                pick = j
    return pick


@nb.njit(cache=True)
def evaluate(me, opp, hm, ho, g, buf):
    """The searcher's score of a position for its side to move."""
    if game_status(me, opp, hm, ho, g, buf) == LOST:
        return -10000
    mine = generate_moves(me, opp, hm, ho, g, buf)
    theirs = generate_moves(opp, me, ho, hm, g, buf)
    return 100 * (popcount(me) + hm - popcount(opp) - ho) + mine - theirs


@nb.njit(cache=False)  # (recursion: numba's cache of it crashes on load)
def negamax(me, opp, hm, ho, d, alpha, beta, g, bufs):
    buf = bufs[d]
    if game_status(me, opp, hm, ho, g, buf) == LOST:
        return -10000 - d  # lost sooner is worse
    if d == 0:
        return evaluate(me, opp, hm, ho, g, buf)
    n = generate_moves(me, opp, hm, ho, g, buf)
    best = -BIG
    for j in range(n):
        m2, o2, h2 = apply_move(me, opp, hm, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
        if popcount(o2) + ho < 3:
            s = 10000 + d
        else:
            s = -negamax(o2, m2, ho, h2, d - 1, -beta, -alpha, g, bufs)
            buf = bufs[d]  # (the recursion used the deeper buffers only)
        if s > best:
            best = s
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    return best


@nb.njit(cache=False)  # (recursion: numba's cache of it crashes on load)
def search_move(me, opp, hm, ho, depth, g, bufs):
    """The searcher's move: the index of a best move at ``depth`` (ties at random), -1 if none."""
    buf = bufs[depth]
    n = generate_moves(me, opp, hm, ho, g, buf)
    rows = buf[:n].copy()
    best, count, pick = -BIG, 0, -1
    for j in range(n):
        m2, o2, h2 = apply_move(me, opp, hm, rows[j, 0], rows[j, 1], rows[j, 2], rows[j, 3], rows[j, 4])
        if popcount(o2) + ho < 3:
            s = 10000 + depth
        else:
            s = -negamax(o2, m2, ho, h2, depth - 1, -BIG, BIG, g, bufs)
        if s > best:
            best, count, pick = s, 1, j
        elif s == best:
            count += 1
            if np.random.randint(count) == 0:
                pick = j
    return pick


@nb.njit(cache=False)  # (recursion: numba's cache of it crashes on load)
def play_games(starts, tested_first, tested, other, p, depth, seeds, max_plies, g, ix, offset, secval, values, rank, depth_arr):
    """One game per row of ``starts`` (mover, opponent, mover's hand, opponent's hand), the tested
    player (``tested``: STRONG or ULTRA) moving first where ``tested_first``; ``other`` is NOISY
    (``p``) or SEARCH (``depth``). Each game seeds numba's generator with its ``seeds`` entry.
    Returns the result for the tested player (WIN/DRAW/LOSS), the plies played and how the game
    ended (ENDED, REPETITION, CAP)."""
    n = starts.shape[0]
    result = np.zeros(n, dtype=np.int8)
    played = np.zeros(n, dtype=np.int64)
    how = np.zeros(n, dtype=np.int8)
    bufs = np.empty((depth + 2, MAX_MOVES, 5), dtype=np.int64)
    buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
    kind = np.empty(MAX_MOVES, dtype=np.int64)
    plies = np.empty(MAX_MOVES, dtype=np.int64)
    mrank = np.empty(MAX_MOVES, dtype=np.int64)
    mtempo = np.empty(MAX_MOVES, dtype=np.int64)
    history = np.empty(max_plies + 1, dtype=np.int64)
    for i in range(n):
        np.random.seed(seeds[i])
        me, opp, hm, ho = starts[i, 0], starts[i, 1], starts[i, 2], starts[i, 3]
        tested_to_move = tested_first[i]
        ply = 0
        while True:
            # the position, from the first mover's colour: a key for repetitions
            if (ply % 2) == 0:
                key = (me << 36) | (opp << 12) | (hm << 8) | (ho << 4)
            else:
                key = (opp << 36) | (me << 12) | (ho << 8) | (hm << 4) | 1
            history[ply] = key
            seen = 0
            for k in range(ply + 1):
                if history[k] == key:
                    seen += 1
            if seen >= 3:
                result[i], how[i] = DRAW, REPETITION
                break
            nm = move_values(me, opp, hm, ho, g, ix, offset, secval, values, rank, depth_arr, buf, kind, plies, mrank, mtempo)
            if nm == 0:  # the side to move has lost (no draw by a full board in these games)
                result[i] = LOSS if tested_to_move else WIN
                how[i] = ENDED
                break
            if ply == max_plies:
                result[i], how[i] = DRAW, CAP
                break
            if tested_to_move:
                j = choose_best(nm, kind, plies, mrank, mtempo, tested == ULTRA, False)
            elif other == NOISY:
                if np.random.random() < p:
                    j = np.random.randint(nm)
                else:
                    j = choose_best(nm, kind, plies, mrank, mtempo, False, True)
            else:
                j = search_move(me, opp, hm, ho, depth, g, bufs)
                generate_moves(me, opp, hm, ho, g, buf)  # (the search used its own buffers)
            m2, o2, h2 = apply_move(me, opp, hm, buf[j, 0], buf[j, 1], buf[j, 2], buf[j, 3], buf[j, 4])
            ply += 1
            if popcount(o2) + ho < 3:
                result[i] = WIN if tested_to_move else LOSS
                how[i] = ENDED
                break
            me, opp, hm, ho = o2, m2, ho, h2
            tested_to_move = not tested_to_move
        played[i] = ply
    return result, played, how
