#!/usr/bin/env python3
"""The floor of `streamctl reassign plan`: a minimal Python process sending the Kafka requests
the plan needs and nothing else (bench/reassign_plan.py times it as a whole process).

    python -m bench.reassign_floor HOST:PORT,...

Imports kafka-python's admin client, bootstraps, sends one Metadata request for every topic and
every broker's DescribeLogDirs together (as ReassignAdmin.layout_and_sizes does), and prints the
number of partitions and replica sizes read. No config file, no CLI, no planner, no JSON.
"""

from __future__ import annotations

import sys

from kafka.admin import KafkaAdminClient
from kafka.protocol.admin.cluster import DescribeLogDirsRequest
from kafka.protocol.metadata import MetadataRequest


def main(bootstrap: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30_000)
    manager = admin._manager  # the library's own connection manager: its send has no public wrapper
    brokers = [broker.node_id for broker in manager.cluster.brokers()]

    async def together():
        answers = [manager.send(MetadataRequest(topics=None, allow_auto_topic_creation=False))]
        answers += [manager.send(DescribeLogDirsRequest(topics=None), node_id) for node_id in brokers]
        return [await answer for answer in answers]

    metadata, *log_dirs = manager.run(together)
    partitions = sum(len(t.partitions) for t in metadata.topics)
    replicas = sum(len(t.partitions) for answer in log_dirs for d in answer.results for t in d.topics)
    admin.close()
    print(partitions, replicas)


if __name__ == "__main__":
    main(sys.argv[1])
