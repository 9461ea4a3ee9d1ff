"""Progress over a whole run: positions done of the run's total, positions per second and the time
left at the run's average rate, as a tqdm bar on standard error.

Bars are for a person watching: a command whose standard error is not a terminal (a pipe, a file,
a test), or one run with --json or --quiet, shows none. Lines a command prints while a bar is up
go through ``RunBar.echo``, which keeps the bar below them.
"""

from __future__ import annotations

import sys

import click

BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]"


def wanted(quiet: bool = False, as_json: bool = False) -> bool:
    """Whether to show bars: at a terminal, without --quiet or --json."""
    return not (quiet or as_json) and sys.stderr.isatty()


class RunBar:
    """A bar over ``total`` positions; ``advance`` as work is done. A context manager; does
    nothing when not ``enabled``."""

    def __init__(self, total: int, desc: str, enabled: bool):
        self.enabled = enabled and total > 0
        self.bar = None
        if self.enabled:
            from tqdm import tqdm

            # smoothing=0: the average over the whole run, so that pairs of very different speeds
            # give a steady estimate of the time left.
            self.bar = tqdm(
                total=total, desc=desc, unit="pos", unit_scale=True, smoothing=0, bar_format=BAR_FORMAT,
                file=sys.stderr, leave=True,
            )

    def advance(self, positions: int) -> None:
        if self.bar is not None:
            self.bar.update(positions)

    def echo(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stdout)
        else:
            click.echo(line)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> RunBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
