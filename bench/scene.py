"""The large cluster the benchmarks measure: many topics, partitions and groups with commits."""

from __future__ import annotations

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
    for g in range(groups):
        topic = names[g % topics]
        consumer = Consumer({**cfg, "group.id": f"bench-group-{g:04d}", "enable.auto.commit": False})
        consumer.commit(offsets=[TopicPartition(topic, p, 5 + p) for p in range(partitions)],
                        asynchronous=False)
        consumer.close()
