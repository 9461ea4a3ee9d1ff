"""The HTTP server: a Starlette app over the games of ``games.open_games``.

    GET /                             the web page (static/, served by the app: no network needed)
    GET /api                          every game: key, rule set, board, source, tiers
    GET /api/<game>?position=P        P's value and every move's, best first
    GET /api/<game>/mainline?position=P&max_plies=N
                                      the line of best play from P (N plies at most)

Answers are JSON; every error is ``{"error": "<one line>"}`` with a 4xx status for what the
request got wrong (400 bad input, 404 an unknown game or a tier the database lacks) and 500 only
for the server's own failures (a damaged file). Lookups block on HDF5 and numpy, so each runs in
the thread pool under its game's lock and the event loop keeps taking requests; an answer given
before comes from the game's cache (``games.AnswerCache``) without a thread.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import DatabaseError, MissingSubspaceError, MorrisError, OutsideDatabaseError
from .games import MAINLINE_MAX, MAINLINE_PLIES, Game, check_text, open_games

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("morris.serve")


def _json(body: dict, status: int = 200) -> JSONResponse:
    # Read-only public data: any page may ask for it, as lichess's tablebase allows.
    return JSONResponse(body, status_code=status, headers={"Access-Control-Allow-Origin": "*"})


def _error(message: str, status: int, **extra) -> JSONResponse:
    return _json({"error": message, **extra}, status)


def _status(e: MorrisError) -> int:
    """400 for bad input; 404 for a position outside what is served; 500 for a damaged file."""
    if isinstance(e, (MissingSubspaceError, OutsideDatabaseError)):
        return 404
    if isinstance(e, DatabaseError):
        return 500
    return 400


def create_app(db_paths: list[Path], books: bool = True, strength: str = "strong", seed: int | None = None) -> Starlette:
    """The app over the databases at ``db_paths`` (each opened here, once) and, with ``books``,
    the shipped opening books of the rule sets no database covers. Raises ``MorrisError`` (one
    line) when a database is missing or unreadable, or there is nothing to serve. ``strength``:
    the best move each answer names and the mainline follows, "strong" or "ultra" (the databases
    must hold draw ranks: ``morris rank``); ``seed``: ultra's random choice among equal moves in
    the mainline (None: a new one; ``GET /api`` shows it)."""
    games = open_games(db_paths, books, strength, seed)

    def game_of(request: Request) -> Game | JSONResponse:
        key = request.path_params["game"]
        if key in games:
            return games[key]
        return _error(f"unknown game {key[:40]!r}; this server answers: {', '.join(games)}", 404, games=list(games))

    async def lookup(request: Request, work) -> JSONResponse:
        game = game_of(request)
        if isinstance(game, JSONResponse):
            return game
        try:
            text = check_text(request.query_params.get("position"))
            return _json(await run_in_threadpool(work, game, text))
        except MorrisError as e:
            return _error(str(e), _status(e))

    async def index(request: Request) -> JSONResponse:
        described = [await run_in_threadpool(g.describe) for g in games.values()]
        return _json({"games": described})

    async def position(request: Request) -> JSONResponse:
        game = game_of(request)
        if not isinstance(game, JSONResponse):
            kept = game.answers.get(request.query_params.get("position", ""))
            if kept is not None:  # answered before: no thread needed
                return _json(kept)
        return await lookup(request, Game.analyse)

    async def mainline(request: Request) -> JSONResponse:
        raw = request.query_params.get("max_plies", str(MAINLINE_PLIES))
        if not (raw.isascii() and raw.isdigit()):
            return _error(f"max_plies must be a whole number from 0 (at most {MAINLINE_MAX} are played), not {raw[:20]!r}", 400)
        bound = MAINLINE_MAX if len(raw) > 6 else min(int(raw), MAINLINE_MAX)
        return await lookup(request, lambda game, text: game.mainline(text, bound))

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return _error(f"no such page: {request.url.path[:100]} (the API is under /api)", 404)
        return _error(str(exc.detail), exc.status_code)

    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("request %s failed", request.url.path)
        return _error("internal error: the server failed on this request (its log has the details)", 500)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        for game in games.values():
            game.db.close()

    app = Starlette(
        lifespan=lifespan,
        routes=[
            Route("/", page, methods=["GET", "HEAD"]),
            Route("/api", index, methods=["GET", "HEAD"]),
            Route("/api/{game}", position, methods=["GET", "HEAD"]),
            Route("/api/{game}/mainline", mainline, methods=["GET", "HEAD"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.games = games
    return app
