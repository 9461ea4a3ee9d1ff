"""``benchmarks/commit_paths.py``: what the long runs bank in git as they finish it (a game's logs,
checksums, statistics and book; the verify's ledger) is committed alone, and nothing staged
beside it goes with it."""

from __future__ import annotations

import sys
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import commit_paths  # noqa: E402


def test_the_paths_alone_are_committed_and_what_is_staged_stays_staged(git_repo):
    root, git = git_repo
    (root / "README").write_text("b\n")
    git("add", "README")  # (the session's own work in progress)
    games = root / "benchmarks" / "games" / "g"
    games.mkdir(parents=True)
    (games / "g.jsonl").write_text("{}\n")
    (root / "g-whole.json").write_text("{}\n")
    assert commit_paths.commit([games, root / "g-whole.json", root / "missing.h5"], "g: done")
    assert git("log", "-1", "--format=%s") == "g: done\n"
    assert sorted(git("show", "--name-only", "--format=", "HEAD").split()) == ["benchmarks/games/g/g.jsonl", "g-whole.json"]
    assert git("diff", "--cached", "--name-only").split() == ["README"]
    # nothing new: no commit; an ignored path is refused, not forced in
    assert not commit_paths.commit([games], "g: again")
    (root / "data").mkdir()
    (root / "data" / "g.h5").write_text("x\n")
    assert not commit_paths.commit([root / "data" / "g.h5"], "g: the database")
    assert git("log", "-1", "--format=%s") == "g: done\n"


def test_the_command_says_whether_it_committed(git_repo):
    root, git = git_repo
    (root / "t.md").write_text("| row |\n")
    made = CliRunner().invoke(commit_paths.main, ["-m", "t: table", str(root / "t.md")])
    assert made.exit_code == 0 and "committed: t: table" in made.output
    again = CliRunner().invoke(commit_paths.main, ["-m", "t: table", str(root / "t.md")])
    assert again.exit_code == 1 and "nothing committed" in again.output
    assert git("log", "--format=%s").splitlines() == ["t: table", "start"]
