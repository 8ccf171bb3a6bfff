"""The KRaft sandbox's demo consumer of the new group protocol (KIP-848, Kafka 4): reads the
Streams app's counts per status code (topic weblog-status-counts) as the group
`weblog-status-watch` with group.protocol=consumer, and logs the latest counts once a minute.
Offsets are committed every 5 s, so the group shows a little lag between commits.

    python -m streamctl.jobs.status_watch --bootstrap-servers HOST:PORT [--topic T] [--group G]
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time

GROUP = "weblog-status-watch"
TOPIC = "weblog-status-counts"
REPORT_EVERY = 60.0  # seconds


def run(bootstrap_servers: str, topic: str, group: str, stop: threading.Event) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": group,
                         "group.protocol": "consumer", "client.id": group,
                         "auto.offset.reset": "earliest", "auto.commit.interval.ms": 5000})

    def assigned(_consumer, partitions) -> None:
        print(f"assigned {len(partitions)} partition(s) (pid {os.getpid()})", flush=True)

    consumer.subscribe([topic], on_assign=assigned)
    counts: dict[str, str] = {}
    reported = time.monotonic()
    try:
        while not stop.is_set():
            message = consumer.poll(0.5)
            if message is not None and not message.error() and (key := message.key()) is not None:
                counts[key.decode(errors="replace")] = (message.value() or b"").decode(errors="replace")
            if time.monotonic() - reported >= REPORT_EVERY:
                print("counts " + " ".join(f"{k}={v}" for k, v in sorted(counts.items())), flush=True)
                reported = time.monotonic()
    finally:
        consumer.close()  # leaves the group: it shows EMPTY at once


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--topic", default=TOPIC)
    parser.add_argument("--group", default=GROUP)
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        run(args.bootstrap_servers, args.topic, args.group, stop)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
