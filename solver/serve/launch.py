"""``morris serve`` started as a child process on a free loopback port, for the browser test, the
load benchmark and the screenshot script: they need the real command, not the app in process."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from ..errors import MorrisError


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the OS's pick for a socket bound to port 0)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(db_paths: list[Path], args: tuple[str, ...] = ("--no-books",), timeout: float = 60.0) -> Iterator[str]:
    """Start ``morris serve --db ... ARGS`` on a free loopback port, wait until ``/api``
    answers, yield its base URL (``http://127.0.0.1:PORT/``), and stop it on exit."""
    host, port = "127.0.0.1", free_port()
    cmd = [sys.executable, "-m", "solver", "serve", "--host", host, "--port", str(port), *args]
    for path in db_paths:
        cmd += ["--db", str(path)]
    log = tempfile.TemporaryFile("w+")  # (a pipe nobody reads could fill and stall the server)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, text=True)
    url = f"http://{host}:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise MorrisError(f"morris serve exited with status {proc.returncode}: {log.read().strip()}")
            try:
                with urllib.request.urlopen(url + "api", timeout=2) as r:
                    json.load(r)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise MorrisError(f"morris serve did not answer at {url} within {timeout:.0f} s") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
