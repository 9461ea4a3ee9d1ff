"""Numba kernels of the retrograde engine: arrays and integers in, arrays out, no I/O.

In the order a pair is solved: ``initialise`` (first pass), ``removals`` (what moves with a
removal give), ``schedule`` (decisions that wait for a level), ``propagate`` (one level's
predecessors and decisions). ``slots``, ``successors`` and ``codes`` serve them. Each kernel takes
the rules as ``g`` (``rules.tables.GameTables``) and the index as ``ix`` (``index.IndexTables``).
"""
