"""The three-men ten-move rule ("three men each and no removal within ten moves is a draw"): it
depends on the game's history, so it is not part of a stored value; ``three_men_rule`` answers it
from the stored plies."""

from __future__ import annotations

from ..rules.notation import Position
from ..rules.rulesets import RuleSet
from ..values import DRAW, LOSS, WIN

# The three-men rule: ten moves of each side without a removal.
TEN_MOVE_PLIES = 20


def three_men_rule(value: str, plies: int | None, played: int = 0) -> str:
    """The value under "three men each and no removal within ten moves is a draw".

    The rule applies where both sides have exactly 3 men; every removal there ends the game (the
    side left with two men has lost), so "no removal within ten moves" means "the game has not
    ended within ten moves of each side", i.e. within ``TEN_MOVE_PLIES`` = 20 plies of the moment
    both sides came down to 3 men. Since the stored plies are the exact length of the game under
    perfect play (the winner hurries, the loser holds out), a side can force a win within the
    limit exactly when its stored win takes at most 20 plies:

    - a win or loss in ``plies <= 20 - played`` keeps its value;
    - a win or loss that takes longer is a draw under the rule (the loser can hold out past the
      tenth move);
    - a draw stays a draw.

    ``played`` is the number of plies already played since both sides had 3 men (the count of
    the rule); the query tools assume 0, i.e. that the count starts at the probed position.
    A move's value is judged with the plies counted from the probed position, so the same
    threshold applies to the move table.
    """
    if value not in (WIN, DRAW, LOSS):
        raise ValueError(f"value must be 'win', 'draw' or 'loss', not {value!r}")
    if played < 0:
        raise ValueError("played cannot be negative")
    if value == DRAW:
        return DRAW
    if plies is None:
        raise ValueError(f"a {value} needs its plies")
    return value if plies <= TEN_MOVE_PLIES - played else DRAW


def three_each(rules: RuleSet, pos: Position) -> bool:
    """Whether the rule has something to say about ``pos``: both sides with exactly 3 men on the
    board and none in hand. In Three Men's Morris (3 men from the start, no removals) it has not."""
    return (
        rules.men > 3
        and int(pos.white).bit_count() == 3
        and int(pos.black).bit_count() == 3
        and not (pos.hand_white or pos.hand_black)
    )
