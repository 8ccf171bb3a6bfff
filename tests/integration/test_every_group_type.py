"""Every group's type in `groups list` (ListGroups v5 through kafka-python), in both modes, and
`streamctl quorum` (DescribeQuorum, no JVM) against what Kafka's own tool reports."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

import pytest
from confluent_kafka import Consumer

from streamctl.backends.kafka.quorum import describe_quorum
from streamctl.jvm.java import tool_argv
from tests.integration.kafka_helpers import commit, produce, unique, write_context

pytestmark = pytest.mark.integration

DEMO_GROUPS = ("weblog-statuses", "connect-weblog-archive")  # the Streams app's, the Connect sink's


@contextmanager
def subscribed(bootstrap: str, topic: str, group: str, protocol: str):
    """A live member of `group` on `topic`, with group.protocol=`protocol`, polling in a thread."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": protocol,
                         "auto.offset.reset": "earliest", "log_level": "0"})
    consumer.subscribe([topic])
    stop = threading.Event()
    thread = threading.Thread(target=lambda: [consumer.poll(0.2) for _ in iter(stop.is_set, True)], daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        consumer.close()


def _listed(cluster, config, *args) -> dict[str, dict]:
    result = cluster.cli("--config", str(config), "groups", "list", "-o", "json", *args)
    assert result.returncode == 0, result.stderr
    return {g["id"]: g for g in json.loads(result.stdout)}


def test_groups_list_shows_each_groups_type_and_filters_by_it(cluster, tmp_path):
    config = write_context(tmp_path / "c.yaml", cluster.bootstrap_servers)
    bootstrap, topic = cluster.bootstrap_servers, unique("types")
    classic, modern = unique("classic"), unique("consumer")
    cluster.kafka().create_topic(topic, 3, 3)
    produce(bootstrap, topic, 10, partitions=3)
    commit(bootstrap, classic, {(topic, 0): 1})
    expected = {classic: "CLASSIC"}
    if cluster.kraft:
        expected[modern] = "CONSUMER"  # KIP-848 needs a KRaft 4.x cluster
    with subscribed(bootstrap, topic, modern, "consumer") if cluster.kraft else _nothing():
        listed = cluster.wait_until(lambda: (g := _listed(cluster, config)) and set(expected) <= set(g) and g,
                                    timeout=60, what="the test's groups listed")
        consumers = _listed(cluster, config, "--type", "consumer")
        classics = _listed(cluster, config, "--type", "CLASSIC", "--type", "share")
        table = cluster.cli("--config", str(config), "groups", "list")
    assert {g: listed[g]["type"] for g in expected} == expected
    assert {g["type"] for g in consumers.values()} <= {"CONSUMER"}
    assert (modern in consumers) == cluster.kraft and classic not in consumers
    assert classic in classics and modern not in classics
    assert {g["type"] for g in classics.values()} <= {"CLASSIC", "SHARE"}
    row = next(line for line in table.stdout.splitlines() if classic in line)
    assert "classic" in row.split(), row
    assert "warning" not in table.stderr, table.stderr
    if not cluster.kraft:  # the demo's groups (the full ZooKeeper-mode sandbox): all classic there
        assert {g: listed[g]["type"] for g in DEMO_GROUPS if g in listed} == dict.fromkeys(DEMO_GROUPS, "CLASSIC")
        assert {g["type"] for g in listed.values()} == {"CLASSIC"}


@contextmanager
def _nothing():
    yield


def test_quorum_says_what_kafkas_own_tool_says(kraft_sandbox, tmp_path):
    config = write_context(tmp_path / "c.yaml", kraft_sandbox.bootstrap_servers)

    def both_agree():
        result = kraft_sandbox.cli("--config", str(config), "quorum", "-o", "json")
        assert result.returncode == 0, result.stderr
        wire = json.loads(result.stdout)
        jvm = describe_quorum({"bootstrap.servers": kraft_sandbox.bootstrap_servers}, 60, tool_argv)
        same = (wire["leader_id"] == jvm.leader_id and wire["epoch"] == jvm.epoch
                and sorted((v["node_id"], v["role"]) for v in wire["voters"]) == sorted(
                    (v.node_id, v.role) for v in jvm.voters))  # the tool lists the leader first
        return same and wire

    wire = kraft_sandbox.wait_until(both_agree, timeout=120, interval=2, what="both routes report the same quorum")
    assert sorted(v["node_id"] for v in wire["voters"]) == [1, 2, 3]
    assert wire["kraft_version"] in (0, 1)
    assert all(v["last_caught_up_ms"] and v["last_caught_up_ms"] > 1.7e12 for v in wire["voters"])
    table = kraft_sandbox.cli("--config", str(config), "quorum")
    assert f"leader {wire['leader_id']}" in table.stdout and "kraft.version" in table.stdout, table.stdout


def test_quorum_on_a_zookeeper_cluster_is_one_line(sandbox, tmp_path):
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers)
    result = sandbox.cli("--config", str(config), "quorum")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        "streamctl: error: not a KRaft cluster (ZooKeeper mode: no controller quorum)"], result.stderr
