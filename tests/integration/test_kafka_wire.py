"""The kafka-python route (backends/kafka/wire.py) against the real sandboxes, in both modes:
the requests librdkafka lacks answer through it, and a dead address is one line in its timeout."""

from __future__ import annotations

import socket

import pytest

from streamctl.backends.kafka.wire import WireAdmin, WireError

pytestmark = pytest.mark.integration


def test_groups_are_listed_with_their_type(cluster):
    admin = WireAdmin({"bootstrap.servers": cluster.bootstrap_servers}, timeout=15)
    try:
        group = f"wire-{cluster.kraft}"
        from confluent_kafka import Consumer

        consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group,
                             "auto.offset.reset": "earliest"})
        try:
            consumer.subscribe(["weblogs"])

            def listed():
                consumer.poll(0.5)
                groups = {g["group_id"]: g for g in admin.call(admin.client.list_groups, "list groups")}
                return groups.get(group)

            found = cluster.wait_until(listed, timeout=60, what=f"group {group} listed")
        finally:
            consumer.close()
        # A classic-protocol consumer; the type column needs a Kafka with KIP-848 (KRaft, 4.x).
        assert found["protocol_type"] == "consumer"
        if cluster.kraft:
            assert found["group_type"].lower() == "classic"
    finally:
        admin.close()


def test_the_kraft_quorum_is_described_without_a_jvm(kraft_sandbox):
    admin = WireAdmin({"bootstrap.servers": kraft_sandbox.bootstrap_servers}, timeout=15)
    try:
        quorum = admin.call(admin.client.describe_metadata_quorum, "describe quorum")
    finally:
        admin.close()
    partition = quorum["topics"][0]["partitions"][0]
    voters = {v["replica_id"] for v in partition["current_voters"]}
    assert partition["leader_id"] in voters and len(voters) == 3


def test_a_closed_port_is_one_line_within_the_timeout():
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]  # bound, never listening: connections are refused
        admin = WireAdmin({"bootstrap.servers": f"127.0.0.1:{port}"}, timeout=2)
        with pytest.raises(WireError) as raised:
            admin.call(admin.client.list_groups, "list groups")
    assert str(raised.value) == f"connect failed: no broker of 127.0.0.1:{port} answered within 2 s"
