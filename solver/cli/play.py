"""``morris play``: a game in the terminal against the database's perfect play.

The game itself (the position, the database's replies, repetitions and how it ends) is
``solver.play.Game``; this module reads the player's moves and shows the game. At a terminal the
board is drawn after every move; otherwise (a script, a test) moves are read one a line and every
ply is one plain line, or with --json one JSON object. The player stops with ``quit`` or the end
of the input.
"""

from __future__ import annotations

import sys

import click

from ..errors import IllegalMoveError
from ..play import COLOUR, Ending, Game, Ply, value_text
from .common import (
    database_and_rules,
    db_option,
    draw,
    echo_json,
    json_option,
    rules_options,
)

QUIT = ("quit", "exit", "q")


# -- what the player sees: a terminal, plain lines, or JSON ---------------------------------------


class Lines:
    """One plain line per event (standard input is not a terminal)."""

    def start(self, game: Game) -> None:
        you = COLOUR[game.you]
        ultra = f"; ultra-strong play, seed {game.seed}" if game.strength == "ultra" else ""
        click.echo(f"start: {game.board_string}, {COLOUR[game.to_move]} to move; you play {you}{ultra}")

    def turn(self, game: Game, hints: bool) -> None:
        """The player is to move (again, after a refused move: no second hint)."""
        if hints and self._hinted_at != game.plies:
            self._hinted_at = game.plies
            p = game.analysis.probe
            text = f"{COLOUR[game.to_move]} to move: {value_text(p.value, p.plies)}"
            if p.three_men_rule is not None:
                text += f" ({p.three_men_rule} under the ten-move rule)"
            click.echo(text)

    _hinted_at = -1  # the ply whose position was last hinted

    def ply(self, game: Game, ply: Ply) -> None:
        by = " (database)" if ply.by == "database" else ""
        click.echo(f"{ply.number}. {COLOUR[ply.side]} {ply.move.notation}{by}: {game.board_string}")

    def illegal(self, game: Game, text: str, error: str) -> None:
        click.echo(f"error: {error}; legal moves: {' '.join(game.legal())}", err=True)

    def end(self, game: Game, ending: Ending) -> None:
        click.echo(ending.text)


class Terminal(Lines):
    """The board drawn after every move, a prompt for the player's moves."""

    def _draw(self, game: Game) -> None:
        click.echo(draw(game.board, game.position))
        click.echo(game.board_string)

    def start(self, game: Game) -> None:
        click.echo(
            f"You play {COLOUR[game.you]}. Type a move in the notation (d1 places, a1-a4 moves, a removal "
            "is appended: a1-a4xb6), or quit."
        )
        self._draw(game)

    def ply(self, game: Game, ply: Ply) -> None:
        click.echo()
        if ply.by == "database":
            click.echo(f"{ply.number}. {COLOUR[ply.side]} plays {ply.move.notation}")
        else:
            click.echo(f"{ply.number}. you play {ply.move.notation}")
        self._draw(game)

    def illegal(self, game: Game, text: str, error: str) -> None:
        click.echo(f"{error}; legal moves: {' '.join(game.legal())}")


class Json(Lines):
    """A JSON object per event: start, turn (the player's move is awaited; with --hints its value),
    ply, illegal, end."""

    def start(self, game: Game) -> None:
        p = game.analysis.probe
        out = {"event": "start", "position": game.board_string, "you": game.you, "to_move": game.to_move,
               "value": p.value, "plies": p.plies}
        if game.strength == "ultra":
            out["seed"] = game.seed
        echo_json(out)

    def turn(self, game: Game, hints: bool) -> None:
        out = {"event": "turn", "position": game.board_string, "legal": game.legal()}
        if hints:
            p = game.analysis.probe
            out.update(value=p.value, plies=p.plies)
        echo_json(out)

    def ply(self, game: Game, ply: Ply) -> None:
        mv = ply.move
        echo_json(
            {"event": "ply", "ply": ply.number, "side": ply.side, "by": ply.by, "move": mv.notation,
             "value": mv.value, "plies": mv.plies, "position": game.board_string, "to_move": game.to_move,
             **({"rank": mv.rank, "settles_in": list(mv.settles_in)} if mv.rank is not None else {})}
        )

    def illegal(self, game: Game, text: str, error: str) -> None:
        echo_json({"event": "illegal", "input": text, "error": error, "legal": game.legal()})
        click.echo(f"error: {error}", err=True)

    def end(self, game: Game, ending: Ending) -> None:
        echo_json(
            {"event": "end", "result": ending.result, "reason": ending.reason, "plies": game.plies,
             "position": game.board_string, "text": ending.text}
        )


def _read_moves(interactive: bool):
    """The player's input, a move a line; ends with the input (or Ctrl-D at a terminal)."""
    if interactive:
        while True:
            try:
                yield input("your move: ")
            except EOFError:
                click.echo()
                return
    for line in sys.stdin:
        if line.strip():
            yield line.strip()


def _start_position(text: str, rules):
    """POSITION, or the start of a game (answered by a database solved with --whole-game)."""
    from ..query import start_position
    from ..rules.notation import parse_position

    if text:
        return parse_position(text, rules)
    return start_position(rules)


@click.command()
@db_option
@rules_options
@click.option("--as", "colour", type=click.Choice(["white", "black"]), default=None,
              help="the colour you play [default: the side to move]")
@click.option("--hints", is_flag=True, help="say the value of the position before each of your moves")
@click.option("--strength", type=click.Choice(["strong", "ultra"]), default="strong", show_default=True,
              help="the database's play: strong (the first of its best moves) or ultra (among draws, the best-ranked: needs morris rank)")
@click.option("--seed", type=click.IntRange(0), default=None,
              help="with --strength ultra: the seed of its random choice among moves of equal value and rank (the same seed, the same game) [default: a new one, printed at the start]")
@json_option("a JSON object per ply (and at the start, for each rejected move and at the end)")
@click.argument("position", nargs=-1)
def play(db_path, rules_name, options, colour, hints, strength, seed, as_json, position):
    """Play a game from POSITION against the database's perfect play.

    POSITION is a board string or point lists, e.g. "W:a1,d1,g1 B:a4,b4,c4 w" [default: the
    empty board, which needs a database solved with --whole-game]; several words are joined with spaces. Type a move in the notation
    (a1-a4, a1-a4xb6 to remove b6, pass where passing is the rule); an illegal one is refused with
    the list of legal ones. The game ends when a side has lost, when a position comes up a third
    time, or with quit (or the end of the input). When standard input is not a terminal, moves
    are read one a line and each ply is printed as one line (--json: one JSON object).
    --strength ultra plays, among drawing moves, one of the best draw rank (the database needs
    its ranks: morris rank), so that a fallible player is led where mistakes are likelier: one
    drawn at random among those of equal value, rank and depth (--seed).
    """
    from ..query import open_database

    path, rules = database_and_rules(rules_name, options, db_path)
    with open_database(path, rules) as db:
        start = _start_position(" ".join(position), db.rules)
        you = colour[0] if colour else start.side
        game = Game(db, start, you, strength, seed)
        interactive = sys.stdin.isatty() and not as_json
        view = Json() if as_json else Terminal() if interactive else Lines()
        rejected = _play_out(game, view, hints, _read_moves(interactive))
    if rejected and not interactive:
        sys.exit(2)  # a script that sent a bad move learns it from the status too


def _play_out(game: Game, view: Lines, hints: bool, moves) -> int:
    """Alternate the database's moves and the player's until the game ends; the number of
    rejected inputs."""
    view.start(game)
    rejected = 0
    while (ending := game.ending()) is None:
        if game.to_move != game.you:
            view.ply(game, game.database_move())
            continue
        while True:
            view.turn(game, hints)
            text = next(moves, None)
            if text is None or text.strip().lower() in QUIT:
                view.end(game, game.stopped())
                return rejected
            try:
                mv = game.find(text)
                break
            except IllegalMoveError as e:
                rejected += 1
                view.illegal(game, text, str(e))
        view.ply(game, game.play(mv, "you"))
    view.end(game, ending)
    return rejected
