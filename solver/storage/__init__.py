"""Databases on disk: ``files`` (the layout, names, checksums, reading headers), ``writer`` (the
one HDF5 writer: atomic files, headers, datasets; every file the package writes goes through it),
``write`` (adding solved subspaces, bringing a database up to date, copying it), ``database``
(``Database``, the reader), ``chunks`` (compressed chunks on every core), ``ranks`` (draw ranks
beside the values), ``lock`` (one writer at a time) and ``sizes`` (sizes such as 16GiB read)."""
