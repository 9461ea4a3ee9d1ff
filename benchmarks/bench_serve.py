"""Load on ``morris serve``: many concurrent clients on the loopback address, each asking for the
value and moves of random positions, for a fixed time.

    python benchmarks/bench_serve.py --db data/standard.h5                  # 100 clients, 30 s
    python benchmarks/bench_serve.py --db /tmp/six.h5 --clients 20 --seconds 5
    python benchmarks/bench_serve.py --url http://127.0.0.1:8000/ --game standard --json

The server is started here (``morris serve --db DB --no-books`` on a free loopback port) unless
--url names a running one. The positions are drawn first, by random play from the start through
the API itself (every position of each random game), or, where the game's start is not answered
(a database of the moving phase only), by random placements in its listed subspaces. Then
``--clients`` coroutines on one ``httpx.AsyncClient`` (one connection each) ask for random
positions of that pool until ``--seconds`` have passed (the first ``--warmup`` seconds are not
counted). The server keeps its answers (``AnswerCache``, 10,000 a game), so a pool much smaller
than the requests measures mostly kept answers, as the opening's traffic would; a pool as large as
the requests (--positions) measures the lookups themselves. Prints requests per second, the latency percentiles of the answers, the errors (any
answer but 200, or a failed request) and the CPU seconds the client itself used: the client
shares the machine's cores with the server, so its share bounds what the figures can show.
Results go to benchmarks/RESULTS.md by hand, with the machine and date. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import resource
import statistics
import sys
import time
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.serve.launch import running_server  # noqa: E402


def draw_positions(client: httpx.Client, game: dict, count: int, rng: random.Random) -> list[str]:
    """``count`` positions of ``game``: every position of random games from the start, or
    random placements in its subspaces where the start is not answered."""
    key = game["key"]
    if game["start"] is None:
        return random_placements(game, count, rng)
    out: list[str] = []
    while len(out) < count:
        position = game["start"]
        for _ in range(rng.randrange(1, 4 * game["men"] + 40)):
            answer = client.get(f"api/{key}", params={"position": position}).json()
            out.append(answer["position"])
            if not answer["moves"] or len(out) >= count:
                break
            position = rng.choice(answer["moves"])["after"]
    return out


def random_placements(game: dict, count: int, rng: random.Random) -> list[str]:
    """Positions of the moving phase: a men of the side to move and b of the other on random
    points, for subspaces a-b of the listing."""
    subspaces = [tuple(map(int, t.split("-"))) for t in game["tiers"] if t.count("-") == 1]
    n = len(game["points"])
    out = []
    for _ in range(count):
        a, b = rng.choice(subspaces)
        side = rng.choice("wb")
        points = rng.sample(range(n), a + b)
        mover, other = ("W", "B") if side == "w" else ("B", "W")
        cells = ["."] * n
        for i in points[:a]:
            cells[i] = mover
        for i in points[a:]:
            cells[i] = other
        out.append(f"{''.join(cells)} {side}")
    return out


async def load(url: str, path: str, positions: list[str], clients: int, seconds: float, warmup: float, seed: int):
    """(latencies in seconds of the counted answers, errors by kind, counted seconds)."""
    latencies: list[float] = []
    errors: Counter = Counter()
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    start = time.perf_counter()
    counted_from, end = start + warmup, start + warmup + seconds

    async def client_loop(rng: random.Random):
        # A client of its own per coroutine: one shared pool of 100 connections costs httpx
        # ~10 ms of CPU per request (measured), more than the server's work.
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30.0) as ac:
            await ask(ac, rng)

    async def ask(ac: httpx.AsyncClient, rng: random.Random):
        while True:
            now = time.perf_counter()
            if now >= end:
                return
            t0 = now
            try:
                r = await ac.get(path, params={"position": rng.choice(positions)})
                status = r.status_code
            except httpx.HTTPError as e:
                status = type(e).__name__
            t1 = time.perf_counter()
            if t0 >= counted_from and t1 <= end:
                if status == 200:
                    latencies.append(t1 - t0)
                else:
                    errors[str(status)] += 1

    await asyncio.gather(*(client_loop(random.Random(seed + i)) for i in range(clients)))
    return latencies, errors, seconds


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def run(url: str, args) -> dict:
    rng = random.Random(args.seed)
    with httpx.Client(base_url=url, timeout=30.0) as client:
        games = {g["key"]: g for g in client.get("api").json()["games"]}
        key = args.game or next(iter(games))
        if key not in games:
            raise SystemExit(f"no game {key!r} at {url} (it serves: {', '.join(games)})")
        t0 = time.perf_counter()
        positions = draw_positions(client, games[key], args.positions, rng)
        drawn = time.perf_counter() - t0
    path = f"api/{key}" + ("/mainline" if args.endpoint == "mainline" else "")
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    latencies, errors, seconds = asyncio.run(load(url, path, positions, args.clients, args.seconds, args.warmup, args.seed))
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    latencies.sort()
    done = len(latencies) + sum(errors.values())
    return {
        "game": key,
        "source": games[key]["source"],
        "endpoint": args.endpoint,
        "clients": args.clients,
        "seconds": seconds,
        "positions": len(set(positions)),
        "positions_seconds": round(drawn, 2),
        "requests": done,
        "requests_per_second": round(done / seconds, 1),
        "errors": dict(errors),
        "latency_ms": {
            name: round(1000 * percentile(latencies, q), 2)
            for name, q in (("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("max", 1.0))
        },
        "latency_mean_ms": round(1000 * statistics.fmean(latencies), 2) if latencies else None,
        "client_cpu_seconds": round((cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime), 1),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", type=Path, help="serve this database (morris serve --db DB --no-books)")
    where.add_argument("--url", help="a running server's base URL, e.g. http://127.0.0.1:8000/")
    p.add_argument("--game", help="the game's key (default: the server's first game)")
    p.add_argument("--endpoint", choices=["position", "mainline"], default="position")
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--warmup", type=float, default=2.0, help="seconds of load not counted, first")
    p.add_argument("--positions", type=int, default=2000, help="positions drawn for the pool")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object")
    args = p.parse_args()
    url = args.url if args.url else None
    with running_server([args.db]) if url is None else nullcontext(url) as base:
        result = run(base if base.endswith("/") else base + "/", args)
    if args.json:
        print(json.dumps(result))
        return
    lat = result["latency_ms"]
    print(f"game {result['game']} ({result['source']}), GET /{'api/<game>/mainline' if args.endpoint == 'mainline' else 'api/<game>'}")
    print(f"{result['clients']} clients for {result['seconds']:g} s over {result['positions']} distinct positions")
    print(f"requests: {result['requests']} ({result['requests_per_second']:.1f}/s), errors: {sum(result['errors'].values())} {result['errors'] or ''}".rstrip())
    print(f"latency ms: p50 {lat['p50']}, p90 {lat['p90']}, p99 {lat['p99']}, max {lat['max']}")
    print(f"client CPU: {result['client_cpu_seconds']} s ({result['machine']})")


if __name__ == "__main__":
    main()
