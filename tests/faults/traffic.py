"""Groups consuming and committing while the brokers restart, in a process of its own.

    python -m tests.faults.traffic BOOTSTRAP TOPIC GROUP[,GROUP...] SECONDS

A producer writes ~50 records/s; one consumer per group (classic protocol, the group handle a
consumer keeps) commits what it consumed every second. Ends after SECONDS or at SIGTERM.
"""

from __future__ import annotations

import signal
import sys
import threading
import time

from confluent_kafka import Consumer, Producer


def produce(bootstrap: str, topic: str, stop: threading.Event) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "log_level": "0", "linger.ms": "5"})
    count = 0
    while not stop.is_set():
        producer.produce(topic, f"record {count}".encode())
        producer.poll(0)
        count += 1
        time.sleep(0.02)
    producer.flush(10)


def consume(bootstrap: str, topic: str, group: str, stop: threading.Event) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "log_level": "0",
                         "enable.auto.commit": "false", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    last_commit = time.monotonic()
    while not stop.is_set():
        consumer.poll(0.2)
        if time.monotonic() - last_commit >= 1.0:
            try:
                consumer.commit(asynchronous=False)
            except Exception:  # noqa: BLE001, S110 - nothing consumed yet, or a coordinator moving: next second
                pass
            last_commit = time.monotonic()
    consumer.close()


def main(bootstrap: str, topic: str, groups: str, seconds: str) -> None:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    workers = [threading.Thread(target=produce, args=(bootstrap, topic, stop))]
    workers += [threading.Thread(target=consume, args=(bootstrap, topic, g, stop)) for g in groups.split(",")]
    for worker in workers:
        worker.start()
    stop.wait(float(seconds))
    stop.set()
    for worker in workers:
        worker.join(30)


if __name__ == "__main__":
    main(*sys.argv[1:5])
