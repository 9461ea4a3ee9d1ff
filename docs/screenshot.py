"""The README's picture of the web page: ``morris serve --db DB`` started on a loopback port, the
page opened in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) at a
position, a man selected so that its moves are marked, and the page saved as a PNG.

    python docs/screenshot.py --db data/standard.h5 --position "W:a1,d2,d3,f4 B:a4,b4,g7 b 5 5" --select d7
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.serve.launch import running_server  # noqa: E402

FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--position", required=True, help="the position shown (either notation)")
    p.add_argument("--select", help="a point to click first (a man, whose moves are then marked)")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "serve.png")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    args = p.parse_args()
    from playwright.sync_api import sync_playwright

    with running_server([args.db]) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 980, "height": 640})
        games = page.request.get(url + "api").json()["games"]
        page.goto(f"{url}?game={games[0]['key']}&position={quote(args.position)}")
        page.wait_for_function("() => document.body.dataset.ready && !document.getElementById('error').textContent")
        if args.select:
            page.click(f'#board g[data-point="{args.select}"]')
        page.screenshot(path=args.out, full_page=False)
        browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
