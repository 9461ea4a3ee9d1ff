"""A history group's saved level loop (``solver.history.checkpoint``) read back, and a save
asked for by SIGUSR1: no numba, so in the default run; the resume of a real group is
tests/test_history_engine.py's (slow)."""

import numpy as np

from solver.history.checkpoint import Checkpoint


def test_a_save_is_read_back_exactly_and_a_damaged_one_is_dropped(tmp_path):
    """``Checkpoint.load`` restores each array bit for bit (read into the run's own arrays); a
    save whose array is cut short, or of another shape or type, is removed and the group starts
    afresh (None) rather than resuming from a wrong or partial state."""
    rng = np.random.default_rng(3)
    group = [(7, 8), (8, 7)]
    saved = {"value": rng.integers(0, 0xFFFF, 5000, dtype=np.uint16), "count": rng.integers(0, 255, 5000, dtype=np.uint8),
             "lowest": rng.integers(0, 9, 7, dtype=np.uint16)}
    ck = Checkpoint(tmp_path / "ck", "rules")
    ck.save(group, 5000, 7, saved, 11, 10, 12.5, 20.25)

    def fresh(**kind):
        return {k: np.zeros(kind.get(k, v.shape), dtype=v.dtype) for k, v in saved.items()}

    into = fresh()
    meta = ck.load(group, 5000, 7, into)
    assert meta["first"] == 11 and meta["levels"] == 10 and (meta["seconds"], meta["cpu_seconds"]) == (12.5, 20.25)
    assert all(np.array_equal(into[k], saved[k]) for k in saved)
    assert ck.load(group, 5000, 7, fresh(lowest=(8,))) is None and not (tmp_path / "ck").exists()  # another shape
    ck.save(group, 5000, 7, saved, 11, 10, 12.5)
    wide = dict(fresh(), count=np.zeros(5000, dtype=np.uint16))
    assert ck.load(group, 5000, 7, wide) is None and not (tmp_path / "ck").exists()  # another type
    ck.save(group, 5000, 7, saved, 11, 10, 12.5)
    path = tmp_path / "ck" / "7-8_8-7" / "value.npy"
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - 1)
    assert ck.load(group, 5000, 7, fresh()) is None and not (tmp_path / "ck").exists()  # cut short


def test_sigusr1_asks_for_a_save_at_the_next_chance_while_inside(tmp_path):
    """Inside ``saved_on_signal``, SIGUSR1 makes a save due at once however far the timed one is
    (``every``: a day here); the save answers it, so the next one is timed again; outside, the
    handler that was there before is back."""
    import os
    import signal

    from solver.history.checkpoint import saved_on_signal

    ck = Checkpoint(tmp_path / "ck", "rules", every=86_400.0, echo=lambda line: None)
    before = signal.getsignal(signal.SIGUSR1)
    arrays = {"value": np.zeros(4, np.uint16), "count": np.zeros(4, np.uint8), "lowest": np.zeros(1, np.uint32)}
    with saved_on_signal(ck):
        # (a handler of its own: without one the signal would end the test's process)
        assert signal.getsignal(signal.SIGUSR1) not in (signal.SIG_DFL, signal.SIG_IGN, None, before)
        assert not ck.due()
        os.kill(os.getpid(), signal.SIGUSR1)
        assert ck.due()
        ck.save([(3, 3)], 4, 1, arrays, 5, 2, 1.0, judged=1)
        assert not ck.due()
    assert signal.getsignal(signal.SIGUSR1) == before
    assert Checkpoint(tmp_path / "ck", "rules").load([(3, 3)], 4, 1, arrays)["levels"] == 2
