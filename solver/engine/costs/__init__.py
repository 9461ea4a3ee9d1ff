"""What a run will cost before it runs: ``moving`` (the moving phase's pairs: memory, disk, time),
``placing`` (the tiers with men in hand), ``reference_run`` (the recorded 9-men times the
estimates scale), ``bench`` (throughput measured without writing)."""
