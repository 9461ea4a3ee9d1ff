"""The history rule's engine (option ``reclose``, docs/history-rule.md): the moving phase solved
over states that carry the side to move's active ban and the opponent's pending one.

- ``tables``: the board's tables as the record kernels read them (``HistoryTables``);
- ``records``: record codes, liveness, the record a move makes, what a ban forbids, records
  under a symmetry (numba helpers);
- ``states``: the states of a subspace: the plain slots first, then a sorted side table of the
  (slot, ban, pending) keys that carry a record; ranking a state;
- ``kernels``: one group (a subspace and its twin) solved by counts and un-moves, level by level;
- ``solve``: the order of the groups and the arrays they hand each other.
"""
