"""`morris verify` must fail on a changed value of a whole database, not only pass on it.

For a few tiers of a solved database (by default the smallest moving subspace and the smallest
tier with men in hand that hold wins, draws and losses, and one random tier of each phase up to
``--max-positions``), one value at a time is changed in a scratch copy of the database, its
checksum refreshed so that only the values tell, and that tier verified: a win made two plies
longer, a draw made a loss in 2, a loss made a draw. Each change must fail the check of its tier,
the checksum passing. The database itself is never written: the scratch copy is its main file, a
copy of the changed tier's file and links to every other subspace file (a few MiB however large
the database), so it runs before ``whole_games.sh`` removes a game's database.

    python tools/tamper_check.py --db data/twelve.h5 --json data/morabaraba.tamper.json

Prints a Markdown table; exits 1 if a change was not caught.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import click
import h5py
import numpy as np

from solver.storage.database import Database
from solver.storage.files import checksum, subspace_dir, subspace_file
from solver.values import DUP, describe
from solver.verify.check import verify

CHANGES = ("win two plies longer", "draw to a loss in 2", "loss to a draw")
LOSS_IN_2 = 3  # solver.values: a code is plies + 1; even plies lose


def kind_slots(values: np.ndarray) -> dict[str, np.ndarray]:
    """The canonical slots holding a win, a draw and a loss."""
    v = values.astype(np.int64)
    real = v != DUP
    wins = real & (v != 0) & ((v - 1) % 2 == 1)
    losses = real & (v != 0) & ((v - 1) % 2 == 0)
    return {CHANGES[0]: np.flatnonzero(wins), CHANGES[1]: np.flatnonzero(real & (v == 0)), CHANGES[2]: np.flatnonzero(losses)}


def changed_value(change: str, old: int) -> int:
    return {CHANGES[0]: old + 2, CHANGES[1]: LOSS_IN_2, CHANGES[2]: 0}[change]


def scratch_copy(db_path: Path, tier: str, folder: Path) -> Path:
    """``folder``/<name>: the main file copied, ``tier``'s file copied, every other subspace
    file linked (read only by the verify)."""
    dst = folder / db_path.name
    shutil.copy2(db_path, dst)
    src_dir, dst_dir = subspace_dir(db_path), subspace_dir(dst)
    dst_dir.mkdir()
    for f in src_dir.iterdir():
        if f.suffix != ".h5" or f.name.startswith("."):
            continue
        if f.stem == tier:
            shutil.copy2(f, dst_dir / f.name)
        else:
            (dst_dir / f.name).symlink_to(f.resolve())
    return dst


def change_one(path: Path, tier: str, slot: int, value: int) -> None:
    with h5py.File(subspace_file(path, tier), "r+") as f:
        ds = f["subspaces"][tier]
        v = ds[...]
        v[slot] = value
        ds[...] = v
        ds.attrs["checksum"] = checksum(v)


def default_tiers(db: Database, max_positions: int, rng: np.random.Generator) -> list[str]:
    """Per phase: the smallest tier holding wins, draws and losses, and a random one of at most
    ``max_positions`` positions that holds at least two of them."""
    out: list[str] = []
    for placing in (False, True):
        subs = [s for s in db.tiers() if s.placing == placing and s.positions <= max_positions]
        full = sorted((s for s in subs if s.win and s.draw and s.loss), key=lambda s: s.positions)
        if full:
            out.append(full[0].name)
        rest = [s.name for s in subs if (s.win > 0) + (s.draw > 0) + (s.loss > 0) >= 2 and s.name not in out]
        if rest:
            out.append(str(rng.choice(rest)))
    return out


@click.command()
@click.option("--db", "db_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--tier", "tiers", multiple=True, help="a tier to change (repeatable) [default: see the module's note]")
@click.option("--max-positions", type=int, default=20_000_000, show_default=True, help="largest tier picked by default")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="the results, one object")
@click.option("--scratch", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the scratch copies go [default: beside the database]")
def main(db_path: Path, tiers: tuple[str, ...], max_positions: int, seed: int, json_path: Path | None, scratch: Path | None) -> None:
    rng = np.random.default_rng(seed)
    with Database(db_path) as db:
        names = list(tiers) or default_tiers(db, max_positions, rng)
        values = {name: db.values(*map(int, name.split("-"))) for name in names}
    rows = []
    for name in names:
        for change, slots in kind_slots(values[name]).items():
            if slots.size == 0:
                continue
            slot = int(rng.choice(slots))
            old = int(values[name][slot])
            new = changed_value(change, old)
            with tempfile.TemporaryDirectory(dir=scratch or db_path.parent, prefix=".tamper-") as folder:
                bad = scratch_copy(db_path, name, Path(folder))
                change_one(bad, name, slot, new)
                t0 = time.perf_counter()
                (check,) = verify(bad, progress=False, subspaces=[name])
                seconds = time.perf_counter() - t0
            # the examples name each block's first mismatch: the changed slot, or a position that
            # moves to it (where a tier is its own twin) listed before it; the history rule's
            # moving check counts the wrong states without naming them
            named = any(f"slot {slot} " in e for e in check.examples) if check.examples else None
            caught = check.checksum_ok and check.mismatches >= 1
            rows.append({
                "tier": name, "change": change, "slot": slot, "stored": describe(old), "changed to": describe(new),
                "method": check.method, "mismatches": check.mismatches, "checksum_ok": check.checksum_ok,
                "caught": caught, "slot named": named, "example": check.examples[0] if check.examples else None, "seconds": round(seconds, 1),
            })
            click.echo(f"{name} slot {slot}: {describe(old)} -> {describe(new)}: "
                       f"{'caught' if caught else 'NOT CAUGHT'} ({check.mismatches} mismatches, {seconds:.1f} s)", err=True)
    click.echo(f"`morris verify` of `{db_path}` with one value changed in a scratch copy (checksum refreshed):\n")
    click.echo("| tier | slot | stored | changed to | verify's way | mismatches | caught | slot named | s |")
    click.echo("|---|---:|---|---|---|---:|---|---|---:|")
    for r in rows:
        click.echo(f"| {r['tier']} | {r['slot']} | {r['stored']} | {r['changed to']} | {r['method']} | {r['mismatches']} "
                   f"| {'yes' if r['caught'] else '**no**'} | { {True: 'yes', False: 'no', None: '(not listed)'}[r['slot named']] } | {r['seconds']} |")
    if json_path:
        json_path.write_text(json.dumps({"database": str(db_path), "seed": seed, "changes": rows}, indent=1) + "\n")
    if not rows or not all(r["caught"] for r in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
