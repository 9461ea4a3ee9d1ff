"""``morris play``: whole games against the database, played by a script through the real command.

The script reads the command's JSON lines and answers with moves; after the game every ply is
checked against ``morris query --json`` on the position it was played from: the database's moves
must be among query's best moves, the position after each ply must be the one query's move leads
to, and the announced end must follow (a game of best moves lasts exactly the start's plies). The
plain-line and terminal forms, hints, illegal moves (refused with ``morris moves``' list) and the
positions a database cannot answer are checked too. Databases: six up to 4 men, standard 3-3.
"""

from __future__ import annotations

import json
import os
import pty
import random
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver import open_database
from solver.cli import main
from solver.rules import get_rules
from solver.rules.notation import Position, format_position

SIX = get_rules("six")
STANDARD = get_rules("standard")


@pytest.fixture(scope="module")
def dbs(solved_db) -> dict[str, Path]:
    return {"six": solved_db("six", 4), "standard": solved_db("standard", 3)}


def cli(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def query(db: Path, positions: list[str]) -> list[dict]:
    """``morris query --json`` on each position (one run, positions from standard input)."""
    res = cli("query", "--db", db, "--json", "-", input="\n".join(positions) + "\n")
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def best(answer: dict) -> set[str]:
    """The moves query lists with the best move's value and plies."""
    moves = answer["moves"]
    return {m["move"] for m in moves if (m["value"], m["plies"]) == (moves[0]["value"], moves[0]["plies"])}


def pick(db: Path, rules, a: int, b: int, want, seed: str) -> str:
    """A position of subspace a-b whose probe satisfies ``want``: the one with the most plies
    among 300 seeded random positions (found through the API)."""
    rng = random.Random(seed)
    found = []
    with open_database(db) as d:
        for _ in range(300):
            pts = rng.sample(range(rules.board_data.n), a + b)
            pos = Position.from_mover(rng.choice("wb"), sum(1 << p for p in pts[:a]), sum(1 << p for p in pts[a:]))
            p = d.probe(pos)
            if want(p):
                found.append((p.plies or 0, format_position(pos, d.board)))
    assert found, "no such position in the sample"
    return max(found)[1]


def play_by_script(db: Path, start: str, choose, extra=(), limit: int = 400) -> list[dict]:
    """Run ``morris play --json`` as a process and answer each of its turns with ``choose(position)``
    (a move text, or None to stop); the events it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "play", "--db", str(db), "--json", *extra, start],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    events = []
    try:
        for line in proc.stdout:
            ev = json.loads(line)
            events.append(ev)
            if ev["event"] == "end":
                break
            if ev["event"] == "turn":
                move = choose(ev["position"]) if len(events) < limit else None
                proc.stdin.write((move or "quit") + "\n")
                proc.stdin.flush()
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert events[-1]["event"] == "end", events[-3:]
    return events


def check_against_query(db: Path, events: list[dict]) -> list[dict]:
    """Every ply against ``morris query`` on the position it was played from; query's answers."""
    plies = [e for e in events if e["event"] == "ply"]
    before = [events[0]["position"]] + [e["position"] for e in plies]
    answers = query(db, before)
    assert (answers[0]["value"], answers[0]["plies"]) == (events[0]["value"], events[0]["plies"])
    for i, ply in enumerate(plies):
        answer = answers[i]
        listed = {m["move"]: m for m in answer["moves"]}
        assert ply["move"] in listed, (answer["position"], ply["move"])
        assert (ply["value"], ply["plies"]) == (listed[ply["move"]]["value"], listed[ply["move"]]["plies"])
        if ply["by"] == "database":
            assert ply["move"] in best(answer), (answer["position"], ply["move"], best(answer))
        # the position after the ply is the one the move leads to (query it: its value is the flip)
        after = answers[i + 1]
        assert after["position"] == ply["position"]
        if ply["value"] == "draw":
            assert after["value"] == "draw"
        else:
            assert after["value"] == ("loss" if ply["value"] == "win" else "win")
            assert after["plies"] == ply["plies"] - 1
    return answers


def first_best(db: Path):
    return lambda position: query(db, [position])[0]["moves"][0]["move"]


@pytest.mark.parametrize("colour", ["winner", "loser"])
def test_a_game_of_best_moves_ends_as_query_says(dbs, colour):
    db = dbs["six"]
    start = pick(db, SIX, 4, 4, lambda p: p.value == "win" and p.plies >= 15, "play-win")
    side = start.split()[1]
    you = side if colour == "winner" else ("b" if side == "w" else "w")
    events = play_by_script(db, start, first_best(db), ["--as", {"w": "white", "b": "black"}[you]])
    answers = check_against_query(db, events)
    plies = [e for e in events if e["event"] == "ply"]
    assert {e["by"] for e in plies} == {"you", "database"}
    # Both sides kept the value: the game lasts exactly the start's plies, won by the side to move.
    end = events[-1]
    assert end["reason"] == "lost" and end["plies"] == len(plies) == answers[0]["plies"]
    assert end["result"] == {"w": "white", "b": "black"}[side]
    assert answers[-1]["value"] == "loss" and answers[-1]["plies"] == 0 and answers[-1]["moves"] == []


def test_database_keeps_its_value_against_random_moves(dbs):
    """The player plays random legal moves; the database's every move is one of query's best,
    and the game ends with the value query gives the last position."""
    db = dbs["six"]
    start = pick(db, SIX, 4, 4, lambda p: p.value == "draw", "play-draw")
    rng = random.Random("play-random")
    choose = lambda position: rng.choice(query(db, [position])[0]["moves"])["move"]
    events = play_by_script(db, start, choose, limit=60)
    answers = check_against_query(db, events)
    end, last = events[-1], answers[-1]
    assert end["plies"] == len([e for e in events if e["event"] == "ply"])
    if end["reason"] == "lost":  # the player's random moves lost: the database won as fast as it could
        assert last["value"] == "loss" and last["plies"] == 0
        assert end["result"] == {"w": "black", "b": "white"}[last["position"].split()[1]]
    else:
        assert end["reason"] in ("repetition", "stopped")
        assert (end["result"] == "draw") == (last["value"] == "draw" and end["reason"] == "repetition")


def test_a_drawn_game_ends_on_the_third_repetition(dbs):
    db = dbs["six"]
    start = pick(db, SIX, 3, 3, lambda p: p.value == "draw", "play-repeat")
    events = play_by_script(db, start, first_best(db))
    check_against_query(db, events)
    end = events[-1]
    assert (end["result"], end["reason"]) == ("draw", "repetition")
    seen = [events[0]["position"]] + [e["position"] for e in events if e["event"] == "ply"]
    assert seen[-1] == end["position"] and seen.count(end["position"]) == 3
    assert all(seen[: i + 1].count(p) < 3 for i, p in enumerate(seen[:-1]))  # no third time before


def test_flying_game_on_the_standard_board(dbs):
    db = dbs["standard"]
    start = pick(db, STANDARD, 3, 3, lambda p: p.value == "win" and p.plies >= 9, "play-fly")
    events = play_by_script(db, start, first_best(db))
    answers = check_against_query(db, events)
    assert events[-1]["plies"] == answers[0]["plies"] and events[-1]["reason"] == "lost"


def test_plain_lines_hints_and_illegal_moves(dbs):
    db = dbs["six"]
    start = pick(db, SIX, 4, 3, lambda p: p.value == "win" and p.plies >= 5, "play-lines")
    first = query(db, [start])[0]
    move = first["moves"][0]["move"]
    res = cli("play", "--db", db, "--hints", start, input=f"\nzz\nb2-b9\n{move}\nquit\n")
    assert res.exit_code == 2, res.output  # a script learns that lines were refused
    out = res.stdout.splitlines()
    side = {"w": "White", "b": "Black"}[start.split()[1]]
    assert out[0] == f"start: {first['position']}, {side} to move; you play {side}"
    assert out[1] == f"{side} to move: win in {first['plies']} plies"
    after = query(db, [start])[0]  # (the same answer: query is repeatable)
    assert out[2].startswith(f"1. {side} {move}: ") and "(database)" not in out[2]
    reply = out[3]
    assert reply.startswith("2. ") and "(database): " in reply
    assert reply.split()[2] in best(query(db, [out[2].split(": ")[1]])[0])
    assert out[4].startswith(f"{side} to move: ")  # the hint before the player's next move
    assert out[5].startswith("stopped after 2 plies; ")
    # the refused lines: one error line each, with the legal moves as morris moves lists them
    err = res.stderr.splitlines()
    assert len(err) == 2 and all(e.startswith("error: ") for e in err)
    legal = cli("moves", "--rules", "six", start).stdout.split(": ")[1].split()
    assert sorted(legal) == sorted(m["move"] for m in after["moves"])
    for e in err:
        assert e.endswith("legal moves: " + " ".join(legal))
    assert "bad move 'zz'" in err[0] and "unknown point 'b9'" in err[1]


def test_hint_values_follow_query_and_the_ending_names_the_winner(dbs):
    db = dbs["six"]
    start = pick(db, SIX, 3, 4, lambda p: p.value == "loss" and p.plies >= 4, "play-hints")
    events = play_by_script(db, start, first_best(db), ["--hints"])
    answers = {a["position"]: a for a in check_against_query(db, events)}
    hints = [e for e in events if e["event"] == "turn"]
    assert hints and all((h["value"], h["plies"]) == (answers[h["position"]]["value"], answers[h["position"]]["plies"]) for h in hints)
    end = events[-1]
    loser = {"w": "White", "b": "Black"}[start.split()[1]]
    assert end["reason"] == "lost" and end["text"].startswith(f"{'Black' if loser == 'White' else 'White'} wins in {end['plies']} plies: {loser} ")


def test_the_board_at_a_terminal(dbs):
    """With a terminal as standard input: the board drawn, a refused move answered with the legal
    ones, quit."""
    db = dbs["six"]
    start = "W:a1,a3,a5 B:e1,e3,e5 w"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "play", "--db", str(db), start],
        stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    os.close(slave)
    try:
        os.write(master, b"a1-e1\nquit\n")
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert proc.returncode == 0, err
    legal = cli("moves", "--rules", "six", start).stdout.split(": ")[1]
    assert "5 W-------.-------B" in out and "1 W-------.-------B" in out  # the six board, drawn
    assert f"illegal move 'a1-e1'; legal moves: {legal.strip()}" in out
    assert "stopped after 0 plies" in out and err == ""


@pytest.mark.parametrize(
    "which, args, status, needle",
    [
        ("six", [], 1, "tier 0-0-6-6 (men in hand) is not in"),
        ("six", ["W:a1 B:e1 w 5 5"], 1, "--whole-game"),
        ("standard", ["W:a1,d1,g1,d7 B:a4,b4,c4 w"], 1, "subspace 4-3 is not in"),
        ("standard", ["W:a1,d1,g1,d7 B:a4,b4,c4 w"], 1, "--max-men 4"),
        ("missing", ["W:a1,a3,a5 B:e1,e3,e5 w"], 1, "no database at"),
        ("six", ["W:a1,x9 B:e1,e3,e5 w"], 2, "unknown point 'x9'"),
        ("six", ["--as", "red", "W:a1,a3,a5 B:e1,e3,e5 w"], 2, "'red' is not one of"),
    ],
)
def test_what_play_cannot_answer_is_one_line(dbs, tmp_path, monkeypatch, which, args, status, needle):
    import solver.books

    # no opening book to borrow from (the package ships six's whole game): the database alone
    monkeypatch.setattr(solver.books, "BOOK_DIR", tmp_path)
    db = tmp_path / "none.h5" if which == "missing" else dbs[which]
    res = cli("play", "--db", db, *args, input="")
    assert res.exit_code == status, res.output
    lines = res.stderr.strip().splitlines()
    assert needle in res.stderr and "Traceback" not in res.output
    if "--as" not in args:  # (click's own usage error has more lines)
        assert len(lines) == 1 and lines[0].startswith("error: ") and res.stdout == ""


def test_a_game_already_over(dbs):
    res = cli("play", "--db", dbs["six"], "W:a1,a3 B:e1,e3,e5 w", input="")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1] == "Black wins in 0 plies: White is down to 2 men"


def test_a_mill_without_its_removal_is_refused_with_the_choices(dbs):
    """A move that closes a mill but names no man to remove: refused, with the moves that name one."""
    db = dbs["six"]
    rng = random.Random("play-mill")
    with open_database(db) as d:
        for _ in range(500):
            pts = rng.sample(range(16), 8)
            pos = Position(sum(1 << p for p in pts[:4]), sum(1 << p for p in pts[4:]), "w")
            if d.probe(pos).plies == 0:
                continue
            closing = [m for m in d.evaluate_moves(pos) if m.move.removals]
            if closing:
                break
        start = d.format(pos)
    frm_to = closing[0].notation.split("x")[0]
    choices = sorted(m.notation for m in closing if m.notation.split("x")[0] == frm_to)
    res = cli("play", "--db", db, start, input=f"{frm_to}\nquit\n")
    assert res.exit_code == 2
    (err,) = res.stderr.splitlines()
    assert err.startswith(f"error: illegal move '{frm_to}': it closes a mill, so name the man it removes ({' '.join(choices)}); legal moves: ")
