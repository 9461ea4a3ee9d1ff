"""Fill numba's cache for the default test run before its workers start (``conftest.py``).

From an empty cache every xdist worker compiles the kernels its first tests call, and both
workers start with the engine's: the same compilation done twice, one after the other within
each worker. Two processes started here compile disjoint halves at once instead, then the
workers load everything from the cache. ``python tests/warm_kernels.py moving|placing``:

- ``moving``: the moving phase's kernels (``pair.warm_up``), then small moving phases that fly,
  pull levels and remove two men at once, verified each way (the verify's moving kernels) and
  looked up (the compiled move generator), then the draws of Three Men's Morris ranked with and
  without a graph (``ultra``);
- ``placing``: the placing tiers' kernels (``placing.warm_up``), then Three Men's Morris and the
  six board under Lasker's rule solved whole and verified each way (the verify's placing
  kernels), then the verify's check of the history rule on a small database of the reference's.

It only compiles: what the tests check is checked by the tests.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path


def moving(folder: Path) -> None:
    from solver.engine import pair
    from solver.engine.run import solve, solve_whole
    from solver.query import open_database
    from solver.rules import make_rules
    from solver.solve import rank_draws
    from solver.verify import check

    pair.warm_up()
    # flying and the pulled levels (standard), two removals at once (per-mill)
    for name, options, men in (("standard", [], 4), ("six", ["double-mill=per-mill", "flying=at-3"], 4)):
        path = folder / f"{name}.h5"
        solve(make_rules(name, options), men, path, progress=False, echo=lambda s: None)
    for method in (check.TWIN_WALK, check.MARKED_WALK, check.SWEEP):
        check.verify(path, progress=False, method=method)
    with open_database(path) as db:
        db.warm_up()
    # (last: by now the other process has compiled the placing kernels a whole game needs)
    rules, path = make_rules("three"), folder / "three.h5"
    solve_whole(rules, path, progress=False, echo=lambda s: None)
    for explicit in (False, True):
        rank_draws(path, rules, explicit=explicit, fresh=True, echo=lambda s: None)


def placing(folder: Path) -> None:
    from solver.engine import pair
    from solver.engine import placing as tiers
    from solver.engine.run import solve_whole
    from solver.rules import make_rules
    from solver.verify import check

    tiers.warm_up()
    # The moving phase's kernels are the other process's: the solves below take only the few
    # their small games reach (loaded from the cache, or compiled as they come), not all of them.
    pair._warm = True
    for name, options in (("three", []), ("six", ["men=4", "lasker=on"])):
        rules, path = make_rules(name, options), folder / f"{name}.h5"
        solve_whole(rules, path, progress=False, echo=lambda s: None)
        for method in (check.TIER_WALK, check.TIER_SWEEP, check.TIER_DIRECT):
            check.verify(path, progress=False, method=method)
    # the verify's own check of the history rule, on a database written from the plain
    # reference's solution (as tests/test_verify_history.py does)
    from reference_history import solve_history
    from test_verify_history import write_reference_database

    rules = make_rules("six", ["men=3", "reclose=same-man"])
    path = folder / "history" / "six3.h5"
    write_reference_database(path, rules, solve_history(rules, subspaces=[(3, 3)]))
    check.verify(path, progress=False)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        {"moving": moving, "placing": placing}[sys.argv[1]](Path(tmp))
