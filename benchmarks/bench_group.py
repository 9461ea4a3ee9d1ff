"""One full-size group of tiers with men in hand solved in memory, timed, its values compared with
the database's: for comparing two trees of the code on the same group (run it from each, in turn).

    python benchmarks/bench_group.py TREE DB GROUP ROUNDS

TREE: the source tree to import ``solver`` from (a worktree of another commit, or this one); DB:
a database holding the group and every tier it reads (``data/lasker.h5`` mid-solve will do: it is
only read); GROUP: one of its tiers, ``M-O-HM-HO`` (``4-7-1-0``). Prints a JSON line a round: wall
and CPU seconds of ``placing.solve_group`` alone (inputs read and kernels compiled before), and
whether every value equals the stored one.
"""

import json
import os
import sys
import time

tree, db, name, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.abspath(tree))
os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")  # (a running solve may hold the file)

import numpy as np  # noqa: E402

import solver  # noqa: E402
from solver.engine import placing  # noqa: E402
from solver.engine.order import placing_groups  # noqa: E402
from solver.index import board_index  # noqa: E402
from solver.storage.database import Database  # noqa: E402
from solver.tiers import needed_by  # noqa: E402

assert solver.__file__.startswith(os.path.abspath(tree)), solver.__file__
want = tuple(int(x) for x in name.split("-"))
with Database(db) as d:
    rules = d.rules
    group = next(g for g in placing_groups(rules) if want in g.tiers)
    inputs = {t: d.values(*t) for t in needed_by(rules, group)}
    stored = {t: d.values(*t) for t in group.tiers}
index = board_index(rules.board)
placing.warm_up()
for i in range(rounds):
    w0, c0 = time.perf_counter(), time.process_time()
    results = placing.solve_group(rules, index, group, inputs.__getitem__)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    equal = all(np.array_equal(r.values, stored[r.tier]) for r in results)
    print(json.dumps({"tree": tree, "group": group.name, "round": i + 1, "wall": round(wall, 2), "cpu": round(cpu, 2), "equal": equal}), flush=True)
