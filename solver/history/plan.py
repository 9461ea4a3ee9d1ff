"""What solving a game's moving phase under the history rule takes: states per subspace
(estimated from a sample of slots, or counted), and the memory of each group.

A group holds, while it is solved, 3 bytes a state (``value``, ``count``) and 1.25 bytes a slot
(``counts``, ``block_first``) of its two halves, and, of the subspaces its removals lead into,
2 bytes a state and 1.25 a slot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..index.kernels import is_canonical_pair, unrank_position
from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from .solve import closure, moving_groups, removal_targets
from .states import position_codes, scratch
from .tables import history_tables

GROUP_STATE, INPUT_STATE, SLOT = 3, 2, 1.25


@nb.njit(cache=True)
def sample_states(a, b, slots, ht, ix):
    """(canonical slots, states) over the slots given."""
    syms, bans, pends, codes = scratch()
    pos = 0
    states = 0
    for s in slots:
        m, o = unrank_position(a, b, s, ix)
        if is_canonical_pair(m, o, ix):
            pos += 1
            states += position_codes(m, o, ht, ix, bans, pends, syms, codes)
    return pos, states


@dataclass
class GroupPlan:
    group: list[tuple[int, int]]
    slots: int
    states: float  # estimated
    input_slots: int
    input_states: float

    @property
    def bytes(self) -> float:
        return GROUP_STATE * self.states + SLOT * self.slots + INPUT_STATE * self.input_states + SLOT * self.input_slots


def plan(rules: RuleSet, subspaces, sample: int = 20_000, seed: int = 1) -> list[GroupPlan]:
    """Each group's slots, estimated states (``sample`` random slots a subspace; every slot where
    there are fewer) and memory, in solving order."""
    ht = history_tables(rules)
    bix = board_index(rules.board)
    rng = np.random.default_rng(seed)
    per: dict[tuple[int, int], tuple[int, float]] = {}
    subs = closure(rules, subspaces)
    for a, b in subs:
        slots = bix.slots(a, b)
        chosen = np.arange(slots) if slots <= sample else rng.integers(0, slots, sample)
        _, states = sample_states(a, b, chosen.astype(np.int64), ht, bix.tables)
        per[a, b] = (slots, states * slots / len(chosen))
    out = []
    for group in moving_groups(subs):
        inputs = sorted({t for a, b in group for t in removal_targets(rules, a, b)})
        out.append(
            GroupPlan(
                group, sum(per[s][0] for s in group), sum(per[s][1] for s in group),
                sum(per[s][0] for s in inputs), sum(per[s][1] for s in inputs),
            )
        )
    return out
