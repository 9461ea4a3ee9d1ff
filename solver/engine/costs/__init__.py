"""What a run will cost before it runs: ``moving`` (the moving phase's pairs: memory, disk, time),
``placing`` (the tiers with men in hand), ``reference_run`` (the recorded 9-men times the
estimates scale), ``disk`` (the bytes a whole-game solve has still to write), ``bench`` (throughput measured without writing) and ``plan`` (the plan of a
``morris solve``: what the database holds, this machine's speed, and the refusal of a run that
does not fit)."""
