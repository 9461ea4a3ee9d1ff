"""The retrograde engine: ``order`` (which pairs and groups of tiers, in which order, what each
reads), ``pair`` (the steps that solve one subspace and its twin, around the numba ``kernels``),
``placing`` (the tiers with men in hand), ``held`` (solved values kept in memory while later work
reads them), ``run`` (a whole ``morris solve``: the resumable loop over jobs), ``cluster`` (the
same jobs on Dask) and ``costs`` (plans and benchmarks)."""
