"""The ``morris`` command. Each subcommand reads its input, calls the Python API and prints.

Errors on bad input are ``MorrisError``s: printed as one line on standard error with the error's
exit status (2 for bad input, 1 for bad files or failed checks), never as a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import click

from .errors import MorrisError
from .rules import NAMED, RuleSet, make_rules

RULES_HELP = f"rule set: {', '.join(NAMED)} (or morabaraba)"


class MorrisGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MorrisError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(e.exit_code)
        except KeyboardInterrupt:
            # Finished subspaces are already on disk (storage writes each as it ends).
            click.echo("\ninterrupted: finished work is kept; run the same command again to resume", err=True)
            sys.exit(130)


def rules_options(f):
    f = click.option(
        "--option",
        "-o",
        "options",
        multiple=True,
        metavar="NAME=VALUE",
        help="set a rule option on top of the rule set (repeatable), e.g. -o flying=never",
    )(f)
    f = click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)(f)
    return f


def get_rules(rules_name: str, options: tuple[str, ...]) -> RuleSet:
    return make_rules(rules_name, list(options))


def read_positions(args: tuple[str, ...]) -> Iterator[str]:
    """The positions given as arguments, with '-' standing for standard input, a line each."""
    for arg in args:
        if arg == "-":
            for line in sys.stdin:
                if line.strip():
                    yield line.strip()
        else:
            yield arg


@click.group(cls=MorrisGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="morris-solver")
def main():
    """Nine Men's Morris and relatives: rules, perfect-play databases, queries."""


@main.command()
@rules_options
@click.argument("position", nargs=-1, required=True)
def show(rules_name, options, position):
    """Draw POSITION on the board and print its board string.

    POSITION is a board string (quote it: "WB..B..B.W...........W.. w") or point lists
    ("W:a1,d1,g1 B:a4,b4,c4 w"); several words are joined with spaces.
    """
    from .game import result
    from .notation import format_point_lists, format_position, parse_position

    rules = get_rules(rules_name, options)
    board = rules.board_data
    pos = parse_position(" ".join(position), rules)
    cells = {i: "W" for i in range(board.n) if pos.white >> i & 1}
    cells.update({i: "B" for i in range(board.n) if pos.black >> i & 1})
    click.echo(board.render(cells))
    side = "White" if pos.side == "w" else "Black"
    hands = f", in hand: White {pos.hand_white}, Black {pos.hand_black}"
    click.echo(f"{side} to move{hands}")
    click.echo(format_position(pos, board))
    click.echo(format_point_lists(pos, board))
    res = result(pos, rules)
    if res:
        click.echo(f"game over: {'the side to move has lost' if res == 'loss' else 'drawn'}")


@main.command()
@rules_options
@click.option("--json", "as_json", is_flag=True, help="one JSON object per line")
@click.argument("positions", nargs=-1, required=True)
def moves(rules_name, options, as_json, positions):
    """List the legal moves of each POSITION ('-' reads positions from standard input)."""
    from .game import legal_moves, result
    from .notation import format_move, format_position, parse_position

    rules = get_rules(rules_name, options)
    board = rules.board_data
    failed = False
    for text in read_positions(positions):
        try:
            pos = parse_position(text, rules)
        except MorrisError as e:
            failed = True
            click.echo(f"error: {e}: {text!r}", err=True)
            if as_json:
                click.echo(json.dumps({"input": text, "error": str(e)}))
            continue
        res = result(pos, rules)
        mv = [format_move(m, board) for m in legal_moves(pos, rules)]
        if as_json:
            click.echo(json.dumps({"position": format_position(pos, board), "moves": mv, "result": res}))
        else:
            line = f"{format_position(pos, board)}: " + (" ".join(mv) if mv else "(none)")
            if res:
                line += f"  [{res}]"
            click.echo(line)
    if failed:
        sys.exit(2)


from . import cli_db  # noqa: E402,F401  (registers solve, info, query, verify)
from . import cli_query  # noqa: E402,F401  (registers query)
