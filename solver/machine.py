"""What this machine has: its physical memory, the default bound of every memory plan, and what
this process has taken of it."""

from __future__ import annotations

import os
import resource


def machine_memory() -> int:
    """Physical memory of this machine in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def peak_rss() -> int:
    """The most resident memory this process has held so far, in bytes (Linux counts KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
