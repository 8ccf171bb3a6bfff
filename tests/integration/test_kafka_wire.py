"""The kafka-python route (backends/kafka/wire.py) against the real sandboxes, in both modes:
the requests librdkafka lacks answer through it, and a dead address is one line in its timeout."""

from __future__ import annotations

import socket

import pytest

from streamctl.backends.kafka.wire import WireAdmin, WireError
from tests.integration.kafka_helpers import commit, create_topic_once_settled, unique

pytestmark = pytest.mark.integration


def test_groups_are_listed_with_their_type(cluster):
    topic, group = unique("wire"), unique("wire-group")
    create_topic_once_settled(cluster, topic, partitions=1, replication=1)
    commit(cluster.bootstrap_servers, group, {(topic, 0): 0})  # an Empty classic group with offsets
    admin = WireAdmin({"bootstrap.servers": cluster.bootstrap_servers}, timeout=15)
    try:
        def listed():
            return {g["group_id"]: g for g in admin.call(admin.client.list_groups, "list groups")}.get(group)

        found = cluster.wait_until(listed, timeout=60, what=f"group {group} listed")
    finally:
        admin.close()
    assert found["group_id"] == group  # committed offsets only: no protocol type yet
    if cluster.kraft:  # ListGroups v5 (Kafka 4.x) says each group's type
        assert found["group_type"].lower() == "classic"


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
