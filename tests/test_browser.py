"""The web page of ``morris serve`` in a real browser: headless Chromium (Debian's ``chromium``,
/usr/bin/chromium) driven by Playwright, against the real command serving two whole-game
databases (the six board with 4 men, Three Men's Morris) and the standard moving phase up to 4
men on a loopback port.

Moves are played by clicking the board's points (placements, moves, a removal), pasted into the
position field, and picked from the move list; after each, what the page shows (the position, its
value and plies, every move grouped with its value and plies, in order) must equal ``morris query
--json`` of the same position. The address must reproduce the position on reload, and back and
forward must step through the positions played. A missing browser or Playwright fails the test
with what to install: it is never skipped.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner

from solver.cli import main
from solver.query import open_database, start_position
from solver.rules.notation import format_point_lists
from solver.serve.launch import running_server

CHROMIUM = Path("/usr/bin/chromium")
# As the machine's own probe starts it: no sandbox as root, nothing fetched in the background.
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SIX = "six_men-4"

# Not in the default run, which must pass where no browser is installed: `pytest -m browser`.
pytestmark = pytest.mark.browser

SHOWN = """() => ({
  position: document.getElementById('position').value,
  value: document.getElementById('status').dataset.value,
  plies: document.getElementById('status').dataset.plies,
  status: document.getElementById('status').textContent,
  moves: [...document.querySelectorAll('#moves button.move')].map(b => ({
    move: b.dataset.move, value: b.dataset.value, plies: b.dataset.plies,
    group: b.closest('.group').dataset.value, badge: b.querySelector('.badge').textContent,
  })),
  points: document.querySelectorAll('#board g[data-point]').length,
  lines: document.querySelectorAll('#board line').length,
})"""


def need_browser():
    """Fail, saying what to install, where Chromium or Playwright is missing."""
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"no Chromium at {CHROMIUM}: apt-get install --no-install-recommends chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("no playwright Python package: pip install -e '.[test]' (no 'playwright install' needed)")
    if missing:
        pytest.fail("the browser test needs a browser; " + "; ".join(missing), pytrace=False)


@pytest.fixture(scope="module")
def server(solved_whole, solved_db):
    paths = {
        SIX: solved_whole("six", ["men=4"]).path,
        "three": solved_whole("three").path,
        "standard": solved_db("standard", 4),  # the moving phase alone: no start to show
    }
    with running_server(list(paths.values())) as url:
        yield url, paths


@pytest.fixture(scope="module")
def browser():
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    p = context.new_page()
    p.set_default_timeout(15_000)
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    # (a 400 or 404 the page asked for and shows is logged as a failed load: not a page error)
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None)
    yield p
    context.close()
    assert not errors, errors


def query_json(path: Path, position: str) -> dict:
    res = CliRunner().invoke(main, ["query", "--json", "--db", str(path), position])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def wait_for(page, position: str) -> None:
    page.wait_for_function(
        "p => document.body.dataset.ready && document.getElementById('position').value === p", arg=position
    )


def check_against_query(page, path: Path) -> dict:
    """What the page shows equals ``morris query --json`` of the position it shows."""
    shown = page.evaluate(SHOWN)
    want = query_json(path, shown["position"])
    assert shown["position"] == want["position"]
    assert (shown["value"], shown["plies"]) == (want["value"], "" if want["plies"] is None else str(want["plies"]))
    words = "draw" if want["value"] == "draw" else f"{want['value']} in {want['plies']}"
    if want["plies"] != 0:
        assert words in shown["status"], shown["status"]
    # The groups (winning, drawing, losing) in the API's order: the command's order.
    assert [(m["move"], m["value"], m["plies"], m["group"]) for m in shown["moves"]] == [
        (m["move"], m["value"], "" if m["plies"] is None else str(m["plies"]), m["value"]) for m in want["moves"]
    ]
    for m in shown["moves"]:
        assert m["badge"] == ("draw" if m["value"] == "draw" else f"{m['value']} {m['plies']}")
    # Where each move leads, from the Python API (the command prints no positions after).
    with open_database(path, book=False) as db:
        after = {m.notation: db.format(m.after) for m in db.analyse(want["position"]).moves}
    for m in want["moves"]:
        m["after"] = after[m["move"]]
    return want


def clicks(notation: str) -> list[str]:
    body, *removed = notation.split("x")
    return [*body.split("-"), *removed]


def play_by_clicking(page, move: dict) -> None:
    for point in clicks(move["move"]):
        page.click(f'#board g[data-point="{point}"]')
    wait_for(page, move["after"])


def position_with_a_removal(path: Path, seed: int) -> tuple[str, str]:
    """A moving-phase position (point lists) reached by random play with a move that removes a
    man, and that move."""
    rng = random.Random(seed)
    with open_database(path, book=False) as db:
        while True:
            pos = start_position(db.rules)
            for _ in range(40):
                an = db.analyse(pos)
                if not an.moves:
                    break
                removing = [m for m in an.moves if "-" in m.notation and "x" in m.notation]
                if removing and not (pos.hand_white or pos.hand_black):
                    return format_point_lists(pos, db.board), rng.choice(removing).notation
                pos = rng.choice(an.moves).after


def test_moves_played_by_clicking_show_what_morris_query_says(server, page, tmp_path):
    url, paths = server
    six = paths[SIX]
    page.goto(url + f"?game={SIX}")
    start = query_json(six, "................ w 4 4")
    wait_for(page, start["position"])
    seen = [check_against_query(page, six)]
    assert page.evaluate(SHOWN)["points"] == 16
    rng = random.Random(11)
    for _ in range(6):  # placements, by clicking
        move = rng.choice(seen[-1]["moves"])
        play_by_clicking(page, move)
        seen.append(check_against_query(page, six))
    # A position pasted as point lists, then a move with a removal: three clicks.
    text, removing = position_with_a_removal(six, seed=12)
    page.fill("#position", text)
    page.press("#position", "Enter")
    wait_for(page, query_json(six, text)["position"])
    seen.append(check_against_query(page, six))
    move = next(m for m in seen[-1]["moves"] if m["move"] == removing)
    *first, removed = clicks(removing)
    for point in first:
        page.click(f'#board g[data-point="{point}"]')
    assert page.get_attribute(f'#board g[data-point="{removed}"]', "class") == "point target"
    page.click(f'#board g[data-point="{removed}"]')
    wait_for(page, move["after"])
    seen.append(check_against_query(page, six))
    page.screenshot(path=tmp_path / "page.png")
    assert (tmp_path / "page.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # The address reproduces the position; back and forward step through the positions played.
    query = parse_qs(urlsplit(page.url).query)
    assert query == {"game": [SIX], "position": [seen[-1]["position"]]}
    page.reload()
    wait_for(page, seen[-1]["position"])
    check_against_query(page, six)
    for back in (seen[-2], seen[-3], seen[-4]):
        page.go_back()
        wait_for(page, back["position"])
        check_against_query(page, six)
    page.go_forward()
    wait_for(page, seen[-3]["position"])
    assert parse_qs(urlsplit(page.url).query)["position"] == [seen[-3]["position"]]


def test_the_chooser_the_move_list_and_bad_input(server, page):
    url, paths = server
    page.goto(url + f"?game={SIX}")
    wait_for(page, "................ w 4 4")
    page.select_option("#game", "three")
    wait_for(page, "......... w 3 3")
    shown = page.evaluate(SHOWN)
    assert (shown["points"], shown["lines"]) == (9, 16)  # 8 lines of 3 points: 2 segments each
    first = check_against_query(page, paths["three"])
    # A move picked from the list.
    move = first["moves"][-1]
    page.click(f'#moves button[data-move="{move["move"]}"]')
    wait_for(page, move["after"])
    check_against_query(page, paths["three"])
    # A bad position is refused with the API's message; the position shown stays.
    page.fill("#position", "W:a1,z9 B: b")
    page.press("#position", "Enter")
    page.wait_for_function("() => document.getElementById('error').textContent.includes('z9')")
    assert page.evaluate(SHOWN)["value"] == query_json(paths["three"], move["after"])["value"]
    assert parse_qs(urlsplit(page.url).query)["position"] == [move["after"]]
    # A database of the moving phase: the empty standard board, then a pasted position.
    page.select_option("#game", "standard")
    page.wait_for_function("() => document.getElementById('error').textContent.includes('moving phase only')")
    assert page.evaluate(SHOWN)["points"] == 24 and page.evaluate(SHOWN)["lines"] == 32
    text = "W:a1,d2,g1,g4 B:a4,b4,f2,f4 b"
    page.fill("#position", text)
    page.press("#position", "Enter")
    wait_for(page, query_json(paths["standard"], text)["position"])
    check_against_query(page, paths["standard"])
    assert parse_qs(urlsplit(page.url).query)["game"] == ["standard"]
    # A link with a bad position shows the start and says why.
    page.goto(url + "?game=three&position=WWWW")
    wait_for(page, "......... w 3 3")
    assert "length" in page.text_content("#error")
