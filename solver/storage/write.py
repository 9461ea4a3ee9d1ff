"""Adding to a database: solved subspaces into their own files, then a new main file linking them
(``add_subspaces``; a cluster's workers write and the client links), bringing a database up to
date before a solve adds to it (``relink``: temporaries removed, format 1 migrated, files a kill
left unlinked linked), and copying one (``copy_database``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import DatabaseError
from ..rules.rulesets import RuleSet
from .database import Database
from .files import (
    FORMAT_VERSION,
    exists,
    link_target,
    main_file,
    parts_dir,
    subspace_dir,
    subspace_file,
    subspace_files,
    subspace_name,
    v1_parts,
)
from .writer import copy_subspace, fsync_path, remove_temporaries, write_main, write_subspace


def add_subspaces(path: str | os.PathLike, rules: RuleSet, results: list[tuple[np.ndarray, dict]], sides: dict | None = None) -> None:
    """Add solved subspaces (values, stats): each to its own file, then a new main file that
    links them. Whatever the database holds already is neither read nor rewritten (but a format
    version 1 database is migrated first, once). ``sides``: under the history rule, each moving
    subspace's side table by its name (``writer.write_subspace``)."""
    path = Path(path)
    version, created, _ = main_file(path)
    if version == 1 or v1_parts(path):
        relink(path, rules)
        version, created, _ = main_file(path)
    write_subspace_files(path, rules, results, sides)
    write_main(path, rules, created)


def write_subspace_files(path: str | os.PathLike, rules: RuleSet, results: list[tuple[np.ndarray, dict]], sides: dict | None = None) -> None:
    """Write solved subspaces (values, stats) each to its own file, and link none: what a cluster
    worker does (the client links them, ``link_subspaces``). Several processes may call this at
    once for different subspaces of one database."""
    path = Path(path)
    folder = subspace_dir(path)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        fsync_path(folder.parent)
    for values, stats in results:
        name = subspace_name(stats["mover"], stats["opponent"], stats.get("mover_hand", 0), stats.get("opponent_hand", 0))
        write_subspace(path, rules, values, stats, (sides or {}).get(name))


def link_subspaces(path: str | os.PathLike, rules: RuleSet) -> None:
    """A new main file linking every subspace file the folder holds (the writer alone calls it,
    under the writer lock): after workers have written their subspaces with
    ``write_subspace_files``."""
    path = Path(path)
    write_main(path, rules, main_file(path)[1])


def relink(path: str | os.PathLike, rules: RuleSet) -> list[str]:
    """Bring the database at ``path`` up to date before a solve adds to it (the caller holds the
    writer lock): remove temporary files a kill left behind, migrate format version 1, and link
    the subspace files that the main file does not link (a kill between the two steps of
    ``add_subspaces``). Returns a line for each change made."""
    path = Path(path)
    remove_temporaries(path)
    if not exists(path):
        return []
    with Database(path, rules) as db:  # refuses another rule set, damaged files, missing files
        inline = [(s.name, s.file) for s in db.tiers() if s.file != subspace_file(path, s.name)]
    lines = []
    if inline:
        subspace_dir(path).mkdir(exist_ok=True)
        for name, source in inline:
            copy_subspace(path, rules, name, source)
        lines.append(f"migrated {path} to format version {FORMAT_VERSION}: {len(inline)} subspaces copied into {subspace_dir(path)}/")
    version, created, links = main_file(path)
    want = {name: link_target(path, name) for name in subspace_files(path)}
    if links != want:
        unlinked = len(set(want) - set(links)) if version is not None and version >= 2 else 0
        write_main(path, rules, created)
        if unlinked:
            lines.append(f"linked {unlinked} subspace files that {path} did not link yet")
    for part in v1_parts(path):
        part.unlink()
    try:
        parts_dir(path).rmdir()
    except OSError:
        pass
    return lines


def copy_database(src: str | os.PathLike, dst: str | os.PathLike) -> None:
    """Copy the database at ``src`` to a new one at ``dst``: each subspace into its own file in
    ``dst``'s folder, then a main file linking them. The way to give a database another name (its
    links name its folder, so renaming the files alone leaves plain h5py without the data)."""
    src, dst = Path(src), Path(dst)
    if exists(dst):
        raise DatabaseError(f"cannot copy to {dst}: a database is there already")
    with Database(src) as db:
        rules, held = db.rules, [(s.name, s.file) for s in db.tiers()]
    created = main_file(src)[1] if src.exists() else None
    subspace_dir(dst).mkdir(parents=True)
    for name, file in held:
        copy_subspace(dst, rules, name, file)
    write_main(dst, rules, created)
