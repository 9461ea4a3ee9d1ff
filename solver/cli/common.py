"""What every ``morris`` command shares: the error handling, the options, reading positions."""

from __future__ import annotations

import errno
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click
from click.core import ParameterSource

from ..errors import MorrisError
from ..rules.rulesets import NAMED, RuleSet, make_rules

RULES_HELP = f"rule set: {', '.join(NAMED)} (or morabaraba)"
RESUMABLE = {"solve"}  # commands whose finished work survives an interruption


class MorrisGroup(click.Group):
    """Turns every error into one line on standard error and an exit status, never a traceback:
    2 for bad input, 1 for bad files or failed checks, 130 for Ctrl-C."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MorrisError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(e.exit_code)
        except OSError as e:  # a file system failure that no command turned into a MorrisError
            click.echo(f"error: {os_error_line(e, ctx.invoked_subcommand in RESUMABLE)}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            if ctx.invoked_subcommand in RESUMABLE:
                # Finished subspaces are already on disk (storage writes each as it ends).
                click.echo("\ninterrupted: finished work is kept; run the same command again to resume", err=True)
            else:
                click.echo("\ninterrupted", err=True)
            sys.exit(130)


def os_error_line(e: OSError, resumable: bool) -> str:
    """One line for a file system failure. HDF5's messages (h5py raises them as OSError without
    an errno) span lines and name the file inside the text; a full disk, the likely end of a long
    solve, says so and how to go on."""
    text = " ".join(str(e.strerror or e).split())
    name = getattr(e, "filename", None)
    if name is None and (found := re.search(r"filename = '([^']+)'", text)):
        name = found.group(1)
    if e.errno == errno.ENOSPC or "No space left on device" in text:
        where = f" writing {Path(name).parent}" if name else ""
        tail = ": the subspaces finished before it are kept; free some space and run the same command again to resume" if resumable else ""
        return f"no space left on device{where}{tail}"
    return f"{text}: {name}" if name and name not in text else text


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


def db_option(f):
    return click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="database file [default: data/<rule set>.h5]",
    )(f)


def threads_option(f):
    return click.option(
        "--threads", type=click.IntRange(1, None), default=None, help="threads to use [default: every core]"
    )(f)


def json_option(help_text: str):
    return click.option("--json", "as_json", is_flag=True, help=help_text)


def quiet_option(f):
    return click.option("--quiet", "-q", is_flag=True, help="no progress bars")(f)


def get_rules(rules_name: str, options: tuple[str, ...], history: bool = False) -> RuleSet:
    """The rule set of --rules and -o. ``history``: the command handles the history rule
    (option reclose: solve, query, info, verify, moves); the others refuse it, one line, exit 2."""
    rules = make_rules(rules_name, list(options))
    if not history:
        rules.require_plain_history()
    return rules


def database_and_rules(
    rules_name: str, options: tuple[str, ...], db_path: Path | None, history: bool = False
) -> tuple[Path, RuleSet | None]:
    """The database to open and the rule set it must hold (None: whatever it holds).

    Without --db the path comes from the rule set, which the file must then hold; with --db the
    file's own rule set is used unless --rules or -o was given, and then they must agree. A
    command that does not handle the history rule (``history`` False) refuses a database of it."""
    from ..storage.files import default_path

    rules = get_rules(rules_name, options, history)
    if db_path is None:
        return default_path(rules), rules
    source = click.get_current_context().get_parameter_source("rules_name")
    explicit = bool(options) or source not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)
    if not history and not explicit and db_path.is_file():
        from ..storage.files import check_header, open_h5

        with open_h5(db_path) as f:
            check_header(f, db_path, None).require_plain_history()
    return db_path, rules if explicit else None


def read_positions(args: tuple[str, ...]) -> Iterator[str]:
    """The positions given as arguments, with '-' standing for standard input, a line each."""
    for arg in args:
        if arg == "-":
            for line in sys.stdin:
                if line.strip():
                    yield line.strip()
        else:
            yield arg


def draw(board, position) -> str:
    """The board with the position's men on it (W and B), as ``Board.render`` draws it."""
    cells = {i: "W" for i in range(board.n) if position.white >> i & 1}
    cells.update({i: "B" for i in range(board.n) if position.black >> i & 1})
    return board.render(cells)


def echo_json(obj: dict) -> None:
    click.echo(json.dumps(obj))


def _tier_label(r: dict) -> str:
    """``3-4``, or ``3-4-2-1`` for a tier with men in hand (``storage.subspace_name``)."""
    ha, hb = r.get("mover_hand", 0), r.get("opponent_hand", 0)
    return f"{r['mover']}-{r['opponent']}" + (f"-{ha}-{hb}" if ha or hb else "")


def format_table(rows: list[dict], extra: tuple[str, ...] = ()) -> str:
    """A fixed-width table of subspace statistics."""
    cols = ["subspace", "positions", "win", "draw", "loss", "max win", "max loss", *extra]
    data = []
    for r in rows:
        data.append(
            [
                _tier_label(r),
                f"{r['positions']:,}",
                f"{r['win']:,}",
                f"{r['draw']:,}",
                f"{r['loss']:,}",
                "-" if r["max_win"] < 0 else str(r["max_win"]),
                "-" if r["max_loss"] < 0 else str(r["max_loss"]),
                *[str(r[e]) for e in extra],
            ]
        )
    widths = [max(len(c), *(len(d[i]) for d in data)) if data else len(c) for i, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    for d in data:
        lines.append("  ".join(x.rjust(w) for x, w in zip(d, widths)))
    return "\n".join(lines)
