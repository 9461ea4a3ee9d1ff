"""Sector values: Malom's ranking of tiers by the strong solution's statistics.

A port of ``calc_sec_vals`` in Malom's ``Analyzer/Analyzer.cpp`` (github ggevay/malom), line by
line where it matters, so that our values can be compared with Malom's ``std.secval``. Malom's
sector (W, B, WF, BF), White to move, is our tier (a, b, ha, hb) seen from the side to move.
``docs/ultra-strong.md`` explains each step and where it is in Malom's source.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DatabaseError
from ..rules.rulesets import RuleSet
from ..storage.ranks import parse_secval_text
from ..tiers import Tier, group_of, twin

EPS = 0.00000000001  # Analyzer.cpp:224


@dataclass(frozen=True)
class SectorValues:
    """The value of each tier (an int, from the side to move's view), and the two virtual values
    that stand for a win and a loss, one beyond every tier's (Analyzer.cpp:390-396)."""

    values: dict[Tier, int]
    virt_loss: int
    virt_win: int
    ratios: dict[Tier, float]  # the share of the tier, minus 0.5, that the values rank

    def tiers_worth(self, value: int) -> list[Tier]:
        """The tiers whose value is ``value``: where a draw of that rank settles, from the side to
        move's view (one tier, except 0: the symmetric tiers that cycle, and maybe one with men in
        hand)."""
        return sorted(t for t, v in self.values.items() if v == value)

    def secval_text(self, order: list[Tier] | None = None) -> str:
        """The values in Malom's ``.secval`` text format (Analyzer.cpp:401-407), in ``order``
        (default: ascending ratio, the order Malom writes)."""
        order = order or sorted(self.values, key=lambda t: (self.ratios[t], t))
        lines = [f"virt_loss_val: {self.virt_loss}", f"virt_win_val: {self.virt_win}", str(len(order))]
        lines += [f"{a} {b} {ha} {hb}  {self.values[(a, b, ha, hb)]}" for a, b, ha, hb in order]
        return "\n".join(lines) + "\n"


def parse_secval(text: str) -> SectorValues:
    """A ``.secval`` text (Malom's format, as ``secval_text`` writes it and a ranked database
    stores it) read back; the ratios are not in the file, so each tier's place in it stands in
    for its ratio (the file lists them by ratio). ValueError for a text that is not one."""
    virt_loss, virt_win, rows = parse_secval_text(text)
    values = {r[:4]: r[4] for r in rows}
    return SectorValues(values, virt_loss, virt_win, {r[:4]: float(i) for i, r in enumerate(rows)})


def stored_secvals(db) -> SectorValues | None:
    """The sector values a ranked database (``storage.Database``) was ranked with, or None where
    it holds none; DatabaseError where the stored text is damaged."""
    text = db.secval_text()
    if text is None:
        return None
    try:
        return parse_secval(text)
    except ValueError as e:
        raise DatabaseError(f"{db.path}: its ultra_secval attribute is damaged ({e})") from None


def transient(rules: RuleSet, t: Tier) -> bool:
    """A tier no move comes back to (Malom's ``id::transient``, common.h:242): one with men in
    hand, or under Lasker's rule one where a side has no man on the board. Here: a tier that does
    not cycle with its twin (``tiers.group_of``), which is the same for both rule families."""
    return not (group_of(rules, t).cycles and t[0] > 0 and t[1] > 0)


def _ratio(stats: dict[Tier, tuple[int, int, int]], t: Tier, is_transient: bool) -> float:
    """Analyzer.cpp:183-198: (wins + draws / 2) / positions, over the tier and its twin together
    when the tier cycles (its wins and its twin's losses are the same side's good outcomes)."""
    w, d, l = stats[t]
    if is_transient:
        return (w + d / 2) / (w + d + l)
    w2, d2, l2 = stats[twin(t)]
    return ((w + l2) + (d / 2 + d2 / 2)) / (w + d + l + w2 + d2 + l2)


def sector_values(rules: RuleSet, stats: dict[Tier, tuple[int, int, int]]) -> SectorValues:
    """Malom's sector values from each tier's (win, draw, loss) counts over positions up to
    symmetry (the database's per-tier statistics; Malom's ``.analyze`` files hold the same)."""
    tiers = sorted(stats)
    kind = {t: transient(rules, t) for t in tiers}
    eks = {t: twin(t) == t for t in tiers}
    twine = {t: not eks[t] and not kind[t] for t in tiers}
    for t in tiers:
        if not kind[t] and twin(t) not in stats:
            raise ValueError(f"tier {t} cycles with its twin {twin(t)}, which has no statistics")

    secs = []
    for t in tiers:
        v = _ratio(stats, t, kind[t]) - 0.5  # Analyzer.cpp:227-233: from [0, 1] to [-0.5, 0.5]
        if abs(v) < EPS and v != 0:
            v = 0.0
        secs.append((v, t))

    def group(t: Tier) -> int:
        """Analyzer.cpp:242-243: the symmetric tiers that cycle in the middle of equal values, a
        tier below its twin (by Malom's id order) to their left, the twin to their right."""
        if eks[t] and not kind[t]:
            return 0
        return -1 if t < twin(t) else 1

    def key(item):
        """The sort of Analyzer.cpp:235-251 as a key: value, then the group, then the id
        ascending on the left and the twin's id descending on the right."""
        v, t = item
        g = group(t)
        if g == -1:
            return (v, g, t)
        if g == 1:
            tw = twin(t)
            return (v, g, tuple(-x for x in tw))
        return (v, g, t)  # (Malom leaves the order among these to std::sort: all get 0 anyway)

    secs.sort(key=key)
    n = len(secs)
    ids = [t for _, t in secs]
    sec_val = [0] * n
    if any(eks[t] for t in ids):
        first_eks = next(i for i, t in enumerate(ids) if eks[t])
        # Analyzer.cpp:261-263: the nearest twins around the first symmetric tier; where there is
        # none on a side (a game with no twin pair, e.g. 3 men a side) the list's end (Malom's
        # loop would run off the array there).
        left_t = next((i for i in range(first_eks, -1, -1) if twine[ids[i]]), -1)
        right_t = next((i for i in range(first_eks, n) if twine[ids[i]]), n)
    else:
        left_t, right_t = -1, n
    left, right = (left_t + right_t) // 2, (left_t + right_t + 1) // 2
    if left == right:
        sec_val[left] = 0
        left -= 1
        right += 1
    oc = 1
    while True:  # Analyzer.cpp:272-296: outward from the middle, twins paired
        if left < 0:
            while right < n:
                sec_val[right] = oc
                right += 1
                oc += 1
            break
        if right >= n:
            while left >= 0:
                sec_val[left] = -oc
                left -= 1
                oc += 1
            break
        lt, rt = twine[ids[left]], twine[ids[right]]
        if lt and rt:
            sec_val[left], sec_val[right] = -oc, oc
            left, right, oc = left - 1, right + 1, oc + 1
        elif not lt and rt:
            sec_val[left] = -oc
            left, oc = left - 1, oc + 1
        elif lt and not rt:
            sec_val[right] = oc
            right, oc = right + 1, oc + 1
        else:
            sec_val[left], sec_val[right] = -oc, oc
            left, right, oc = left - 1, right + 1, oc + 1
    for i, t in enumerate(ids):  # Analyzer.cpp:299-302: symmetric tiers that cycle are worth 0
        if eks[t] and not kind[t]:
            sec_val[i] = 0

    values = dict(zip(ids, sec_val))
    virt_loss, virt_win = min(sec_val) - 1, max(sec_val) + 1
    if abs(virt_loss) < abs(virt_win):  # Analyzer.cpp:392-396: zero-sum, since values get negated
        virt_loss = -virt_win
    else:
        virt_win = -virt_loss
    for t in ids:
        if twine[t] and values[t] != -values[twin(t)]:
            raise ValueError(
                f"sector values of the twins {t} and {twin(t)} are {values[t]} and {values[twin(t)]}, "
                "not opposite (Malom asserts this, Analyzer.cpp:287): the draw ranks need them zero-sum"
            )
    return SectorValues(values, virt_loss, virt_win, {t: v for v, t in secs})


def database_stats(db) -> dict[Tier, tuple[int, int, int]]:
    """Each tier's (win, draw, loss) over positions up to symmetry, as a solve stores them."""
    return {info.tier: (info.win, info.draw, info.loss) for info in db.tiers()}
