"""HDF5 databases: a small main file per rule set, and one file per subspace beside it.

Layout (format version 3; the README's "Database layout" section says the same for h5py users):

    X.h5                        the main file
      /                         attrs: format="morris-db", format_version, rules (JSON),
                                       index_scheme, code_version, created
      /subspaces/<name>         an HDF5 external link to /subspaces/<name> in "X.h5.d/<name>.h5"
                                (relative: HDF5 looks for it beside the main file, from any working
                                directory, so the file and its folder can move together)
      /history/<name>           (the history rule only) a link to /history/<name> in the same file
    X.h5.d/<name>.h5            one subspace: the same root attrs, and
      /subspaces/<name>         uint16[slots], chunked, gzip + shuffle; attrs: mover, opponent,
                                mover_hand, opponent_hand, positions, slots, win, draw, loss,
                                max_win, max_loss, max_plies, seconds, cpu_seconds, checksum
                                ("sha256:<hex>" of the little-endian values)
      /history/<name>           under the history rule (rules' reclose is not "allowed"; issue 23,
                                docs/history-rule.md), in the file of each moving subspace only:
                                its states with a ban or a pending ban, beside the plain positions
                                that /subspaces/<name> holds as in any database:
        keys                    int64[states with a record], ascending: slot << 20 | ban << 10 |
                                pending (the record codes of solver.history.records)
        values                  uint16[the same], the value of the state of keys[i] (solver.values'
                                codes); both chunked, gzip + shuffle like the values
                                attrs: history_format, reclose, states (positions + keys), keys,
                                win, draw, loss, max_win, max_loss (over every state, the positions
                                included), checksum ("sha256:<hex>" of the keys as little-endian
                                int64, then the values as little-endian uint16)

A subspace is a tier (a, b, ha, hb): men on the board of the side to move and of the opponent,
then the men each holds in hand; <name> is ``a-b`` in the moving phase (no men in hand) and
``a-b-ha-hb`` otherwise. Format version 3 added the tiers with men in hand (and the two hand
attributes, read as 0 where a file lacks them); versions 1 and 2 hold the moving phase only.

Adding a solved pair (``add_subspaces``) writes its one or two subspace files and then a new main
file that links every subspace file in ``X.h5.d/``: nothing written before is read or copied
again, so a run writes each subspace once.

Crash safety: every file is written under a temporary name (``.<name>.<pid>.tmp`` in the same folder),
fsynced and renamed over its real name (``writer.write_atomic``), so a file under a real name is complete; temporary files
are never read, and the next writer removes them. A kill between a subspace file and the main file
leaves a subspace file not yet linked: ``Database`` reads the main file's links and every subspace
file in ``X.h5.d/``, and the next ``solve`` links it (``relink``).

Format version 1 (the datasets inline in the main file, and an interrupted run's finished pairs in
``X.h5.parts/``) is still read; the first solve into such a database copies each dataset into its
own file (compressed chunks as they are) and then writes a version 2 main file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from itertools import chain
from pathlib import Path

import h5py
import numpy as np

from ..errors import DatabaseError, MismatchError
from ..rules.rulesets import RuleSet
from ..tiers import parse_tier, tier_name

FORMAT = "morris-db"
FORMAT_VERSION = 3
READS_VERSIONS = (1, 2, 3)
INDEX_SCHEME = "orbit-rep-colex/1"
CHUNK = 1 << 16  # 128 KiB of values: a single probe decompresses one chunk
CHUNK_CACHE = 256 << 20  # bytes of decompressed chunks kept per open file
HISTORY_FORMAT = 1  # the side table of the history rule's states (/history/<name>)
HISTORY_STAT_KEYS = ("states", "win", "draw", "loss", "max_win", "max_loss")
STAT_KEYS = ("mover", "opponent", "mover_hand", "opponent_hand", "positions", "slots", "win", "draw", "loss", "max_win", "max_loss", "max_plies", "seconds", "cpu_seconds")


@functools.cache
def code_version() -> str:
    """The package's version, written into every file (looked up once: each lookup scans the
    installed packages)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("morris-solver")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def checksum(values: np.ndarray) -> str:
    """A subspace's checksum: its values as little-endian uint16."""
    return checksum_pieces([values])


def history_checksum(keys: np.ndarray, values: np.ndarray) -> str:
    """The side table's checksum: the keys as little-endian int64, then the values as uint16."""
    return history_checksum_pieces([keys], [values])


def checksum_pieces(pieces) -> str:
    """``checksum`` of the values given a piece at a time (a subspace too large to read whole)."""
    return _digest((p, "<u2") for p in pieces)


def history_checksum_pieces(keys, values) -> str:
    """``history_checksum`` of the keys and then the values, each given a piece at a time."""
    return _digest(chain(((k, "<i8") for k in keys), ((v, "<u2") for v in values)))  # (lazily: a piece in memory at a time)


def _digest(parts) -> str:
    digest = hashlib.sha256()
    for values, dtype in parts:
        digest.update(memoryview(np.ascontiguousarray(values, dtype=dtype)).cast("B"))  # (no copy)
    return "sha256:" + digest.hexdigest()


def is_history(rules: RuleSet) -> bool:
    """Whether a database of ``rules`` holds the history rule's side tables (/history/<name>)."""
    return rules.reclose != "allowed"


def subspace_name(a: int, b: int, ha: int = 0, hb: int = 0) -> str:
    """``a-b`` for the moving phase, ``a-b-ha-hb`` for a tier with men in hand."""
    return tier_name((a, b, ha, hb))


def solve_command(rules: RuleSet | None, max_men: int | None, path: Path) -> str:
    """The `morris solve` command line that builds (or extends) the database at ``path``."""
    cmd = "morris solve"
    if rules is not None:
        name, *changed = rules.describe().split()  # the named rule set, then its changed options
        cmd += f" --rules {name}" + "".join(f" -o {option}" for option in changed)
    if max_men is not None:
        cmd += f" --max-men {max_men}"
    return cmd + f" --db {path}"


def default_path(rules: RuleSet) -> Path:
    """``data/<rule set>.h5``; options set on top of the named rule set are part of the name
    (``data/standard_flying-never.h5``), so that each rule set gets its own file."""
    words = rules.describe().split()
    return Path("data") / ("_".join([words[0], *(w.replace("=", "-") for w in words[1:])]) + ".h5")


def subspace_dir(path: Path) -> Path:
    """``X.h5.d``: the folder of the subspace files of the database ``X.h5``."""
    return Path(str(path) + ".d")


def subspace_file(path: Path, name: str) -> Path:
    return subspace_dir(path) / f"{name}.h5"


def parts_dir(path: Path) -> Path:
    """``X.h5.parts``: where format version 1 kept the finished pairs of an interrupted run."""
    return Path(str(path) + ".parts")


def link_target(path: Path, name: str) -> str:
    """The external link's file name, relative to the main file's folder."""
    return f"{Path(path).name}.d/{name}.h5"


def subspace_files(path: Path) -> dict[str, Path]:
    folder = subspace_dir(path)
    if not folder.is_dir():
        return {}
    return {p.name[:-3]: p for p in sorted(folder.iterdir()) if p.suffix == ".h5" and parse_tier(p.stem)}  # (a temporary file starts with ".")


def v1_parts(path: Path) -> list[Path]:
    folder = parts_dir(path)
    return sorted(p for p in folder.glob("*.h5") if not p.name.startswith(".")) if folder.is_dir() else []


def exists(path: str | os.PathLike) -> bool:
    """Whether anything of a database is at ``path``: its main file, a subspace file of a run
    killed before its first main file, or (format version 1) a part file."""
    path = Path(path)
    return path.exists() or bool(subspace_files(path)) or bool(v1_parts(path))


def check_header(f: h5py.File, path: Path, rules: RuleSet | None) -> RuleSet:
    if f.attrs.get("format") != FORMAT:
        raise DatabaseError(f"{path} is not a morris database (no format={FORMAT!r} attribute)")
    version = int(f.attrs.get("format_version", -1))
    if version not in READS_VERSIONS:
        raise MismatchError(f"{path} has format version {version}; this code reads versions 1 to {FORMAT_VERSION}")
    scheme = f.attrs.get("index_scheme")
    if scheme != INDEX_SCHEME:
        raise MismatchError(f"{path} uses index scheme {scheme!r}; this code uses {INDEX_SCHEME!r}")
    try:
        stored = RuleSet.from_dict(json.loads(f.attrs["rules"]))
    except Exception as e:  # noqa: BLE001 - any damage to the rules attribute is a bad file
        raise DatabaseError(f"{path}: cannot read the rule set ({e})") from None
    if rules is not None and stored.options != rules.options:
        raise MismatchError(
            f"{path} holds the rule set '{stored.describe()}', not '{rules.describe()}' "
            "(choose another --db, or the same --rules and options)"
        )
    return stored


def open_h5(path: Path, mode: str = "r") -> h5py.File:
    try:
        return h5py.File(path, mode, rdcc_nbytes=CHUNK_CACHE, rdcc_nslots=100_003)
    except FileNotFoundError:
        raise DatabaseError(f"no database at {path}") from None
    except OSError as e:
        raise DatabaseError(f"{path} is not a readable HDF5 file ({e.__class__.__name__})") from None


def subspaces_group(f: h5py.File, path: Path) -> h5py.Group:
    group = f.get("subspaces")
    if not isinstance(group, h5py.Group):
        raise DatabaseError(f"{path} is damaged: it has no 'subspaces' group")
    return group


def main_file(path: Path) -> tuple[int | None, str | None, dict[str, str | None]]:
    """The main file's format version, creation time and links (name: the external link's file
    name, None for a dataset held inline); (None, None, {}) where there is no main file."""
    if not path.exists():
        return None, None, {}
    with open_h5(path) as f:
        check_header(f, path, None)
        links = {}
        for name in subspaces_group(f, path):
            link = f["subspaces"].get(name, getlink=True)
            links[name] = link.filename if isinstance(link, h5py.ExternalLink) else None
        return int(f.attrs["format_version"]), str(f.attrs.get("created", "")) or None, links
