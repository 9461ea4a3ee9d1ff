"""``python -m solver`` runs the ``morris`` command."""

from .cli import main

if __name__ == "__main__":  # (not when a Dask worker process is spawned from it)
    main()
