"""A history group's judging and level loop saved as they go, so that a run cut off inside a
long group resumes there (``solve.solve_group``).

At 9 men one group (8-9 with 9-8: 3.3 G states) takes hours, longer than what is left of a
session once it starts; without this, a killed run solves the group again from its start. Every
``every`` seconds, between two runs of its judging (``solve.JUDGE_PARTS`` parts) and between two
levels, the group's working arrays are written beside the database: its values (2 bytes a
state), counts (1 byte a state) and each part's lowest code, with the parts judged and the level
reached (``meta.json``, written last); a group done sooner writes nothing. SIGUSR1 asks for a
save at the next chance instead (``saved_on_signal``: before a machine is stopped). A save goes
to a folder of its own and replaces the previous one by renames, so a kill during a save leaves the
previous save whole. A rerun of the same group (same rules, states and parts) reads the arrays
back and goes on with the next part to judge or the next level; a part's judging writes its own
states alone, and the loop's arrays between two levels are all it depends on, so the values are
those of a run that was never cut (tests/test_history_engine.py). The folder is removed once the
group is written to the database.
"""

from __future__ import annotations

import json
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

FORMAT = 2  # 2: an undecided value keeps what its removals give (kernels.PEND_BASE)
ARRAYS = ("value", "count", "lowest")
SAVE_STATE = 3  # bytes a state of a save: its value and count (the parts' lowest codes are few)


def _read_into(path: Path, out: np.ndarray) -> bool:
    """A saved array read straight into ``out`` (False where its shape or type differ, or it is
    cut short). Not mapped: a mapping's pages count as the process's resident memory while they
    are copied, so a resumed group's peak RSS held its values twice (7-8 with 8-7 of the Viking
    ban: 15.2 GiB against 12.5 planned)."""
    with open(path, "rb") as f:
        fmt = np.lib.format
        read_header = fmt.read_array_header_1_0 if fmt.read_magic(f) == (1, 0) else fmt.read_array_header_2_0
        shape, fortran, dtype = read_header(f)
        if tuple(shape) != out.shape or dtype != out.dtype or fortran or not out.flags.c_contiguous:
            return False
        view = memoryview(out.reshape(-1).view(np.uint8))
        done = 0
        while done < len(view):
            got = f.readinto(view[done:])
            if not got:
                return False
            done += got
    return True


def checkpoint_dir(db_path: Path) -> Path:
    """``X.h5.checkpoint``: where ``morris solve`` keeps the group it is solving."""
    return Path(str(db_path) + ".checkpoint")


class Checkpoint:
    """Saves and restores the level loop of the groups of one run, in ``folder`` (one folder per
    group, ``3-4_4-3``); ``echo`` hears a save that failed (the run goes on without it)."""

    def __init__(self, folder: Path, rules_text: str, every: float = 900.0, echo: Callable[[str], None] = print):
        self.folder, self.rules_text, self.every, self.echo = Path(folder), rules_text, every, echo
        self.last = time.perf_counter()
        self.asked = False  # a save asked for (``ask``): made at the next chance, however soon

    def _dir(self, group) -> Path:
        return self.folder / "_".join(f"{a}-{b}" for a, b in group)

    def _meta(self, group, states: int, parts: int) -> dict:
        return {"format": FORMAT, "rules": self.rules_text, "group": [list(s) for s in group], "states": int(states), "parts": int(parts)}

    def load(self, group, states: int, parts: int, arrays: dict[str, np.ndarray]) -> dict | None:
        """The saved loop of ``group`` read into ``arrays`` (value, count, lowest, in place): its
        meta (``first``, ``levels``, ``seconds``, and ``cpu_seconds`` and ``judged`` unless the
        save predates them), or None where there is none that fits (a save of other rules,
        states or parts, or one whose arrays differ or are cut short, is removed)."""
        want = self._meta(group, states, parts)
        for d in (self._dir(group), self._dir(group).with_suffix(".old")):
            meta_file = d / "meta.json"
            if not meta_file.exists():
                continue
            meta = json.loads(meta_file.read_text())
            if {k: meta.get(k) for k in want} != want:
                self.clear(group)
                return None
            for name in ARRAYS:
                if not _read_into(d / f"{name}.npy", arrays[name]):
                    self.clear(group)
                    return None
            self.last = time.perf_counter()
            return meta
        return None

    def begin(self) -> None:
        """A group starts: the next save is ``every`` seconds from now."""
        self.last = time.perf_counter()

    def ask(self) -> None:
        """Save at the next chance (between two runs of judging or two levels), not ``every``
        seconds after the last: what ``saved_on_signal`` does on SIGUSR1."""
        self.asked = True

    def due(self) -> bool:
        return self.asked or time.perf_counter() - self.last >= self.every

    def save(self, group, states: int, parts: int, arrays: dict[str, np.ndarray], first: int, levels: int, seconds: float,
             cpu_seconds: float = 0.0, judged: int | None = None) -> None:
        """Write the loop of ``group`` after a level (``first``: the lowest code left), or while
        its states are judged (``judged``: the parts of its order judged so far, fewer than
        ``parts``), with the wall and CPU seconds so far (what the run's record adds on a resume)."""
        final = self._dir(group)
        new, old = final.with_suffix(".new"), final.with_suffix(".old")
        try:
            shutil.rmtree(new, ignore_errors=True)
            new.mkdir(parents=True)
            for name in ARRAYS:
                np.save(new / f"{name}.npy", arrays[name])
            meta = dict(self._meta(group, states, parts), first=int(first), levels=int(levels), seconds=round(seconds, 3),
                        cpu_seconds=round(cpu_seconds, 3), judged=int(parts if judged is None else judged))
            (new / "meta.json").write_text(json.dumps(meta))
            shutil.rmtree(old, ignore_errors=True)
            if final.exists():
                final.rename(old)
            new.rename(final)
            shutil.rmtree(old, ignore_errors=True)
            if self.asked:
                self.echo(f"group {final.name}: saved as asked (level {levels}, {meta['judged']:,} of {parts:,} parts judged)")
        except OSError as e:
            shutil.rmtree(new, ignore_errors=True)
            self.echo(f"warning: group {final.name}: its levels could not be saved ({e.strerror or e}); the run goes on without")
        self.last = time.perf_counter()
        self.asked = False

    def clear(self, group) -> None:
        """Remove what is saved of ``group`` (and the folder, once empty)."""
        final = self._dir(group)
        for d in (final, final.with_suffix(".new"), final.with_suffix(".old")):
            shutil.rmtree(d, ignore_errors=True)
        if self.folder.exists() and not any(self.folder.iterdir()):
            self.folder.rmdir()


@contextmanager
def saved_on_signal(checkpoint: Checkpoint) -> Iterator[None]:
    """While inside, SIGUSR1 asks ``checkpoint`` for a save at its next chance (``kill -USR1``
    the ``morris solve`` process): a machine about to be stopped keeps the group's work up to
    then, not up to the last timed save, up to ``every`` seconds before. Python runs the handler
    once the kernel running returns, so the save follows within a level or a run of judging.
    Outside the main thread (where no handler can be set) and where there is no SIGUSR1, nothing."""
    if not hasattr(signal, "SIGUSR1") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: checkpoint.ask())
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, previous)
