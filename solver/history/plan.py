"""What solving a game's moving phase under the history rule takes: states per subspace
(estimated from a sample of slots, or counted), and the memory of each group, as
``solve.solve_moving(keep=False, load=store.DatabaseInputs)`` (``morris solve``) holds it.

A group is solved in two stages, whose larger is its peak:

- **the solve**: the store of its inputs (the subspaces its removals lead into, read straight
  from the database: a byte a state, ``solve.INPUT_TOP``, and 1.25 bytes a slot: ``counts``
  and ``block_first``), and the group's own store: 1.25 bytes a slot, ``value`` (2 bytes a
  state) and ``count`` (1);
- **the write**, a half at a time (``write.write_half``): the inputs and ``count`` are gone; the
  group's values and slots are held, and the half's plain values (2 bytes a slot) and its side
  table's values (2 bytes a state with a record); its keys are made a piece at a time.

Where a subspace's largest code passes a byte (a game of more than 254 plies) its inputs take 2
bytes a state (``bytes_wide``). ``BASE`` is the process itself (the interpreter, numba's
compiled kernels, h5py), measured, and the pieces the loads and writes hold at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ..index.kernels import is_canonical_pair, unrank_position
from ..index.tables import board_index
from ..rules.rulesets import RuleSet
from .groups import closure, moving_groups, removal_targets
from .states import position_codes, scratch
from .tables import history_tables

GROUP_STATE, INPUT_STATE, SLOT = 3, 1, 1.25  # the solve: bytes a state of the group, of its inputs; a slot of either
WRITE_STATE, WRITE_HALF_SLOT, WRITE_HALF_EXTRA = 2, 2, 2  # the write: the group's values; the half's plain values, side values
BASE = 768 << 20  # (measured: 721 MiB at the peak of the Viking moving phase to 5 men, whose largest group holds 200 MiB)
# States a second of the solve (index, judging and levels) on the reference machine
# (``engine.costs.reference_run.HOST``): Viking with the same-man ban, its group 5-6 with 6-5,
# 242,276,904 states in 201.7 s on this project's 2-core VM, 2026-11-29 (b8c97f9, the per-state
# helpers inlined; quiet), whose ``machine_speed`` put it at 0.98 times the reference's seconds
# then (259.1 s at 1.06 on 2026-11-28, before the inlining). The largest group measured; the
# 9-men groups, up to 13 times larger, may run slower.
REFERENCE_RATE = 242_276_904 / 201.7 * 0.98


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
    half_slots: list[int] = field(default_factory=list)  # per half of the group
    half_extra: list[float] = field(default_factory=list)  # per half: its states with a record (estimated)

    def solve_bytes(self, input_state: float = INPUT_STATE) -> float:
        return BASE + GROUP_STATE * self.states + SLOT * self.slots + input_state * self.input_states + SLOT * self.input_slots

    @property
    def write_bytes(self) -> float:
        half = max((WRITE_HALF_SLOT * s + WRITE_HALF_EXTRA * x for s, x in zip(self.half_slots, self.half_extra)), default=0)
        return BASE + WRITE_STATE * self.states + SLOT * self.slots + half

    @property
    def bytes(self) -> float:
        """The group's peak: the larger of its solve and its write."""
        return max(self.solve_bytes(), self.write_bytes)

    @property
    def bytes_wide(self) -> float:
        """The peak where the inputs' codes need 2 bytes a state."""
        return max(self.solve_bytes(2), self.write_bytes)


def plan(rules: RuleSet, subspaces, sample: int = 20_000, seed: int = 1) -> list[GroupPlan]:
    """Each group's slots, estimated states (``sample`` random slots a subspace; every slot where
    there are fewer) and memory, in solving order."""
    ht = history_tables(rules)
    bix = board_index(rules.board)
    rng = np.random.default_rng(seed)
    per: dict[tuple[int, int], tuple[int, float, float]] = {}
    subs = closure(rules, subspaces)
    for a, b in subs:
        slots = bix.slots(a, b)
        chosen = np.arange(slots) if slots <= sample else rng.integers(0, slots, sample)
        pos, states = sample_states(a, b, chosen.astype(np.int64), ht, bix.tables)
        per[a, b] = (slots, states * slots / len(chosen), (states - pos) * slots / len(chosen))
    out = []
    for group in moving_groups(subs):
        inputs = sorted({t for a, b in group for t in removal_targets(rules, a, b)})
        out.append(
            GroupPlan(
                group, sum(per[s][0] for s in group), sum(per[s][1] for s in group),
                sum(per[s][0] for s in inputs), sum(per[s][1] for s in inputs),
                [per[s][0] for s in group], [per[s][2] for s in group],
            )
        )
    return out


def solve_seconds(groups: list[GroupPlan], speed: float) -> float:
    """Seconds of solving ``groups`` on a machine of ``speed`` (its seconds per second of the
    reference machine): their states at ``REFERENCE_RATE``."""
    return sum(g.states for g in groups) / REFERENCE_RATE * speed
