"""``solver.machine.OthersLoad``: the share of the cores that other work takes while this machine is
timed, this process's own time set apart."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from solver import machine


def _fake_counts(monkeypatch, machine_busy, own, wall, cores=2):
    """The machine's busy CPU seconds, this process's CPU seconds and the clock, at the open and
    the close of an ``OthersLoad``."""
    monkeypatch.setattr(machine, "machine_cpu_seconds", iter(machine_busy).__next__)
    monkeypatch.setattr(machine.time, "process_time", iter(own).__next__)
    monkeypatch.setattr(machine.time, "monotonic", iter(wall).__next__)
    monkeypatch.setattr(machine.os, "cpu_count", lambda: cores)


@pytest.mark.parametrize(
    "machine_busy, own, wall, share, note",
    [
        # 4 CPU-s busy on the machine over 2 s of 2 cores, 1 of them this process's: others 3 of 4
        ([100.0, 104.0], [10.0, 11.0], [0.0, 2.0], 0.75, "; timed while other work held 75% of the 2 cores, so the estimate is too long"),
        # the machine busy 3.9 CPU-s, this process 3.8 of them: others 0.1 of 4, quiet
        ([50.0, 53.9], [1.0, 4.8], [7.0, 9.0], 0.025, ""),
    ],
)
def test_the_share_is_what_others_spent_over_all_the_cores(monkeypatch, machine_busy, own, wall, share, note):
    _fake_counts(monkeypatch, machine_busy, own, wall)
    with machine.OthersLoad() as load:
        pass
    assert load.share == pytest.approx(share)
    assert load.note() == note


def test_unreadable_counts_say_nothing(monkeypatch):
    _fake_counts(monkeypatch, [None, None], [0.0, 1.0], [0.0, 1.0])
    with machine.OthersLoad() as load:
        pass
    assert load.share is None and load.note() == ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat is Linux's")
def test_other_processes_burning_every_core_are_seen():
    """As many busy child processes as cores for a second while this one sleeps: the others'
    share is most of the machine's (other tests beside only add to it)."""
    cores = machine.os.cpu_count() or 1
    burn = "import time\nt = time.monotonic() + 1.5\nwhile time.monotonic() < t: pass"
    children = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(cores)]
    try:
        time.sleep(0.3)  # (the children started)
        with machine.OthersLoad() as load:
            time.sleep(0.8)
    finally:
        for c in children:
            c.wait()
    assert load.share is not None and load.share > 0.5
    assert "timed while other work held" in load.note()
