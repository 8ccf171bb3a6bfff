"""Append realistic access-log lines (Apache/nginx "combined" format) at a steady rate.

    python -m streamctl.agents.loadgen --file access.log --rate 20 [--count N] [--seed S]

The demo's web server: the Flume agent tails the file. Lines are written in small batches
(about ten a second), each batch in one write so a tailer never sees half a line.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

PATHS = ["/", "/index.html", "/products", "/products/{id}", "/cart", "/checkout", "/search?q={word}",
         "/api/v1/items/{id}", "/api/v1/orders", "/static/app.js", "/static/style.css",
         "/images/{id}.png", "/login", "/logout", "/account"]
WORDS = ["kafka", "flume", "spark", "shoes", "lamp", "chair", "coffee", "book"]
METHODS = ["GET"] * 8 + ["POST", "PUT", "DELETE"]
STATUSES = [200] * 40 + [201, 204, 301, 302, 304, 304, 400, 401, 403, 404, 404, 404, 500, 502, 503]
AGENTS = [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "curl/8.5.0",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
]
REFERRERS = ["-", "-", "https://www.example.com/", "https://search.example.org/?q=shop"]
USERS = ["-"] * 9 + ["alice", "bob"]


def access_line(rng: random.Random, when: datetime) -> str:
    """One line in the combined log format."""
    ip = f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    path = rng.choice(PATHS).format(id=rng.randint(1, 5000), word=rng.choice(WORDS))
    status = rng.choice(STATUSES)
    size = 0 if status in (204, 304) else rng.randint(200, 60_000)
    stamp = when.strftime("%d/%b/%Y:%H:%M:%S %z")
    return (f'{ip} - {rng.choice(USERS)} [{stamp}] "{rng.choice(METHODS)} {path} HTTP/1.1" {status} {size} '
            f'"{rng.choice(REFERRERS)}" "{rng.choice(AGENTS)}"')


def run(file: Path, rate: float, count: int | None = None, seed: int | None = None,
        tick: float = 0.1) -> int:
    """Write `rate` lines a second until `count` lines (forever when None); returns lines written."""
    rng = random.Random(seed)
    file.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    started = time.monotonic()
    with open(file, "a", encoding="utf-8") as out:
        while count is None or written < count:
            due = int((time.monotonic() - started) * rate) + 1
            if count is not None:
                due = min(due, count)
            if due > written:
                now = datetime.now(UTC)
                out.write("".join(access_line(rng, now) + "\n" for _ in range(due - written)))
                out.flush()
                written = due
            time.sleep(tick)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m streamctl.agents.loadgen", description=__doc__.split("\n")[0])
    parser.add_argument("--file", required=True, type=Path, help="access log to append to")
    parser.add_argument("--rate", type=float, default=10.0, help="lines per second (default 10)")
    parser.add_argument("--count", type=int, default=None, help="stop after this many lines")
    parser.add_argument("--seed", type=int, default=None, help="random seed (repeatable output)")
    args = parser.parse_args(argv)
    if args.rate <= 0:
        parser.error("--rate must be positive")
    if args.count is not None and args.count < 0:
        parser.error("--count must not be negative")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        run(args.file, args.rate, args.count, args.seed)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"loadgen: error: {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
