"""``morris serve``: an HTTP API and a web page over solved databases and the shipped opening
books (``app.create_app``; the games and their lookups in ``games``)."""

from .app import create_app

__all__ = ["create_app"]
