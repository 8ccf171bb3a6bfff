#!/usr/bin/env python3
"""The floor for `streamctl topics read -o json`: a minimal Python process that reads the same
records with the same client and prints the same JSON Lines, and nothing else (no config,
filters, masking, limits or checks).

    python -m bench.records_floor HOST:PORT,... TOPIC COUNT

Assigns every partition from its beginning (no group joined), consumes in batches of 1,000 (the
last one asking for what is left, so that it does not wait out consume's timeout) with
librdkafka's prefetch as streamctl sets it (backends/kafka/records.PREFETCH), and writes a
batch's lines at once (a write a record costs a system call each under PYTHONUNBUFFERED), one
line a record: topic, partition, offset, timestamp and its type, key and value as JSON strings,
headers (the fields `topics read -o json` writes). Stops after COUNT records.
"""

from __future__ import annotations

import json
import sys
import uuid

from confluent_kafka import Consumer, TopicPartition

from streamctl.backends.kafka.records import PREFETCH, TIMESTAMP_TYPES

TIMEOUT = 30


def main(bootstrap: str, topic: str, count: str) -> None:
    string = json.encoder.encode_basestring
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"floor-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": "false", "log_level": "0", **PREFETCH})
    partitions = sorted(consumer.list_topics(topic, timeout=TIMEOUT).topics[topic].partitions)
    consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
    left = int(count)
    while left > 0:
        lines = []
        for message in consumer.consume(min(1000, left), 1.0):
            if message.error():
                continue
            key, value = message.key(), message.value()
            kind, stamp = message.timestamp()
            lines.append(f'{{"topic": {string(message.topic())}, "partition": {message.partition()}, '
                         f'"offset": {message.offset()}, "timestamp": {stamp}, '
                         f'"timestamp_type": "{TIMESTAMP_TYPES.get(kind, "none")}", '
                         f'"key": {"null" if key is None else string(key.decode())}, '
                         f'"value": {"null" if value is None else string(value.decode())}, "headers": []}}\n')
        sys.stdout.write("".join(lines[:left]))
        left -= len(lines)


if __name__ == "__main__":
    main(*sys.argv[1:4])
