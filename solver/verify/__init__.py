"""``morris verify``: every stored value recomputed from its successors' stored values by the
checker's own kernels (``kernels`` for the moving phase, ``placing_kernels`` for the tiers with
men in hand; ``check`` orders the work and reports), sharing no solver kernel, so that a bug of
the engine cannot hide itself."""
