"""Realistic access-log lines for the Spark job's tests (the Flume load generator is not needed).

Lines are Apache "combined" format with chosen event times, so a test knows exactly which
event-time window each line falls in and what the job must count for it.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from confluent_kafka import Consumer, Producer

PATHS = ["/", "/index.html", "/products/42", "/cart", "/api/v1/orders", "/static/app.js",
         "/login", "/search?q=kafka"]
STATUSES = [200] * 10 + [201, 204, 301, 302, 304, 400, 401, 403, 404, 404, 500, 502, 503]
AGENTS = ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
          "curl/8.5.0", "Googlebot/2.1 (+http://www.google.com/bot.html)"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def access_line(when: float, host: str, method: str, path: str, status: int, size: int | None,
                referer: str = "-", agent: str = "curl/8.5.0") -> str:
    t = datetime.fromtimestamp(when, UTC)
    stamp = f"{t.day:02d}/{MONTHS[t.month - 1]}/{t.year}:{t:%H:%M:%S} +0000"
    return (f'{host} - - [{stamp}] "{method} {path} HTTP/1.1" {status} '
            f'{"-" if size is None else size} "{referer}" "{agent}"')


@dataclass
class Batch:
    """Lines produced for one window, and what the job must count for it."""

    window_start: float
    lines: list[str] = field(default_factory=list)
    requests: Counter = field(default_factory=Counter)  # status class -> lines
    bytes: Counter = field(default_factory=Counter)  # status class -> bytes


def window_lines(window_start: float, count: int, window_seconds: int = 30, seed: int = 7) -> Batch:
    """`count` varied lines whose event times all fall in [window_start, window_start + window)."""
    rng = random.Random(seed)
    batch = Batch(window_start)
    for _i in range(count):
        status = rng.choice(STATUSES)
        size = None if status in (204, 304) else rng.randint(120, 48_000)
        when = window_start + rng.uniform(0, window_seconds - 1)
        batch.lines.append(access_line(
            when, f"203.0.113.{rng.randint(1, 254)}", rng.choice(["GET"] * 5 + ["POST", "HEAD"]),
            rng.choice(PATHS), status, size, rng.choice(["-", "https://example.org/"]), rng.choice(AGENTS)))
        cls = f"{status // 100}xx"
        batch.requests[cls] += 1
        batch.bytes[cls] += size or 0
    return batch


def produce_lines(bootstrap: str, topic: str, lines: list[str]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "log_level": "0", "linger.ms": "5"})
    for line in lines:
        producer.produce(topic, line.encode())
    assert producer.flush(30) == 0, "lines left unsent"


def next_window(watermark_ms: int | None, window_seconds: int = 30, ahead: float = 120.0) -> float:
    """A window start ahead of both the clock and the job's watermark (so no line is late)."""
    floor = max(time.time(), (watermark_ms or 0) / 1000.0) + ahead
    return float((int(floor) // window_seconds + 1) * window_seconds)


def read_stats(bootstrap: str, topic: str, window_start: float, expected_total: int,
               timeout: float = 120.0) -> list[dict]:
    """Result rows of one window from the output topic, polled until their requests add up."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"stats-reader-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False, "log_level": "0"})
    wanted = datetime.fromtimestamp(window_start, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    rows: list[dict] = []
    deadline = time.monotonic() + timeout
    try:
        consumer.subscribe([topic])
        while time.monotonic() < deadline and sum(r["requests"] for r in rows) < expected_total:
            for message in consumer.consume(num_messages=500, timeout=1.0):
                if message.error():
                    continue
                row = json.loads(message.value())
                if row["window_start"].startswith(wanted):
                    rows.append(row)
    finally:
        consumer.close()
    return rows


def running_job_settings(sandbox, job: str):
    """The sandbox context's settings of `job` (checkpoint dir, UI URL, progress file), once
    its first batch is committed."""
    from streamctl.backends.spark import read_checkpoint
    from streamctl.config import load_config

    settings = load_config(sandbox.config_path).context("sandbox").spark.jobs[job]
    sandbox.wait_until(lambda: read_checkpoint(settings.checkpoint_dir).latest_committed is not None,
                       timeout=90, what="the job's first committed batch")
    return settings
