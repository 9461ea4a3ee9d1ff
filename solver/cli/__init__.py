"""The ``morris`` command. Each subcommand reads its input, calls the Python API and prints.

One module per command group, each defining plain click commands that are added to the group
here: ``board`` (show, moves), ``solve`` (solve, bench), ``database`` (info, verify), ``query``,
``play``, ``rank`` and ``book`` (build, verify, list). Errors are handled once, in ``common.MorrisGroup``: one line on standard error,
never a traceback.
"""

from __future__ import annotations

import os

# No command does linear algebra, and OpenBLAS starts a thread per core when numpy is imported:
# about 0.1 CPU-seconds of a lookup's 0.3 (benchmarks/bench_query.py). A value the
# user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from . import board, book, database, play, query, rank, serve, solve  # noqa: E402
from .common import MorrisGroup  # noqa: E402


@click.group(cls=MorrisGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="morris-solver")
def main():
    """Nine Men's Morris and relatives: rules, perfect-play databases, queries."""


for command in (
    board.show, board.moves, solve.solve, database.info, query.query, play.play, database.verify, solve.bench,
    book.book, serve.serve, rank.rank,
):
    main.add_command(command)
