"""The engine's working codes and the decoding of values inside kernels.

Values, one uint16 per slot, for the side to move (``solver.values``): 0 = draw (undecided while
solving), DUP = a slot that holds no canonical position, otherwise ``level + 1`` where ``level``
is the number of plies to the end of the game; an odd level is a win, an even level a loss.

While solving, each slot also has
- ``count``: its distinct successors inside the twin subspace (no removal) not yet known to be wins
  for the opponent. It is computed lazily (UNKNOWN until then): only a position that some
  successor's win reaches, or whose removals alone could make it a loss, ever needs it. Most
  positions of the larger subspaces are draws that nothing reaches, so this skips most of the
  successor ranking;
- ``removals``: what its moves with a removal (into the smaller, solved subspaces ``fewer``, a
  tuple of three: one, two and three opponent men fewer; more than one only under
  ``double-mill=per-mill``, one per mill closed) say: an odd level is the earliest win they give,
  an even level the latest loss they allow (the loss waits for it), NOLOSS when one of them is a
  draw, 0 when there are none. Only positions whose removals may win need it at once; they are
  found backwards from the losses of the smaller subspace (``removals.mark_removal_candidates``).
  For the others it stays LAZY until every other successor has become a win, the only time it
  can matter.
A position is a win at level L+1 as soon as one successor is a loss at L; a loss at L+1 when its
last undecided successor becomes a win at L and every removal allows it. Levels are processed in
increasing order, so winners get the fewest plies and losers the most.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ... import values
from ...jit import helper
from ...rules.boards import MAX_SYMMETRIES
from ...values import DUP, MAX_PLIES

NOLOSS = 0xFFFE  # removals: one of them leads to a draw
LAZY = 0xFFFD  # removals: not computed yet (they hold no win; see init_subspace)
MAX_LEVEL = MAX_PLIES  # value = level + 1 and removal levels stay below LAZY, NOLOSS and DUP
UNKNOWN = 255  # count not computed yet (a count is at most 3 * 21 + 1)
CANDIDATE = 254  # count of a LAZY position whose removals may win: compute them exactly
CHUNK = 4096  # slots per parallel work item
SYMS = MAX_SYMMETRIES  # room for the symmetries that fix a set of men

assert DUP > NOLOSS > LAZY > MAX_LEVEL + 1

wins_in = helper(values.wins_in)  # a level (plies to the end) that is a win for the side to move


@helper
def may_lose(e):
    """False when a removal already gives a win or a draw."""
    return e == LAZY or (not wins_in(e) and e != NOLOSS)


@helper
def is_level(e):
    """An removals code that schedules a decision at that level."""
    return e != 0 and e < LAZY


def tally(value):
    """(positions, wins, draws, losses, longest win, longest loss) over canonical slots."""
    return _tally(value, nb.get_num_threads())


@nb.njit(cache=True, parallel=True)
def _tally(value, parts):
    """``tally`` from a histogram of the values per part (one increment a slot, no branch to
    mispredict), read once at the end."""
    n = value.shape[0]
    hist = np.zeros((parts, 1 << 16), dtype=np.int64)
    for p in nb.prange(parts):
        h = hist[p]
        for s in range(n * p // parts, n * (p + 1) // parts):
            h[value[s]] += 1
    pos = win = draw = loss = 0
    max_win = max_loss = -1
    total = hist[0]
    for p in range(1, parts):
        total += hist[p]
    for v in range(1 << 16):
        k = total[v]
        if k == 0 or v == DUP:
            continue
        pos += k
        if v == 0:
            draw += k
        elif wins_in(v - 1):
            win += k
            max_win = max(max_win, v - 1)
        else:
            loss += k
            max_loss = max(max_loss, v - 1)
    return pos, win, draw, loss, max_win, max_loss
