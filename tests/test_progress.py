"""Progress bars: at a terminal, solve, bench, verify and the dry run's timing show a bar over the
whole run with positions per second and the time left; with --json, --quiet, or when standard
error is not a terminal, nothing at all is written to standard error."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest
from click.testing import CliRunner

from solver.cli import main

# "<desc>: 100%|███...| 515k/515k [00:00<00:00, 1.06Mpos/s]": done, elapsed < time left, the rate.
FINISHED = r"{}: 100%\|[^|]*\| [\d.]+k?/[\d.]+k? \[\d\d:\d\d<\d\d:\d\d, [\d.]+[kM]?pos/s"


def at_a_terminal(*args: str) -> tuple[int, str]:
    """Run ``morris ARGS`` with a terminal (120 columns) as standard output and error."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", *args], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
    )
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=300), out.decode(errors="replace")


@pytest.mark.slow  # (18 s: four commands started afresh; the tests below check the bars' absence in the default run)
def test_bars_over_the_whole_run_at_a_terminal(tmp_path):
    db = str(tmp_path / "six.h5")
    status, out = at_a_terminal("solve", "--rules", "six", "--max-men", "4", "--db", db)
    assert status == 0, out
    assert re.search(FINISHED.format("whole run"), out), out
    assert re.search(FINISHED.format("4-4"), out)  # and the bar of each pair
    assert "4 subspaces solved" in out
    status, out = at_a_terminal("verify", "--db", db)
    assert status == 0 and re.search(FINISHED.format("verify"), out), out
    status, out = at_a_terminal("bench", "--rules", "six", "--max-men", "4")
    assert status == 0 and re.search(FINISHED.format("chain"), out), out
    # the dry run times this machine on the chain to 4 men when it has no database to go by
    status, out = at_a_terminal("solve", "--rules", "six", "--max-men", "5", "--db", str(tmp_path / "new.h5"), "--dry-run")
    assert status == 0 and re.search(FINISHED.format("timing this machine on the chain to 4 men"), out), out


@pytest.mark.parametrize("flag", ["--json", "-q"])
def test_no_bars_with_json_or_quiet_even_at_a_terminal(tmp_path, flag):
    status, out = at_a_terminal("solve", "--rules", "six", "--max-men", "3", "--db", str(tmp_path / "x.h5"), flag)
    assert status == 0, out
    assert "pos/s" not in out and "%|" not in out
    if flag == "--json":  # (numba resets the terminal's colours at exit: "\x1b[0m")
        lines = [line for line in re.sub(r"\x1b\[0m", "", out).splitlines() if line.strip()]
        assert lines and [json.loads(line)["event"] for line in lines][-1] == "summary"


def test_no_bars_when_not_at_a_terminal(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "six.h5")
    for args in (
        ["solve", "--rules", "six", "--max-men", "4", "--db", db],
        ["verify", "--db", db],
        ["bench", "--rules", "six", "--max-men", "4"],
        ["solve", "--rules", "six", "--max-men", "5", "--db", str(tmp_path / "new.h5"), "--dry-run"],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert result.stderr == "", (args, result.stderr)
        assert result.stdout.strip()
