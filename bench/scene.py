"""The large cluster the benchmarks measure: many topics, partitions and groups with commits."""

from __future__ import annotations

import os
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def populate(bootstrap: str, topics: int, partitions: int, groups: int) -> None:
    cfg = {"bootstrap.servers": bootstrap, "log_level": "0"}
    admin = AdminClient(cfg)
    names = [f"bench-{i:04d}" for i in range(topics)]
    for chunk in range(0, topics, 50):
        futures = admin.create_topics([NewTopic(n, partitions, 3) for n in names[chunk:chunk + 50]],
                                      operation_timeout=60, request_timeout=60)
        for future in futures.values():
            future.result(timeout=120)
    time.sleep(2)
    producer = Producer({**cfg, "linger.ms": "20"})
    for name in names:
        for p in range(partitions):
            for i in range(20):
                producer.produce(name, f"r{i}".encode(), partition=p)
        producer.poll(0)
    producer.flush(120)
    add_groups(bootstrap, 0, groups, topics, partitions)


def add_groups(bootstrap: str, start: int, end: int, topics: int, partitions: int) -> None:
    """Groups bench-group-START .. END-1, each committed on every partition of one bench topic."""
    cfg = {"bootstrap.servers": bootstrap, "log_level": "0"}
    for g in range(start, end):
        topic = f"bench-{g % topics:04d}"
        consumer = Consumer({**cfg, "group.id": f"bench-group-{g:04d}", "enable.auto.commit": False})
        consumer.commit(offsets=[TopicPartition(topic, p, 5 + p) for p in range(partitions)],
                        asynchronous=False)
        consumer.close()


def wait_until_quiet(pids: list[int], busy: float = 0.25, window: float = 5.0, limit: float = 120.0) -> tuple[float, float]:
    """Wait until these processes together use less than `busy` of one core over `window`
    seconds, for at most `limit` seconds. A just-populated cluster keeps its brokers busy for a
    minute or more (leader balancing, loading the offsets topic, the JIT), and a measurement
    taken then measures that churn. Returns (seconds waited, cores used in the last window)."""
    started = time.monotonic()
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    while True:
        before = _cpu_ticks(pids)
        time.sleep(window)
        used = (_cpu_ticks(pids) - before) / ticks_per_second / window
        waited = time.monotonic() - started
        if used < busy or waited >= limit:
            return waited, used


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue  # gone
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total
