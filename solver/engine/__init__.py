"""The retrograde engine: ``plan`` (which pairs, in which order, what each needs), ``pair`` (the
steps that solve one subspace and its twin, around the numba ``kernels``), ``run`` (a whole
``morris solve``: order, files, progress) and ``bench`` (throughput without writing)."""
