#!/usr/bin/env python3
"""The floor for `streamctl check`'s Kafka part: a minimal Python process that sends the same
Kafka requests check needs, and nothing else (no config, rules, history or rendering).

    python -m bench.kafka_floor HOST:PORT,...

Metadata (brokers, partitions, leaders, ISR), the group listing, the committed offsets of every
group (one OffsetFetch per group, 32 at a time, as check issues them), and the log-end offsets
of every partition (one batched ListOffsets). Prints how many of each it read.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

TIMEOUT = 30


def main(bootstrap: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": "0"})
    listing = admin.list_consumer_groups(request_timeout=TIMEOUT)
    md = admin.list_topics(timeout=TIMEOUT)
    partitions = [TopicPartition(t, p) for t, topic in md.topics.items() for p in topic.partitions]
    groups = [g.group_id for g in listing.result(timeout=TIMEOUT).valid]

    def committed(group: str):
        request = [ConsumerGroupTopicPartitions(group)]
        return admin.list_consumer_group_offsets(request, request_timeout=TIMEOUT)[group].result(timeout=TIMEOUT)

    with ThreadPoolExecutor(max_workers=32) as pool:
        offsets = list(pool.map(committed, groups))
        futures = admin.list_offsets({tp: OffsetSpec.latest() for tp in partitions}, request_timeout=TIMEOUT)
        ends = {tp: f.result(timeout=TIMEOUT).offset for tp, f in futures.items()}
    print(f"{len(md.brokers)} brokers, {len(partitions)} partitions, {len(groups)} groups, "
          f"{sum(len(o.topic_partitions) for o in offsets)} committed offsets, {len(ends)} log ends")


if __name__ == "__main__":
    main(sys.argv[1])
