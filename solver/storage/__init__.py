"""Databases on disk: ``files`` (the layout, names, headers, atomic writes), ``write`` (adding
solved subspaces, bringing a database up to date, copying it), ``database`` (``Database``, the
reader) and ``lock`` (one writer at a time)."""
