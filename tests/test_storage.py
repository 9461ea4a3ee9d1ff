"""The database's files (format version 2 and 3): a main file of external links to one file per subspace,
read by plain h5py from any folder, and renamed by hand; a kill between a subspace file and the main file, stray
temporary files, a dangling link; format version 1 read and migrated; adding a pair leaves the
files already written alone."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.engine.run import solve
from solver.errors import DatabaseError
from solver.rules import make_rules
from solver.storage import files as storage
from solver.storage.database import Database
from solver.storage.files import exists, subspace_dir, subspace_file
from solver.storage.write import add_subspaces, copy_database
from solver.storage.writer import write_subspace

STANDARD = make_rules("standard")
quiet = {"progress": False, "echo": lambda s: None}


@pytest.fixture(scope="module")
def std_db(solved_db) -> Path:
    """The standard rules up to 4 men (shared by the session: the tests here copy it to change it)."""
    return solved_db("standard", 4)


def checksums(path: Path) -> dict[str, str]:
    with Database(path) as db:
        return {s.name: s.checksum for s in db.subspaces()}


def stamp(file: Path) -> tuple[int, int, int]:
    st = file.stat()
    return st.st_ino, st.st_mtime_ns, st.st_size


def test_main_file_links_one_file_per_subspace(std_db):
    with h5py.File(std_db) as f, Database(std_db) as db:
        assert f.attrs["format_version"] == storage.FORMAT_VERSION == 3
        assert sorted(f["subspaces"]) == ["3-3", "3-4", "4-3", "4-4"]
        for name in f["subspaces"]:
            link = f["subspaces"].get(name, getlink=True)
            assert isinstance(link, h5py.ExternalLink)
            assert (link.filename, link.path) == (f"{std_db.name}.d/{name}.h5", f"/subspaces/{name}")
            held = subspace_file(std_db, name)
            with h5py.File(held) as g:
                assert g.attrs["format_version"] == 3 and g.attrs["rules"] == f.attrs["rules"]
                own = g["subspaces"][name]
                assert own.compression == "gzip" and own.shuffle and own.dtype == np.uint16
                assert own.attrs["checksum"] == f["subspaces"][name].attrs["checksum"]
                through_main = f["subspaces"][name][...]
                assert np.array_equal(through_main, own[...])
                assert np.array_equal(through_main, db.values(*map(int, name.split("-"))))
                info = db.info(*map(int, name.split("-")))
                assert info.file == held and info.bytes_on_disk == own.id.get_storage_size()
                assert info.checksum == storage.checksum(through_main)


def test_h5py_follows_the_links_from_any_folder_and_after_a_move(std_db, tmp_path, monkeypatch):
    with h5py.File(subspace_file(std_db, "3-3")) as f:
        want = f["subspaces/3-3"][...]
    decoy = tmp_path / f"{std_db.name}.d" / "3-3.h5"  # the link's name, but relative to the working folder
    decoy.parent.mkdir()
    with h5py.File(decoy, "w") as f:
        f["subspaces/3-3"] = np.zeros(5, dtype=np.uint16)
    monkeypatch.chdir(tmp_path)
    for name in (str(std_db), os.path.relpath(std_db)):
        with h5py.File(name) as f:
            assert np.array_equal(f["subspaces/3-3"][...], want)
    moved = tmp_path / "elsewhere" / std_db.name  # the file and its folder moved together
    moved.parent.mkdir()
    shutil.copy(std_db, moved)
    shutil.copytree(subspace_dir(std_db), subspace_dir(moved))
    with h5py.File(f"elsewhere/{std_db.name}") as f:
        assert np.array_equal(f["subspaces/3-3"][...], want)
    assert checksums(moved) == checksums(std_db)


def test_database_renamed_by_hand_is_read_and_linked_again_by_a_solve(std_db, tmp_path):
    path = tmp_path / "renamed.h5"
    shutil.copy(std_db, path)
    shutil.copytree(subspace_dir(std_db), subspace_dir(path))
    with h5py.File(path) as f:  # the links still name the first name's folder, not the one beside this file
        with pytest.raises(KeyError):
            f["subspaces/3-3"]
    assert checksums(path) == checksums(std_db)
    assert all(r.skipped for r in solve(STANDARD, 4, path, **quiet))
    with h5py.File(path) as f:
        assert f["subspaces"].get("3-3", getlink=True).filename == "renamed.h5.d/3-3.h5"
        assert f["subspaces/3-3"].attrs["checksum"] == checksums(std_db)["3-3"]


def test_subspace_file_not_yet_linked_is_read_and_linked_without_solving(std_db, tmp_path):
    """A kill after the pair 3-4 and 4-3 is in its files but before the main file links it."""
    path = tmp_path / "killed.h5"
    solve(STANDARD, 3, path, **quiet)
    with Database(std_db) as db:
        for a, b in ((3, 4), (4, 3)):
            stats = {key: getattr(db.info(a, b), key) for key in storage.STAT_KEYS}
            write_subspace(path, STANDARD, db.values(a, b), stats)  # the first step alone
    with h5py.File(path) as f:
        assert sorted(f["subspaces"]) == ["3-3"]
    assert sorted(checksums(path)) == ["3-3", "3-4", "4-3"]
    before = {n: stamp(subspace_file(path, n)) for n in ("3-4", "4-3")}
    lines: list[str] = []
    rows = solve(STANDARD, 4, path, progress=False, echo=lines.append)
    assert "linked 2 subspace files that" in lines[1], lines
    assert "3-4 and 4-3: done already, skipped" in lines
    assert [(r.stats["mover"], r.stats["opponent"], r.skipped) for r in rows] == [
        (3, 3, True), (3, 4, True), (4, 3, True), (4, 4, False),
    ]
    assert {n: stamp(subspace_file(path, n)) for n in ("3-4", "4-3")} == before
    with h5py.File(path) as f:
        assert sorted(f["subspaces"]) == ["3-3", "3-4", "4-3", "4-4"]
    assert checksums(path) == checksums(std_db)


def test_temporary_files_are_ignored_and_removed_by_the_next_solve(std_db, tmp_path):
    path = tmp_path / "copy.h5"
    copy_database(std_db, path)
    stray = [subspace_dir(path) / ".x.tmp", subspace_dir(path) / ".5-5.h5.tmp", tmp_path / ".copy.h5.tmp"]
    for file in stray:
        file.write_bytes(b"half a file")
    assert checksums(path) == checksums(std_db)
    lonely = tmp_path / "only-tmp.h5"
    subspace_dir(lonely).mkdir()
    (subspace_dir(lonely) / ".3-3.h5.tmp").write_bytes(b"")
    assert not exists(lonely)
    with pytest.raises(DatabaseError, match="no database at"):
        Database(lonely)
    rows = solve(STANDARD, 4, path, **quiet)
    assert all(r.skipped for r in rows)
    assert not any(file.exists() for file in stray)


def write_v1(path: Path, source: Path, inline: list[str], parts: list[str] = ()) -> None:
    """A format version 1 database by hand, from ``source``'s subspaces: ``inline`` as datasets in
    the main file, ``parts`` in one part file as an interrupted run left them."""
    with h5py.File(source) as src:
        header = {key: src.attrs[key] for key in ("rules", "index_scheme", "code_version", "created")}

    def v1_file(file: Path, names: list[str]) -> None:
        with h5py.File(file, "w") as f:
            f.attrs.update(header, format="morris-db", format_version=1)
            group = f.create_group("subspaces")
            for name in names:
                with h5py.File(subspace_file(source, name)) as own:  # the dataset itself, compressed
                    own.copy(own["subspaces"][name], group, name)

    v1_file(path, inline)
    if parts:
        storage.parts_dir(path).mkdir()
        v1_file(storage.parts_dir(path) / f"{parts[0]}.h5", parts)


def test_version_1_database_is_read_and_migrated_by_the_next_solve(std_db, tmp_path):
    whole = tmp_path / "v1-whole.h5"
    write_v1(whole, std_db, ["3-3", "3-4", "4-3", "4-4"])
    with h5py.File(whole) as f:
        assert isinstance(f["subspaces"].get("4-4", getlink=True), h5py.HardLink)
    assert checksums(whole) == checksums(std_db)
    with Database(whole) as db, Database(std_db) as new:
        assert db.info(4, 4).file == whole
        assert np.array_equal(db.values(4, 4), new.values(4, 4))
    info = CliRunner().invoke(main, ["info", "--db", str(whole)])
    assert info.exit_code == 0 and "4 subspaces" in info.output

    small = tmp_path / "v1-small.h5"  # 3-3 in the main file, 3-4 and 4-3 in a part file
    write_v1(small, std_db, ["3-3"], ["3-4", "4-3"])
    assert sorted(checksums(small)) == ["3-3", "3-4", "4-3"]
    lines: list[str] = []
    rows = solve(STANDARD, 4, small, progress=False, echo=lines.append)
    assert any(line.startswith(f"migrated {small} to format version {storage.FORMAT_VERSION}: 3 subspaces") for line in lines), lines
    assert [r.skipped for r in rows] == [True, True, True, False]
    assert checksums(small) == checksums(std_db)
    assert not storage.parts_dir(small).exists()
    with h5py.File(small) as f:
        assert f.attrs["format_version"] == storage.FORMAT_VERSION == 3
        assert sorted(f["subspaces"]) == ["3-3", "3-4", "4-3", "4-4"]
        assert all(isinstance(f["subspaces"].get(n, getlink=True), h5py.ExternalLink) for n in f["subspaces"])


def test_dangling_link_is_one_line(std_db, tmp_path):
    path = tmp_path / "dangling.h5"
    copy_database(std_db, path)
    missing = subspace_file(path, "4-3")
    missing.unlink()
    with pytest.raises(DatabaseError) as err:
        Database(path)
    assert str(missing) in str(err.value) and "\n" not in str(err.value)
    for args in (["info", "--db", str(path)], ["solve", "--db", str(path), "-q"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1 and "Traceback" not in result.output
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("error: ") and str(missing) in line


def test_damaged_subspace_file_is_one_line_where_it_is_read(std_db, tmp_path):
    """Subspace files are opened when first asked about: a damaged one still fails a lookup, a
    solve and ``info`` with one line naming it, and leaves the other subspaces readable."""
    path = tmp_path / "damaged.h5"
    copy_database(std_db, path)
    damaged = subspace_file(path, "4-4")
    with h5py.File(damaged, "r+") as f:
        f["subspaces"].move("4-4", "4-5")  # the file no longer holds its own subspace
    with Database(path) as db:
        assert db.info(3, 4).positions == 760_398
        with pytest.raises(DatabaseError, match="damaged"):
            db.has(4, 4)
    for args in (["info", "--db", str(path)], ["solve", "--db", str(path), "-q"], ["query", "--db", str(path), "W:a1,d1,g1,a4 B:b4,c4,b6,c5 w"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1 and "Traceback" not in result.output, args
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("error: ") and str(damaged) in line and "damaged" in line


def test_adding_a_pair_leaves_the_files_already_written_alone(tmp_path, monkeypatch):
    path = tmp_path / "grow.h5"
    solve(STANDARD, 3, path, **quiet)
    first = stamp(subspace_file(path, "3-3"))
    # Held open, the old main file keeps its inode, which the filesystem could otherwise reuse.
    old_main = os.open(path, os.O_RDONLY)
    try:
        solve(STANDARD, 4, path, **quiet)
        assert stamp(subspace_file(path, "3-3")) == first
        # the main file is a new file, renamed over the old (which is gone from the folder)
        assert os.stat(path).st_ino != os.fstat(old_main).st_ino and os.fstat(old_main).st_nlink == 0
    finally:
        os.close(old_main)

    opened: list[tuple[str, str]] = []
    real = h5py.File

    def spy(name, mode="r", *args, **kwargs):
        opened.append((Path(name).name, mode))
        return real(name, mode, *args, **kwargs)

    values = np.arange(10, dtype=np.uint16)
    stats = dict.fromkeys(storage.STAT_KEYS, 0) | {"mover": 5, "opponent": 5, "slots": 10}
    before = {p.name: stamp(p) for p in subspace_dir(path).iterdir()}
    monkeypatch.setattr(h5py, "File", spy)
    add_subspaces(path, STANDARD, [(values, stats)])
    monkeypatch.undo()
    assert {p.name: stamp(p) for p in subspace_dir(path).iterdir() if p.name != "5-5.h5"} == before
    pid = os.getpid()
    assert sorted(opened) == [(f".5-5.h5.{pid}.tmp", "w"), (f".grow.h5.{pid}.tmp", "w"), ("grow.h5", "r")]
    with h5py.File(path) as f:
        assert np.array_equal(f["subspaces/5-5"][...], values)


def test_a_copied_whole_game_keeps_every_tier(tmp_path):
    """``copy_database`` copies the tiers with men in hand too, values and checksums alike."""
    from solver.engine.run import solve_whole

    src, dst = tmp_path / "three.h5", tmp_path / "copy.h5"
    solve_whole(make_rules("three"), src, progress=False, echo=lambda s: None)
    copy_database(src, dst)
    with Database(src) as a, Database(dst) as b:
        assert any(s.placing for s in a.tiers())
        assert [(s.name, s.checksum) for s in b.tiers()] == [(s.name, s.checksum) for s in a.tiers()]
        for s in a.tiers():
            assert np.array_equal(a.values(*s.tier), b.values(*s.tier))


@pytest.mark.parametrize("length,dtype", [(1, np.uint16), (65_535, np.uint16), (65_536, np.uint16), (200_003, np.uint16), (70_001, np.uint32)])
def test_chunks_written_in_threads_read_back_by_hdf5_and_by_threads(tmp_path, length, dtype):
    """``storage.chunks`` applies HDF5's own shuffle and deflate (ISA-L's) in threads: h5py's
    filters read the file back as written (the last chunk padded), so do the threaded reads, and
    the checksum is the one of the values."""
    from solver.storage import chunks

    values = np.random.default_rng(length).integers(0, 2**16, length).astype(dtype)
    values[::7] = 0  # (runs that compress)
    with h5py.File(tmp_path / "v.h5", "w") as f:
        ds = f.create_dataset("v", shape=values.shape, dtype=values.dtype, chunks=(min(65_536, length),),
                              compression="gzip", compression_opts=chunks.LEVEL, shuffle=True)
        little = values.astype(values.dtype.newbyteorder("<"))
        assert chunks.write_values(ds, values) == "sha256:" + hashlib.sha256(little.tobytes()).hexdigest()
        if dtype == np.uint16:
            assert chunks.write_values(ds, values) == storage.checksum(values)
    with h5py.File(tmp_path / "v.h5", "r") as f:
        np.testing.assert_array_equal(f["v"][...], values)
        np.testing.assert_array_equal(chunks.read_values(f["v"]), values)


def test_chunks_that_hdf5_wrote_read_by_threads_and_a_bad_chunk_named(tmp_path):
    """Files of earlier versions (HDF5's own shuffle and zlib at level 4) read the same by the
    threads; a chunk that does not inflate is a ValueError naming where it starts, which
    ``Database.values`` turns into its one line."""
    from solver.storage import chunks

    values = (np.arange(300_000) % 977).astype(np.uint16)
    with h5py.File(tmp_path / "v.h5", "w") as f:
        f.create_dataset("v", data=values, chunks=(65_536,), compression="gzip", compression_opts=4, shuffle=True)
    with h5py.File(tmp_path / "v.h5", "r+") as f:
        np.testing.assert_array_equal(chunks.read_values(f["v"]), values)
        f["v"].id.write_direct_chunk((131_072,), b"not a deflate stream")
        with pytest.raises(ValueError, match="the chunk at 131072 does not decompress"):
            chunks.read_values(f["v"])


def test_chunks_of_another_layout_are_read_by_hdf5(tmp_path):
    """A dataset written with other filters (lzf, no shuffle) or with chunks never written is
    read by HDF5 itself: the same values, no error."""
    from solver.storage import chunks

    values = np.arange(100_000, dtype=np.uint16)
    with h5py.File(tmp_path / "v.h5", "w") as f:
        f.create_dataset("lzf", data=values, chunks=(4096,), compression="lzf")
        f.create_dataset("empty", shape=(10_000,), dtype=np.uint16, chunks=(4096,), compression="gzip", shuffle=True)
    with h5py.File(tmp_path / "v.h5", "r") as f:
        np.testing.assert_array_equal(chunks.read_values(f["lzf"]), values)
        np.testing.assert_array_equal(chunks.read_values(f["empty"]), np.zeros(10_000, dtype=np.uint16))
