"""A live consumer-group member, in a process of its own, as a real application is.

    python -m tests.integration.live_member BOOTSTRAP TOPIC GROUP CLIENT_ID

Joins GROUP, polls TOPIC until SIGTERM, then leaves. The tests never run a polling client in
their own process: streamctl forks its Kafka calls (backends/kafka/isolated.py), and a child forked while
a foreign librdkafka thread holds one of its locks waits on that lock for good (a CI run's
`snapshot` hung 130 s that way).
"""

from __future__ import annotations

import signal
import sys
import threading

from confluent_kafka import Consumer


def main(bootstrap: str, topic: str, group: str, client_id: str) -> None:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "client.id": client_id,
                         "auto.offset.reset": "earliest", "log_level": "0"})
    consumer.subscribe([topic])
    while not stop.is_set():
        consumer.poll(0.2)
    consumer.close()


if __name__ == "__main__":
    main(*sys.argv[1:5])
