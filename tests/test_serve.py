"""``morris serve``'s JSON API (``solver.serve``) through Starlette's TestClient, against
``morris query --json``.

Random positions of three rule sets, both phases (two whole-game databases: Three Men's Morris and
the six board with 4 men, reached by random play from the start; the standard moving phase up to
4 men, random placements): every answer must equal the command's JSON object, plus each move's
position after it, which must itself be answered with the flipped value. The mainline must follow
the first best move at every ply and last exactly the plies of a won or lost position. Every kind
of bad input gets a 4xx JSON error naming the problem, and the server answers afterwards; a tier
the database lacks is a 404 naming it and the command that builds it. Books are off
(``books=False``) so that what a shipped book would answer does not change the checks.
"""

from __future__ import annotations

import asyncio
import json
import random
import warnings
from collections import Counter
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2, a fork of httpx; httpx serves as well
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from solver.cli import main
from solver.errors import DatabaseError, MorrisError
from solver.query import open_database, start_position
from solver.rules.notation import Position, format_position
from solver.serve import create_app
from solver.serve.games import MAINLINE_MAX, MAX_POSITION_CHARS, AnswerCache, game_key
from solver.tiers import tier_name


@pytest.fixture(scope="module")
def paths(solved_whole, solved_db) -> dict[str, Path]:
    return {
        "six_men-4": solved_whole("six", ["men=4"]).path,
        "three": solved_whole("three").path,
        "standard": solved_db("standard", 4),
    }


@pytest.fixture(scope="module")
def client(paths):
    with TestClient(create_app(list(paths.values()), books=False)) as c:
        yield c


def query_json(path: Path, positions: list[str]) -> list[dict]:
    """What ``morris query --json --db PATH POSITION...`` prints, one object per position."""
    res = CliRunner().invoke(main, ["query", "--json", "--db", str(path), *positions])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def random_play(path: Path, games: int, plies: int, seed: int) -> list[str]:
    """Positions of ``games`` random games from the start, ``plies`` plies at most each."""
    rng = random.Random(seed)
    out = []
    with open_database(path, book=False) as db:
        for _ in range(games):
            pos = start_position(db.rules)
            for _ in range(rng.randrange(plies + 1)):
                moves = db.analyse(pos).moves
                if not moves:
                    break
                pos = rng.choice(moves).after
            out.append(db.format(pos))
    return out


def random_moving(path: Path, count: int, seed: int) -> list[str]:
    """Random positions of the moving phase in the database's subspaces (3-3 ... 4-4)."""
    rng = random.Random(seed)
    out = []
    with open_database(path, book=False) as db:
        subspaces = db.subspaces()
        for _ in range(count):
            a, b = rng.choice(subspaces)
            pts = rng.sample(range(db.board.n), a + b)
            pos = Position.from_mover(rng.choice("wb"), sum(1 << p for p in pts[:a]), sum(1 << p for p in pts[a:]))
            out.append(db.format(pos))
    return out


def flipped(value: str, plies: int | None) -> tuple[str, int | None]:
    """A move's value for its maker from the value of the position after it."""
    return ("draw", None) if value == "draw" else ("win" if value == "loss" else "loss", plies + 1)


def without_after(answer: dict) -> dict:
    return {**answer, "moves": [{k: v for k, v in m.items() if k != "after"} for m in answer["moves"]]}


@pytest.mark.parametrize(
    "key, make",
    [
        ("six_men-4", lambda p: random_play(p, 40, 14, seed=1)),
        ("three", lambda p: random_play(p, 30, 12, seed=2)),
        ("standard", lambda p: random_moving(p, 40, seed=3)),
    ],
)
def test_every_answer_equals_morris_query(client, paths, key, make):
    positions = make(paths[key])
    hands = [p.split()[2:] not in ([], ["0", "0"]) for p in positions]
    if key != "standard":  # whole games: both phases among the samples
        assert any(hands) and not all(hands), positions
    expected = query_json(paths[key], positions)
    afters = []
    for text, want in zip(positions, expected):
        r = client.get(f"/api/{key}", params={"position": text})
        assert r.status_code == 200, r.text
        got = r.json()
        assert without_after(got) == want
        afters += [(m, m["after"]) for m in got["moves"]]
    # Each move's position after it, looked up in turn, has the value the move was given, flipped.
    for m, after in random.Random(4).sample(afters, min(60, len(afters))):
        r = client.get(f"/api/{key}", params={"position": after})
        assert r.status_code == 200, r.text
        assert flipped(r.json()["value"], r.json()["plies"]) == (m["value"], m["plies"]), (m, r.json())


def test_point_lists_read_like_the_board_string(client):
    a = client.get("/api/six_men-4", params={"position": "W:a1,c1 B:e5 b 2 3"}).json()
    b = client.get("/api/six_men-4", params={"position": a["position"]}).json()
    assert a == b and a["position"].endswith(" b 2 3")


def test_the_listing_names_every_game_and_tier(client, paths):
    games = {g["key"]: g for g in client.get("/api").json()["games"]}
    assert set(games) == set(paths)
    for key, path in paths.items():
        with open_database(path, book=False) as db:
            assert key == game_key(db.rules)
            g = games[key]
            assert g["rules"] == db.rules.describe() and g["board"] == db.board.name
            assert g["source"] == str(path)
            assert g["tiers"] == [tier_name(t) for t in db.tiers()]
            assert g["points"] == list(db.board.points) and len(g["lines"]) == len(db.board.lines)
            start = format_position(start_position(db.rules), db.board)
            assert g["start"] == (None if key == "standard" else start)  # (the moving phase alone)


@pytest.mark.parametrize("key", ["six_men-4", "three"])
def test_the_mainline_follows_the_best_move_to_the_end(client, paths, key):
    games = {g["key"]: g for g in client.get("/api").json()["games"]}
    for text in [games[key]["start"], *random_play(paths[key], 6, 10, seed=5)]:
        params = {"position": text}
        start = client.get(f"/api/{key}", params=params).json()
        r = client.get(f"/api/{key}/mainline", params={**params, "max_plies": 500})
        assert r.status_code == 200, r.text
        line = r.json()
        assert (line["position"], line["value"], line["plies"]) == (start["position"], start["value"], start["plies"])
        here = start
        for step in line["mainline"]:
            best = here["moves"][0]
            assert (step["move"], step["value"], step["plies"], step["after"]) == (
                best["move"], best["value"], best["plies"], best["after"]
            )
            here = client.get(f"/api/{key}", params={"position": step["after"]}).json()
        if line["end"] == "game over":
            assert here["moves"] == [] and here["value"] == "loss" and here["plies"] == 0
        else:
            assert line["end"] == "repetition" and start["value"] == "draw"
            assert step["after"] in [start["position"]] + [s["after"] for s in line["mainline"][:-1]]
        if start["value"] != "draw":  # the winner hurries and the loser holds out: exactly the plies
            assert len(line["mainline"]) == start["plies"] and line["end"] == "game over"


def test_the_mainline_stops_at_its_bound(client, paths):
    start = "......... w 3 3"
    line = client.get("/api/three/mainline", params={"position": start, "max_plies": 2}).json()
    assert len(line["mainline"]) == 2 and line["end"] == "bound"
    capped = client.get("/api/three/mainline", params={"position": start, "max_plies": 10**6}).json()
    assert capped["end"] in ("game over", "repetition") and len(capped["mainline"]) <= MAINLINE_MAX


BAD = [
    # (game, params, status, words the error must contain)
    ("six_men-4", {"position": "W:a1,z9 B: w"}, 400, ["z9"]),
    ("six_men-4", {"position": "W:a1,q B: w"}, 400, ["'q'", "point"]),
    ("six_men-4", {"position": "W:a1,a3,a5,c1,c5 B: b"}, 400, ["5 men", "4"]),
    ("six_men-4", {"position": "W:a1 B:a3 w 3 1"}, 400, ["in hand"]),
    ("six_men-4", {"position": "W:a1,a3,a5 B:c1,c5 w"}, 400, ["ended"]),
    ("six_men-4", {"position": "WWX............. w"}, 400, ["'X'"]),
    ("six_men-4", {"position": "W.. w"}, 400, ["length"]),
    ("six_men-4", {"position": "W:a1 B:a3 x"}, 400, ["side to move"]),
    ("six_men-4", {"position": ""}, 400, ["empty"]),
    ("six_men-4", {}, 400, ["missing", "position"]),
    ("six_men-4", {"position": "W" * 60_000}, 400, ["too long", str(MAX_POSITION_CHARS)]),
    ("six_men-4", {"position": "\x00\x01\xfe\xff binary"}, 400, ["character"]),
    ("six_men-4", {"position": "................ w 4 4", "max_plies": "many"}, 200, []),  # (not read here)
    ("nine", {"position": "......... w 3 3"}, 404, ["nine", "three", "six_men-4"]),
    ("standard", {"position": "W:a1,a4,a7,b2,b4 B:g1,g4,g7 w"}, 404, ["5-3", "morris solve"]),
    ("standard", {"position": "........................ w 9 9"}, 404, ["0-0-9-9", "morris solve"]),
]


@pytest.mark.parametrize("game, params, status, words", BAD)
def test_bad_input_is_a_json_error_and_the_server_goes_on(client, game, params, status, words):
    r = client.get(f"/api/{game}", params=params)
    assert r.status_code == status, r.text
    if status != 200:
        error = r.json()["error"]
        assert "\n" not in error and "Traceback" not in error
        for w in words:
            assert w in error, error
    assert client.get("/api/three", params={"position": "......... w 3 3"}).status_code == 200


def test_junk_made_of_the_notation_pieces_is_never_a_server_error(client):
    """Seeded random strings of the notation's own pieces (colours, point names real and not,
    commas, sides, numbers, board characters): each gets an answer or a 4xx error, never a 500."""
    rng = random.Random(8)
    pieces = ["W:", "B:", "w:", "X:", ",", ",,", "a1", "c5", "e3", "b3", "z9", "a0", "a11", "w", "b", "0", "1",
              "3", "4", "-1", "99", " ", " ", "W", "B", ".", "....", "x", ":", "\t"]
    statuses = Counter()
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14)))
        for key in ("six_men-4", "three"):
            r = client.get(f"/api/{key}", params={"position": text})
            statuses[r.status_code] += 1
            assert r.status_code in (200, 400, 404), (text, r.text)
            if r.status_code != 200:
                assert set(r.json()) == {"error"} and "\n" not in r.json()["error"]
    assert statuses[400] > 100


@pytest.mark.parametrize(
    "url, status, words",
    [
        ("/api/three?position=%FF%FE%00", 400, ["character"]),
        ("/api/three/mainline?position=.........%20w%203%203&max_plies=-1", 400, ["max_plies"]),
        ("/api/three/mainline?position=.........%20w%203%203&max_plies=%C2%B2", 400, ["max_plies"]),
        ("/api/three/mainline?position=W:z1%20B:%20w", 400, ["z1"]),
        ("/api/three/mainline", 400, ["missing"]),
        ("/api/nope/mainline?position=x", 404, ["nope"]),
        ("/nowhere", 404, ["no such page"]),
        ("/api/three/extra/path", 404, ["no such page"]),
    ],
)
def test_bad_urls_are_json_errors(client, url, status, words):
    r = client.get(url)
    assert r.status_code == status, r.text
    for w in words:
        assert w in r.json()["error"]


def test_other_methods_are_refused_as_json(client):
    r = client.post("/api/three", params={"position": "......... w 3 3"})
    assert r.status_code == 405 and "error" in r.json()


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for name in ("app.js", "style.css"):
        assert f"static/{name}" in page.text
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in page.text.replace("http-equiv", "")  # nothing fetched from outside


def test_concurrent_requests_answer_as_sequential_ones(client, paths):
    """Many requests at once over two games (the thread pool, a lock per database): each answer
    as the same request alone gets it."""
    jobs = [("six_men-4", p) for p in random_play(paths["six_men-4"], 30, 12, seed=6)]
    jobs += [("three", p) for p in random_play(paths["three"], 30, 8, seed=7)]
    alone = [client.get(f"/api/{k}", params={"position": p}).json() for k, p in jobs]
    for game in client.app.state.games.values():
        game.answers.clear()  # (else every request below would be answered from the cache)

    async def together():
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as ac:
            rs = await asyncio.gather(*(ac.get(f"/api/{k}", params={"position": p}) for k, p in jobs))
        return [r.json() for r in rs]

    assert asyncio.run(together()) == alone


def test_opening_errors_are_one_line(tmp_path, paths):
    with pytest.raises(DatabaseError, match="no database at"):
        create_app([tmp_path / "missing.h5"], books=False)
    with pytest.raises(MorrisError, match="two databases of the rule set 'three'"):
        create_app([paths["three"], paths["three"]], books=False)
    with pytest.raises(MorrisError, match="nothing to serve"):
        create_app([], books=False)


def test_the_command_refuses_before_serving(tmp_path):
    for args, status, words in [
        (["--db", str(tmp_path / "missing.h5")], 1, ["no database at"]),
        (["--no-books"], 2, ["nothing to serve", "morris solve"]),
    ]:
        res = CliRunner().invoke(main, ["serve", *args])
        assert res.exit_code == status, res.output
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
        for w in words:
            assert w in res.stderr, res.stderr


def test_the_shipped_books_answer_what_no_database_covers(paths):
    """With books on, each shipped book is a game of its own where no --db covers its rule set,
    and a database lacking the placing tiers borrows them from its rule set's book, as ``morris
    query`` does."""
    from solver.books import shipped_books

    shipped = {}
    for path in shipped_books():
        with open_database(path) as db:
            shipped[game_key(db.rules)] = path
    assert {"standard", "six", "three"} <= set(shipped)
    with TestClient(create_app([paths["three"]], books=True)) as c:
        games = {g["key"]: g for g in c.get("/api").json()["games"]}
        # three's --db covers its rule set: its book is not a game of its own
        assert set(games) == {"three", *shipped} and games["three"]["source"] == str(paths["three"])
        assert all(games[k]["source"] == "book" for k in shipped if k != "three")
    if "standard" in shipped:  # the 4-men moving phase, and the book's start
        start = "........................ w 9 9"
        with TestClient(create_app([paths["standard"]], books=True)) as c:
            r = c.get("/api/standard", params={"position": start})
            assert r.status_code == 200, r.text
            assert without_after(r.json()) == query_json(paths["standard"], [start])[0]
            assert c.get("/api").json()["games"][0]["source"] == str(paths["standard"])


def test_answers_are_kept_and_the_oldest_go_first(client, paths):
    game = client.app.state.games["three"]
    game.answers.clear()
    lists = "W:b2 B:a1 w 2 2"
    first = client.get("/api/three", params={"position": lists}).json()
    assert game.answers.get(lists) is game.answers.get(first["position"])  # kept under both spellings
    assert client.get("/api/three", params={"position": first["position"]}).json() == first
    assert without_after(first) == query_json(paths["three"], [lists])[0]
    cache = AnswerCache(size=2)
    for text in ("a", "b", "a", "c"):
        cache.put(text, {"position": text})
    assert cache.get("b") is None and cache.get("a") == {"position": "a"} and cache.get("c") is not None
