"""``morris verify``: every stored value recomputed from its successors' stored values by the
checker's own kernels (``kernels`` for the moving phase, ``placing_kernels`` for the tiers with
men in hand; ``check`` orders the work and reports), sharing no solver kernel, so that a bug of
the engine cannot hide itself.

``LOGIC_VERSION`` names the logic of the checks: every passed check records it, and a pass is
reused (``resume``, ``ledger``) only under the same version. ``tests/test_verify_logic.py`` pins
it to a digest of the logic's sources (``logic.sources_digest``): change the logic, bump it."""

LOGIC_VERSION = 1
