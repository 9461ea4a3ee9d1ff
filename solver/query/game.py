"""The game's value: the analysis of the start position, and that value in words."""

from __future__ import annotations

from pathlib import Path

from ..rules.notation import Position
from ..rules.rulesets import RuleSet
from .database import open_database


def start_position(rules: RuleSet) -> Position:
    """The empty board, White to move, every man in hand."""
    return Position(0, 0, "w", rules.men, rules.men)


def game_value(db_path: Path, rules: RuleSet | None = None):
    """The analysis of the start position (its value and every first move's), or None where the
    database does not hold the start's tier."""
    with open_database(db_path, rules) as db:
        start = start_position(db.rules)
        if not db.has(0, 0, db.rules.men, db.rules.men):
            return None
        return db.analyse(start)


def game_value_line(db_path: Path, rules: RuleSet | None = None) -> str | None:
    """"game value: White wins in 9 plies (the start, ......... w 3 3)", or None."""
    analysis = game_value(db_path, rules)
    return None if analysis is None else describe_game(analysis)


def describe_game(analysis) -> str:
    """The start position's value in words, from White's side (White moves first)."""
    p = analysis.probe
    verdict = {"win": "White wins", "loss": "Black wins", "draw": "a draw"}[p.value]
    plies = "" if p.plies is None else f" in {p.plies} plies"
    return f"game value: {verdict}{plies} (the start, {analysis.board_string})"
