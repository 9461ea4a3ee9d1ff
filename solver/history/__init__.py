"""The history rule's engine (option ``reclose``, docs/history-rule.md): the moving phase solved
over states that carry the side to move's active ban and the opponent's pending one.

- ``tables``: the board's tables as the record kernels read them (``HistoryTables``);
- ``records``: record codes, liveness, the record a move makes, what a ban forbids, records
  under a symmetry (numba helpers);
- ``states``: the states of a subspace, numbered slot by slot (a byte per slot: its states), and
  ranking a state; the stored layout (plain slots, then a side table of keys) and back;
- ``kernels``: one group (a subspace and its twin) solved by counts and un-moves, level by level;
- ``layout``: the arrays states are held in (``HistorySubspace``, ``Store``) and the stored
  layout; ``groups``: the order of the groups and what their removals read;
- ``solve``: the groups solved, each handing its arrays to the later ones; ``verify``: a forward
  check of every state (a kernel of its own); ``plan``: states and memory per group, estimated;
- ``run`` and ``write``: ``morris solve`` into a database; ``store``, ``query``, ``check``: the
  database read back, lookups and ``morris verify``, which load none of the solver's kernels
  (``kernels``, ``solve``, ``engine``).
"""
