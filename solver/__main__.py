"""``python -m solver`` runs the ``morris`` command."""

from .cli import main

main()
