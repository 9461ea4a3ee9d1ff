"""Rule sets: a board plus the options of docs/rules.md, named or built from options on top of a name.

A rule set is stored in full with every database (``to_dict``) and handed to the kernels as a small
int array (``kernel_options``), so one compiled kernel serves every variant.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from .boards import BOARDS, Board
from ..errors import RulesError

# option name -> its allowed values, the standard value first (docs/rules.md's table)
CHOICES: dict[str, tuple[str, ...]] = {
    "board": ("standard", "diagonal", "six", "three"),
    "flying": ("at-3", "never"),
    "removal-from-mills": ("any", "forfeit"),  # when every opponent man stands in a mill
    "double-mill": ("one", "per-mill"),  # removals for two mills formed at once
    "removal": ("compulsory", "optional"),
    "blocked": ("loses", "passes"),  # a player to move with no legal move
    "lasker": ("off", "on"),  # with men in hand, place or move
    "full-board": ("draw", "blocked"),  # no empty point during placing
    "mill-wins": ("off", "on"),  # Three Men's Morris: forming a mill wins at once
    # the history rule (docs/history-rule.md): allowed, or the Viking ban (the man that left a mill
    # may not go straight back into it), or the running-mill ban (a move that opens a mill and
    # closes another forbids closing the opened one on the next move)
    "reclose": ("allowed", "same-man", "running-mill"),
}
# options whose non-standard values only solver.history (and the plain reference) handle
HISTORY_OPTIONS = ("reclose",)
MEN_RANGE = range(3, 13)


@dataclass(frozen=True)
class RuleSet:
    name: str = "standard"
    board: str = "standard"
    men: int = 9
    flying: str = "at-3"
    removal_from_mills: str = "any"
    double_mill: str = "one"
    removal: str = "compulsory"
    blocked: str = "loses"
    lasker: str = "off"
    full_board: str = "draw"
    mill_wins: str = "off"
    reclose: str = "allowed"

    @property
    def board_data(self) -> Board:
        return BOARDS[self.board]

    @property
    def options(self) -> dict[str, object]:
        d = asdict(self)
        del d["name"]
        return {k.replace("_", "-"): v for k, v in d.items()}

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, **self.options}

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> RuleSet:
        rules = get_rules(str(d.get("name", "standard")))
        opts = {k: v for k, v in d.items() if k != "name"}
        return replace(with_options(rules, opts), name=str(d.get("name", rules.name)))

    def describe(self) -> str:
        base = NAMED.get(self.name)
        diff = {k: v for k, v in self.options.items() if base is None or base.options[k] != v}
        return self.name + "".join(f" {k}={v}" for k, v in diff.items())

    def most_removals(self, men: int) -> int:
        """The most opponent men one move of the moving phase removes, for a side with ``men`` men:
        1, or under per-mill one per mill the move closes (``Board.most_mills_closed``; a side
        that flies has 3 men and closes one mill at most). The engine loads the smaller subspaces
        this says its moves reach. No board closes more than three at once (``movegen``)."""
        if self.double_mill != "per-mill":
            return 1
        slide = not (self.flying == "at-3" and men == 3)
        return max(1, min(3, self.board_data.most_mills_closed(men, slide)))

    def require_plain_history(self) -> None:
        """Raise RulesError (one line) unless the rule set's positions are plain: the history rule
        (``reclose``) needs states that only ``solver.history`` and the commands built on it hold."""
        if self.reclose != "allowed":
            raise RulesError(
                f"option reclose={self.reclose} is a history rule (docs/history-rule.md): morris solve, query, "
                "info, verify and moves take it; the plain engine and the other commands take reclose=allowed"
            )

    def kernel_options(self) -> np.ndarray:
        """The options as ints for the numba kernels (see movegen.OPT_*). Refuses the history rule
        (``require_plain_history``): the kernels know nothing of it."""
        self.require_plain_history()
        return np.array(
            [
                self.men,
                self.flying == "at-3",
                self.removal_from_mills == "forfeit",
                self.double_mill == "per-mill",
                self.removal == "optional",
                self.blocked == "passes",
                self.lasker == "on",
                self.full_board == "draw",
                self.mill_wins == "on",
            ],
            dtype=np.int64,
        )


NAMED: dict[str, RuleSet] = {
    "standard": RuleSet(),
    "no-flying": RuleSet(name="no-flying", flying="never"),
    "viking": RuleSet(name="viking", flying="never", removal_from_mills="forfeit"),
    "twelve": RuleSet(name="twelve", board="diagonal", men=12),
    "lasker": RuleSet(name="lasker", men=10, lasker="on"),
    "six": RuleSet(name="six", board="six", men=6, flying="never"),
    "three": RuleSet(name="three", board="three", men=3, flying="never", mill_wins="on"),
}
ALIASES = {"morabaraba": "twelve"}


def get_rules(name: str) -> RuleSet:
    key = ALIASES.get(name, name)
    if key not in NAMED:
        known = ", ".join(list(NAMED) + list(ALIASES))
        raise RulesError(f"unknown rule set {name!r} (known: {known})")
    return NAMED[key]


def parse_option(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise RulesError(f"option {text!r} is not of the form NAME=VALUE")
    key, value = (s.strip() for s in text.split("=", 1))
    return key, value


def with_options(rules: RuleSet, options: dict[str, object] | list[str] | tuple[str, ...]) -> RuleSet:
    """``rules`` with options set on top: ``{"flying": "never"}`` or ``["flying=never"]``."""
    if isinstance(options, (list, tuple)):
        options = dict(parse_option(o) for o in options)
    changes: dict[str, object] = {}
    field_names = {f.name for f in fields(RuleSet)}
    for key, value in options.items():
        attr = key.replace("-", "_")
        if attr not in field_names or attr == "name":
            known = ", ".join(["men", *CHOICES])
            raise RulesError(f"unknown option {key!r} (known: {known})")
        if attr == "men":
            try:
                men = int(value)
            except (TypeError, ValueError):
                raise RulesError(f"option men={value!r} is not a whole number") from None
            if men not in MEN_RANGE:
                raise RulesError(f"option men={men} is out of range {MEN_RANGE.start}..{MEN_RANGE.stop - 1}")
            changes["men"] = men
        else:
            allowed = CHOICES[key.replace("_", "-")]
            if str(value) not in allowed:
                raise RulesError(f"option {key}={value!r} is not one of {', '.join(allowed)}")
            changes[attr] = str(value)
    new = replace(rules, **changes)
    if 2 * new.men > new.board_data.n:
        raise RulesError(f"{new.men} men a side do not fit on the {new.board} board's {new.board_data.n} points")
    return new


def make_rules(name: str = "standard", options: list[str] | tuple[str, ...] | dict | None = None) -> RuleSet:
    """The named rule set with ``options`` set on top (the CLI's ``--rules`` and ``--option``)."""
    rules = get_rules(name)
    return with_options(rules, options) if options else rules
