"""What this machine has: its physical memory, the default bound of every memory plan, what
this process has taken of it, and how much of its cores other work takes."""

from __future__ import annotations

import os
import resource
import time


def machine_memory() -> int:
    """Physical memory of this machine in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def peak_rss() -> int:
    """The most resident memory this process has held so far, in bytes (Linux counts KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def machine_cpu_seconds() -> float | None:
    """CPU seconds the whole machine has spent busy since boot (every state of /proc/stat's first
    line but idle and iowait; steal counts as busy: another guest had the core), or None where
    that cannot be read."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


class OthersLoad:
    """While open: the share of the machine's cores that other work took (``share``, 0 to 1, None
    where the machine's counts cannot be read), what this process spent set apart. A timing taken
    while others hold the cores runs long; the plans say so (``note``)."""

    def __enter__(self) -> OthersLoad:
        self.share = None
        self._start = (machine_cpu_seconds(), time.process_time(), time.monotonic())
        return self

    def __exit__(self, *exc) -> None:
        machine0, own0, wall0 = self._start
        machine1, own, wall = machine_cpu_seconds(), time.process_time() - own0, time.monotonic() - wall0
        if machine0 is None or machine1 is None or wall <= 0:
            return
        others = machine1 - machine0 - own
        self.share = min(1.0, max(0.0, others / (wall * (os.cpu_count() or 1))))

    def note(self, threshold: float = 0.2) -> str:
        """A clause for a plan's source where other work took ``threshold`` or more of the cores."""
        if self.share is None or self.share < threshold:
            return ""
        return f"; timed while other work held {self.share:.0%} of the {os.cpu_count()} cores, so the estimate is too long"
