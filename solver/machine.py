"""What this machine has: its physical memory, the default bound of every memory plan."""

from __future__ import annotations

import os


def machine_memory() -> int:
    """Physical memory of this machine in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
