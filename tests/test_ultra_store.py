"""Draw ranks wired into the toolkit: ``morris rank`` stores them beside the strong values, and
query, play, serve and info read them. On Six Men's Morris with 4 men (a whole game whose draws
settle in several tiers), on a copy: the fixtures' databases are only read.

- the stored arrays (read with h5py alone) equal the ranks computed in memory, and the strong
  values and their checksums are what they were;
- every drawing move's rank is the successor's stored rank carried over the move, the position's
  own rank is the best of them, and ultra-strong play never picks a drawing move ranked below
  another available one (strong play does, somewhere in the sample);
- the one-line errors: a database that is not a whole game, too big for the memory limit, and
  ultra-strong play where there are no ranks;
- ultra-strong play draws uniformly among the moves of equal best value, rank and depth, the same
  for the same seed (``Game``, ``morris play --seed``, the server's mainline);
- ``morris rank`` ranks without a graph (the explicit graph with ``--explicit``: the same stored
  arrays); a killed run resumes from the tiers it wrote, leaving their files alone; ``--dry-run``
  prints each group's memory and writes nothing.
"""

from __future__ import annotations

import json
import os

import h5py
import numpy as np
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from solver.cli import main
from solver.errors import NoRanksError
from solver.play import Game
from solver.query import open_database
from solver.serve import create_app
from solver.serve.games import game_key
from solver.storage.database import Database
from solver.storage.files import checksum, subspace_file
from solver.storage.ranks import NO_RANK, ranks_checksum
from solver.storage.write import copy_database, link_subspaces
from solver.tiers import tier_name
from solver.ultra import better, database_draw_ranks, stored_secvals

SIX4 = ("six", ("men=4", "flying=at-3"))  # (test_ultra builds it too: its twins 3-4 and 4-3 hold many draws)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def ranked(solved_whole, tmp_path_factory):
    """(original path, ranked copy's path, what morris rank --json printed, ranks computed in memory)."""
    original = solved_whole(*SIX4).path
    path = tmp_path_factory.mktemp("ranked") / "six4.h5"
    copy_database(original, path)
    res = run("rank", "--db", path, "--json")
    assert res.exit_code == 0, res.output
    with Database(original) as db:
        computed = database_draw_ranks(db)
    return original, path, json.loads(res.stdout), computed


@pytest.fixture(scope="module")
def sample(ranked):
    """Analyses of 30 drawn positions a tier (those with a drawing move), with the ranked copy."""
    _, path, _, computed = ranked
    out = []
    rng = np.random.default_rng(22)
    with open_database(path, book=False) as db:
        for t in computed.graph.tiers:
            if t[2] or t[3] or t[0] < 3 or t[1] < 3:
                continue  # positions() reads the moving phase's tiers
            slots, rank, _ = computed.tier_arrays(t)
            pick = rng.choice(slots.size, size=min(30, slots.size), replace=False) if slots.size else []
            for i, pos in zip(pick, db.positions(t[0], t[1], slots[pick])):
                out.append((t, int(rank[i]), db.analyse(pos)))
    return out


def test_stored_ranks_equal_the_computed_ones(ranked):
    _, path, out, computed = ranked
    assert out["draws"] == computed.graph.nodes > 0
    with Database(path) as db:
        assert db.ranks_state() == "ranked"
        assert stored_secvals(db).values == computed.secvals.values
        for info in db.tiers():
            want_rank, want_depth = computed.slot_arrays(info.tier, info.slots)
            with h5py.File(subspace_file(path, info.name)) as f:  # h5py alone
                g = f[f"ultra/{info.name}"]
                rank, depth = g["rank"][...], g["depth"][...]
                assert g["rank"].chunks and g["rank"].compression == "gzip"
                assert g.attrs["checksum"] == ranks_checksum(rank, depth)
                assert json.loads(g.attrs["ranks"]) == {str(k): v for k, v in zip(*map(list, np.unique(want_rank[want_rank != NO_RANK], return_counts=True)))}
            assert np.array_equal(rank, want_rank) and np.array_equal(depth, want_depth), info.name
    ranks = {r["rank"]: r["draws"] for r in out["ranks"]}
    assert sum(ranks.values()) == out["draws"] and len(ranks) >= 3  # the draws settle in several tiers


def test_ranking_never_changes_a_strong_value(ranked):
    original, path, _, _ = ranked
    with Database(original) as a, Database(path) as b:
        before, after = {i.name: i for i in a.tiers()}, {i.name: i for i in b.tiers()}
        assert before.keys() == after.keys()
        for name, info in after.items():
            assert info.checksum == before[name].checksum
            assert checksum(b.values(*info.tier)) == info.checksum  # the values themselves, read again
        assert a.ranks_state() == "none"


def test_a_later_solve_drops_the_ranks(ranked, tmp_path):
    """A later solve writes a new main file without the ranks (its tiers' statistics, hence the
    sector values, may have changed): they are not read until morris rank runs again."""
    _, path, _, _ = ranked
    copy = tmp_path / "again.h5"
    copy_database(path, copy)  # copies the strong values alone
    with Database(copy) as db:
        assert db.ranks_state() == "none"
    assert run("rank", "--db", copy).exit_code == 0
    with Database(copy) as db:
        assert db.ranks_state() == "ranked"
    link_subspaces(copy, Database(copy).rules)
    with Database(copy) as db:
        assert db.ranks_state() == "none"
    with open_database(copy, book=False) as db:
        assert not db.has_ranks and db.analyse("................ w 4 4").probe.rank is None


def test_moves_carry_their_successors_ranks(ranked, sample):
    """Each drawing move's (rank, depth) is the stored rank of the position it leads to, moved
    over to the mover; the position's own rank is the best drawing move's, which ultra-strong play
    picks, never one ranked below another drawing move."""
    _, path, _, computed = ranked
    strong_worse = 0
    with open_database(path, book=False) as db:
        own_value = db.secvals.values
        for t, rank, an in sample:
            draws = [m for m in an.moves if m.value == "draw"]
            assert an.ranked and an.probe.rank == rank
            assert an.probe.settles_in == tuple(tier_name(x) for x in computed.secvals.tiers_worth(rank))
            if not draws:
                continue
            assert all(m.rank is not None and m.settles_in for m in draws)
            assert all(m.rank is None for m in an.moves if m.value != "draw")
            best = max((m.rank, -m.tempo) for m in draws)
            assert best[0] == rank
            chosen = an.choose("ultra")
            assert chosen in draws and (chosen.rank, -chosen.tempo) == best
            assert not any(better((m.rank, m.tempo), (chosen.rank, chosen.tempo)) for m in draws)
            assert chosen == an.ultra_best_moves[0]
            strong = an.choose("strong")
            assert strong == draws[0]
            strong_worse += strong.rank < chosen.rank
            for m in draws[:3]:  # the rank after the move, read back from the stored ranks
                after = db.probe(m.after)
                assert after.value == "draw" and m.rank == -after.rank
                if m.rank == own_value[t]:
                    assert m.depth == 0
    assert strong_worse > 0  # the sample holds positions where the two strengths differ


def test_query_and_info_show_the_ranks(ranked, sample):
    _, path, out, _ = ranked
    t, rank, an = next(x for x in sample if len({m.rank for m in x[2].moves if m.rank is not None}) > 1)
    res = run("query", "--db", path, an.board_string)
    assert res.exit_code == 0, res.output
    assert f"draw, rank {rank} (settles in " in res.stdout and "*" in res.stdout
    obj = json.loads(run("query", "--json", "--db", path, an.board_string).stdout)
    assert obj["rank"] == rank and obj["ultra_best"] == [m.notation for m in an.ultra_best_moves]
    assert {m["move"]: m.get("rank") for m in obj["moves"]} == {m.notation: m.rank for m in an.moves}
    info = json.loads(run("info", "--json", "--db", path).stdout)["ranks"]
    assert info["distribution"] == out["ranks"]
    assert "draw ranks" in run("info", "--db", path).stdout


def test_play_and_serve_with_strength_ultra(ranked, sample):
    _, path, _, _ = ranked
    t, rank, an = next(x for x in sample if x[2].choose("strong") not in x[2].ultra_best_moves)
    with open_database(path, book=False) as db:
        game = Game(db, an.position, "b" if an.position.side == "w" else "w", "strong")
        assert game.database_move().move == an.choose("strong")
        game = Game(db, an.position, "b" if an.position.side == "w" else "w", "ultra")
        assert game.database_move().move in an.ultra_best_moves
    with TestClient(create_app([path], books=False, strength="ultra")) as c:
        key = game_key(Database(path).rules)
        body = c.get(f"/api/{key}", params={"position": an.board_string}).json()
        assert body["ultra_best"][0] == an.choose("ultra").notation != an.choose("strong").notation
        line = c.get(f"/api/{key}/mainline", params={"position": an.board_string, "max_plies": 1}).json()
        assert line["mainline"][0]["move"] in body["ultra_best"]
    other = "black" if an.position.side == "w" else "white"
    lines = run("play", "--db", path, "--strength", "ultra", "--json", "--as", other, an.board_string)
    first = [json.loads(x) for x in lines.stdout.splitlines() if '"ply"' in x][0]
    assert first["move"] in body["ultra_best"] and first["rank"] == rank


def test_ultra_play_draws_among_equal_moves_by_its_seed(ranked, sample):
    """Where several moves share the best value, rank and depth, ultra-strong play draws one
    uniformly: over 100 seeds a move each comes up about 100 times, never another move; the same
    seed gives the same move in play, in morris play and in the server's mainline."""
    _, path, _, _ = ranked
    t, rank, an = min((x for x in sample if len(x[2].ultra_best_moves) >= 3), key=lambda x: len(x[2].ultra_best_moves))
    best = an.ultra_best_moves
    n = 100 * len(best)
    you = "b" if an.position.side == "w" else "w"
    with open_database(path, book=False) as db:
        picks = [Game(db, an.position, you, "ultra", seed).database_move().move for seed in range(n)]
        assert picks[:50] == [Game(db, an.position, you, "ultra", seed).database_move().move for seed in range(50)]
    counts = [picks.count(m) for m in best]
    assert sum(counts) == n and min(counts) >= 60, counts  # (binomial, p = 1/len, mean 100: below 1e-4 to fail)
    other = "black" if you == "b" else "white"

    def first_move(seed):
        res = run("play", "--db", path, "--strength", "ultra", "--seed", seed, "--json", "--as", other, an.board_string)
        lines = [json.loads(x) for x in res.stdout.splitlines()]
        assert lines[0]["event"] == "start" and lines[0]["seed"] == seed
        return next(x for x in lines if x["event"] == "ply")["move"]

    assert first_move(7) == first_move(7) and len({first_move(s) for s in range(8)}) >= 2
    key = game_key(Database(path).rules)
    seen = set()
    for seed in range(8):
        with TestClient(create_app([path], books=False, strength="ultra", seed=seed)) as c:
            assert c.get("/api").json()["games"][0]["seed"] == seed
            lines = [c.get(f"/api/{key}/mainline", params={"position": an.board_string, "max_plies": 4}).json() for _ in range(2)]
            assert lines[0] == lines[1]
            seen.add(lines[0]["mainline"][0]["move"])
    assert seen <= {m.notation for m in best} and len(seen) >= 2


def test_the_one_line_errors(ranked, solved_db, solved_whole, tmp_path):
    original = solved_whole(*SIX4).path
    moving = solved_db("six", 4)
    res = run("rank", "--db", moving)
    assert res.exit_code == 1 and res.stderr.count("\n") == 1 and "not a whole game" in res.stderr
    res = run("rank", "--db", original, "--max-memory", "1MiB")
    assert res.exit_code == 1 and res.stderr.count("\n") == 1
    assert "too big to rank in memory" in res.stderr and "limit of 0.0 GiB" in res.stderr
    assert "its largest group, 4-4, needs" in res.stderr
    assert Database(original).ranks_state() == "none"  # refused before writing anything
    res = run("play", "--db", original, "--strength", "ultra")
    assert res.exit_code == 1 and res.stderr.count("\n") == 1 and "morris rank --db" in res.stderr
    with pytest.raises(NoRanksError, match="no draw ranks"):
        create_app([original], books=False, strength="ultra")
    res = run("rank", "--db", tmp_path / "none.h5")
    assert res.exit_code == 1 and "no database" in res.stderr and "Traceback" not in res.output


def test_the_benchmarks_players_choose_as_query_does(ranked, sample):
    """``ultra.playout``'s strong and ultra choices (numba, for benchmarks/bench_ultra.py) are the
    moves ``Analysis.choose`` names, and its move values are query's."""
    from solver.index import board_index
    from solver.rules.movegen import MAX_MOVES
    from solver.rules.notation import Move
    from solver.rules.tables import game_tables
    from solver.ultra import playout

    _, path, _, _ = ranked
    with Database(path) as db:
        tabs = playout.tables(db)
        g, ix = game_tables(db.rules), board_index(db.rules.board).tables
    buf = np.empty((MAX_MOVES, 5), dtype=np.int64)
    kind, plies, mrank, mtempo = (np.empty(MAX_MOVES, dtype=np.int64) for _ in range(4))
    differ = 0
    for _, _, an in sample:
        pos = an.position
        n = playout.move_values(pos.mover, pos.opponent, pos.hand_mover, pos.hand_opponent, g, ix, *tabs, buf, kind, plies, mrank, mtempo)
        assert n == len(an.moves)
        by_move = {m.move: m for m in an.moves}
        for j in range(n):
            m = by_move[Move(*buf[j].tolist())]
            assert {1: "win", 0: "draw", -1: "loss"}[int(kind[j])] == m.value and (m.plies or 0) == plies[j]
            assert m.value != "draw" or (mrank[j], mtempo[j]) == (m.rank, m.tempo)
        for ultra, strength in ((False, "strong"), (True, "ultra")):
            j = playout.choose_best(n, kind, plies, mrank, mtempo, ultra, False)
            assert Move(*buf[j].tolist()) == an.choose(strength).move
        differ += an.choose("strong") != an.choose("ultra")
    assert differ > 0


def _tier_checksums(path) -> dict:
    with Database(path) as db:
        out = {}
        for info in db.tiers():
            with h5py.File(subspace_file(path, info.name)) as f:
                out[info.name] = f[f"ultra/{info.name}"].attrs["checksum"]
        return out


def test_the_explicit_graph_stores_the_same_ranks(ranked, tmp_path):
    original, path, out, _ = ranked
    assert out["method"] == "implicit" and out["edges"] is None
    copy = tmp_path / "explicit.h5"
    copy_database(original, copy)
    res = run("rank", "--db", copy, "--explicit", "--json")
    assert res.exit_code == 0, res.output
    again = json.loads(res.stdout)
    assert again["method"] == "explicit graph" and again["edges"] > 0 and again["ranks"] == out["ranks"]
    assert _tier_checksums(copy) == _tier_checksums(path)


def test_a_killed_run_resumes_from_the_tiers_it_wrote(ranked, tmp_path, monkeypatch):
    """A run killed after 6 tiers leaves no ranks to read (the main file comes last); the next
    run keeps those 6 files as they are and ranks the rest, the same as one run."""
    import solver.storage.ranks as storage_ranks
    from solver.ultra.store import rank_database

    original, path, _, _ = ranked
    copy = tmp_path / "killed.h5"
    copy_database(original, copy)
    write = storage_ranks.write_tier_ranks
    written: list = []

    def dying(path, rules, name, *args):
        if len(written) == 6:
            raise KeyboardInterrupt  # (as a kill would, between two tiers)
        write(path, rules, name, *args)
        written.append(name)

    monkeypatch.setattr(storage_ranks, "write_tier_ranks", dying)
    with pytest.raises(KeyboardInterrupt):
        rank_database(copy)
    monkeypatch.undo()
    assert Database(copy).ranks_state() == "none"
    inode = {name: os.stat(subspace_file(copy, name)).st_ino for name in written}
    res = run("rank", "--db", copy)
    assert res.exit_code == 0, res.output
    assert "resuming: 6 of 18 tiers were ranked by an earlier run" in res.stdout
    assert {name: os.stat(subspace_file(copy, name)).st_ino for name in written} == inode  # not rewritten
    assert Database(copy).ranks_state() == "ranked" and _tier_checksums(copy) == _tier_checksums(path)
    res = run("rank", "--db", copy, "--fresh")  # everything again
    assert "resuming" not in res.stdout and all(os.stat(subspace_file(copy, n)).st_ino != i for n, i in inode.items())


def test_dry_run_prints_each_groups_memory(ranked):
    original, _, _, _ = ranked
    plan = json.loads(run("rank", "--db", original, "--dry-run", "--json").stdout)
    assert plan["method"] == "implicit" and len(plan["groups"]) == 17  # 18 tiers, 3-4 with 4-3
    g44 = next(g for g in plan["groups"] if g["tiers"] == "4-4")
    assert g44["bytes"] == 8 * g44["slots"] + 4 * g44["lower_slots"] and g44["lower_slots"] > 0
    assert plan["peak_bytes"] > max(g["bytes"] for g in plan["groups"]) == g44["bytes"]
    res = run("rank", "--db", original, "--dry-run")
    assert res.exit_code == 0 and "3-4 and 4-3" in res.stdout and "the peak is the largest, 4-4" in res.stdout
    assert Database(original).ranks_state() == "none"  # nothing written
