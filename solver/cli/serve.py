"""``morris serve``: the HTTP API and the web page over databases and the shipped opening books.

Starlette and uvicorn are imported only when the command runs, so that every other command starts
as fast as before.
"""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option(
    "--db",
    "db_paths",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="a database to serve (repeatable; one per rule set)",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="port to listen on")
@click.option("--no-books", is_flag=True, help="serve the databases alone, without the shipped opening books")
@click.option("--strength", type=click.Choice(["strong", "ultra"]), default="strong", show_default=True,
              help="the best move (each answer's 'best', the mainline): strong, or ultra (the best-ranked draw; "
              "every --db needs its ranks, morris rank; no books)")
@click.option("--seed", type=click.IntRange(0), default=None,
              help="with --strength ultra: the seed of the mainline's random choice among moves of equal value and rank "
              "(a request's line depends on it and the position alone) [default: a new one, shown by GET /api]")
def serve(db_paths, host, port, no_books, strength, seed):
    """Answer positions over HTTP: a JSON API under /api and a web page at /.

    Every database is opened once, before the server starts; the shipped opening books answer the
    rule sets that no --db covers (and the tiers a database lacks). Read-only.
    """
    import uvicorn

    from ..serve import create_app

    app = create_app(list(db_paths), books=not no_books, strength=strength, seed=seed)
    games = app.state.games
    shown = "[::1]" if host == "::1" else host
    click.echo(f"serving {', '.join(games)} at http://{shown}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
