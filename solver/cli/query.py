"""``morris query``: the value of positions and of every move, from a solved database."""

from __future__ import annotations

import json
import sys
from itertools import islice

import click

from ..errors import MorrisError
from .common import (
    database_and_rules,
    db_option,
    draw,
    json_option,
    read_positions,
    rules_options,
)

BATCH = 1000  # positions read from the database together (one read per subspace)


def _value_text(value: str, plies: int | None) -> str:
    if value == "draw":
        return "draw"
    return f"{value} in {plies}"


def _rank_text(x) -> str:
    """", rank 15 (settles in 5-4), depth 3" for a ranked draw, else ""."""
    if x.rank is None:
        return ""
    depth = f", depth {x.depth}" if x.depth else ""
    return f", rank {x.rank} (settles in {'/'.join(x.settles_in)}){depth}"


def _as_text(an, board) -> str:
    side = "White" if an.position.side == "w" else "Black"
    lines = [draw(board, an.position), an.board_string]
    p = an.probe
    if p.value == "loss" and p.plies == 0:
        lines.append(f"{side} to move has lost (loss in 0 plies): the game is over")
    elif p.value == "draw":
        lines.append(f"{side} to move: draw{_rank_text(p)}")
    else:
        lines.append(f"{side} to move: {p.value} in {p.plies} plies")
    if p.three_men_rule is not None:
        lines.append(
            f"three men each: {p.three_men_rule} under the ten-move rule "
            "(a win or loss taking more than 20 plies is a draw; counted from this position)"
        )
    lines += [f"note: {n}" for n in an.notes]
    if an.moves:
        three = any(m.three_men_rule is not None for m in an.moves)
        after = any(m.after_text is not None for m in an.moves)  # the history rule: each successor's state
        width = max(4, *(len(m.notation) for m in an.moves))
        head = f"  {'move':<{width}}  value"
        if three:
            head += "         ten-move rule"
        if after:
            head = f"{head:<{width + 18}}after"
        lines.append(head)
        ultra = {id(m) for m in an.ultra_best_moves} if an.ranked else set()
        for m in an.moves:
            row = f"  {m.notation:<{width}}  {_value_text(m.value, m.plies)}"
            if three:
                row = f"{row:<{width + 18}}{m.three_men_rule}"
            if after:
                row = f"{row:<{width + 18 + 22 * three}}{m.after_text or '(the game ends)'}"
            row += _rank_text(m) + ("  *" if id(m) in ultra and m.value == "draw" else "")
            lines.append(row.rstrip())
        if an.ranked and any(m.value == "draw" for m in an.moves):
            lines.append("  (* the drawing moves of the best rank: ultra-strong play's choice; ranks are Malom's sector values)")
    return "\n".join(lines)


@click.command()
@db_option
@rules_options
@json_option("one JSON object per position, a line each")
@click.argument("positions", nargs=-1, required=True)
def query(db_path, rules_name, options, as_json, positions):
    """The perfect-play value of each POSITION and of every legal move, best first.

    POSITION is a board string or point lists (quote each: "W:a1,d1,g1 B:a4,b4,c4 w"); '-'
    reads positions from standard input, one a line. Values are for the side to move (for a
    move: for the player making it), with the plies to the end of the game; positions are read
    with the database's own rule set. Where both sides have 3 men the answer under the ten-move
    rule is given too (a win or loss in more than 20 plies is a draw under it). Where the
    database holds draw ranks (morris rank), each draw shows its rank, the tier where it settles
    and its depth, and the drawing moves of the best rank are marked.
    """
    from ..query import open_database

    # The database's rule set reads the positions; --rules/-o given as well must agree with it.
    path, rules = database_and_rules(rules_name, options, db_path, history=True)
    with open_database(path, rules) as db:
        board = db.board
        worst = 0
        first = True
        stream = iter(read_positions(positions))
        while True:
            texts = list(islice(stream, BATCH))
            if not texts:
                break
            for text, an in zip(texts, db.analyse_many(texts, on_error="return")):
                if isinstance(an, MorrisError):
                    worst = max(worst, an.exit_code)
                    click.echo(f"error: {an}: {text!r}", err=True)
                    if as_json:
                        click.echo(json.dumps({"input": text, "error": str(an)}))
                    continue
                if as_json:
                    click.echo(json.dumps(an.as_dict()))
                else:
                    if not first:
                        click.echo()
                    first = False
                    click.echo(_as_text(an, board))
    if worst:
        sys.exit(worst)
