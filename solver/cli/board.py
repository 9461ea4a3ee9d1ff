"""``morris show`` and ``morris moves``: positions and legal moves, no database needed."""

from __future__ import annotations

import sys
from dataclasses import replace

import click

from ..errors import MorrisError
from .common import (
    draw,
    echo_json,
    get_rules,
    json_option,
    read_positions,
    rules_options,
)


@click.command()
@rules_options
@json_option("one JSON object: the position, the side to move, the men in hand and the result")
@click.argument("position", nargs=-1, required=True)
def show(rules_name, options, as_json, position):
    """Draw POSITION on the board and print its board string.

    POSITION is a board string (quote it: "WB..B..B.W...........W.. w") or point lists
    ("W:a1,d1,g1 B:a4,b4,c4 w"); several words are joined with spaces.
    """
    from ..rules.game import result
    from ..rules.notation import format_point_lists, format_position, parse_position

    rules = get_rules(rules_name, options)
    board = rules.board_data
    pos = parse_position(" ".join(position), rules)
    res = result(pos, rules)
    if as_json:
        echo_json(
            {
                "position": format_position(pos, board),
                "point_lists": format_point_lists(pos, board),
                "side": pos.side,
                "in_hand": {"white": pos.hand_white, "black": pos.hand_black},
                "result": res,
            }
        )
        return
    click.echo(draw(board, pos))
    side = "White" if pos.side == "w" else "Black"
    click.echo(f"{side} to move, in hand: White {pos.hand_white}, Black {pos.hand_black}")
    click.echo(format_position(pos, board))
    click.echo(format_point_lists(pos, board))
    if res:
        click.echo(f"game over: {'the side to move has lost' if res == 'loss' else 'drawn'}")


@click.command()
@rules_options
@json_option("one JSON object per line")
@click.argument("positions", nargs=-1, required=True)
def moves(rules_name, options, as_json, positions):
    """List the legal moves of each POSITION ('-' reads positions from standard input). Under
    the history rule (-o reclose=...) a position may carry its bans (`` ban B``, `` pending B``):
    the moves its active ban forbids are left out (and named: ``forbidden``)."""
    from ..rules.game import legal_moves, result
    from ..rules.notation import format_move, format_position, parse_position

    rules = get_rules(rules_name, options, history=True)
    plain = replace(rules, reclose="allowed")  # a ban takes moves away; the rest are the plain ones
    board = rules.board_data
    failed = False
    for text in read_positions(positions):
        forbidden = notes = None
        try:
            state = None
            if rules.reclose != "allowed":
                from ..history.query import move_texts, read_state

                state = read_state(text, rules)
                pos = state.position
            else:
                pos = parse_position(text, rules)
            if state is not None and not (pos.hand_white or pos.hand_black):
                shown, notes = state.text(rules), list(state.notes)
                mv, forbidden = move_texts(state, rules)
                res = result(pos, plain) or (None if mv or not forbidden else "loss")
            else:  # (men in hand: no ban is made while men are in hand)
                shown, res = format_position(pos, board), result(pos, plain)
                mv = [format_move(m, board) for m in legal_moves(pos, plain)]
        except MorrisError as e:
            failed = True
            click.echo(f"error: {e}: {text!r}", err=True)
            if as_json:
                echo_json({"input": text, "error": str(e)})
            continue
        if as_json:
            extra = {} if forbidden is None else {"forbidden": forbidden, "notes": notes}
            echo_json({"position": shown, "moves": mv, "result": res, **extra})
        else:
            line = f"{shown}: " + (" ".join(mv) if mv else "(none)")
            if res:
                line += f"  [{res}]"
            if forbidden:
                line += f"  (the ban forbids {' '.join(forbidden)})"
            click.echo(line)
            for note in notes or ():
                click.echo(f"  note: {note}")
    if failed:
        sys.exit(2)

