"""Kafka's znode payloads: captured from the sandbox (Kafka 3.9.2: broker v5, topic v3,
partition state v1, controller v2) and the older shapes documented in Kafka's own source,
apache/kafka core/src/main/scala/kafka/zk/ZkData.scala (BrokerIdZNode.decode's scaladoc lists
broker JSON v1-v5; TopicZNode.encode writes topic v2 in 2.x and v3 with topic_id in 3.x;
ControllerZNode.encode writes v1 in 2.x and v2 with kraftControllerEpoch in 3.4+;
TopicPartitionStateZNode adds leader_recovery_state only when not RECOVERED)."""

from __future__ import annotations

import json

import pytest

from streamctl.zookeeper.kafka_znodes import (
    parse_broker,
    parse_controller,
    parse_endpoint,
    parse_partition_state,
    parse_preferred_election,
    parse_reassignment,
    parse_topic,
)
from tests import repo

FIXTURES = repo.FIXTURES / "zookeeper"


def captured() -> dict:
    return json.loads((FIXTURES / "kafka-znodes.json").read_text())


def payload(path: str) -> bytes:
    return captured()[path]["data"].encode()


# ---- brokers ------------------------------------------------------------------------------------

def test_captured_v5_registrations():
    for path, node in captured().items():
        if not path.startswith("/brokers/ids/"):
            continue
        doc = json.loads(node["data"])
        broker = parse_broker(int(path.rsplit("/", 1)[1]), node["data"].encode(), node["ephemeral_owner"])
        assert broker.version == 5
        assert (broker.host, broker.port) == (doc["host"], doc["port"])
        assert [str(e) for e in broker.endpoints] == doc["endpoints"]
        assert broker.endpoints[0].security_protocol == "PLAINTEXT"
        assert broker.jmx_port is None  # -1: JMX off
        assert broker.timestamp == int(doc["timestamp"])
        assert broker.session == node["ephemeral_owner"]


# The shapes below are the scaladoc examples of BrokerIdZNode.decode in ZkData.scala.
V1 = {"version": 1, "host": "localhost", "port": 9092, "jmx_port": 9999, "timestamp": "2233345666"}
V2 = {**V1, "version": 2, "endpoints": ["PLAINTEXT://host1:9092", "SSL://host1:9093"]}
V3 = {**V2, "version": 3, "rack": "dc1"}
V4 = {**V3, "version": 4, "endpoints": ["CLIENT://host1:9092", "REPLICATION://host1:9093"],
      "listener_security_protocol_map": {"CLIENT": "SASL_SSL", "REPLICATION": "SSL"}}


def test_v1_has_only_host_and_port():
    broker = parse_broker(7, json.dumps(V1).encode())
    assert broker.version == 1
    assert [(e.listener, e.host, e.port) for e in broker.endpoints] == [("PLAINTEXT", "localhost", 9092)]
    assert broker.jmx_port == 9999 and broker.rack is None


def test_v2_endpoints_with_protocol_names_as_listeners():
    broker = parse_broker(7, json.dumps(V2).encode())
    assert [str(e) for e in broker.endpoints] == V2["endpoints"]
    assert [e.security_protocol for e in broker.endpoints] == ["PLAINTEXT", "SSL"]


def test_v3_adds_rack():
    assert parse_broker(7, json.dumps(V3).encode()).rack == "dc1"


def test_v4_named_listeners_use_the_protocol_map():
    broker = parse_broker(7, json.dumps(V4).encode())
    assert [(e.listener, e.security_protocol) for e in broker.endpoints] == [("CLIENT", "SASL_SSL"),
                                                                             ("REPLICATION", "SSL")]
    assert broker.addresses() == {("host1", 9092), ("host1", 9093), ("localhost", 9092)}


def test_no_plaintext_listener_registers_null_host():
    doc = {**V4, "version": 5, "host": None, "port": -1, "features": {}}
    broker = parse_broker(7, json.dumps(doc).encode())
    assert (broker.host, broker.port) == (None, None)
    assert broker.addresses() == {("host1", 9092), ("host1", 9093)}


def test_ipv6_endpoint():
    e = parse_endpoint("SSL://[::1]:9093")
    assert (e.listener, e.host, e.port, e.security_protocol) == ("SSL", "::1", 9093, "SSL")


@pytest.mark.parametrize("data", [b"not json", b"[1,2]", b'{"version": 4, "endpoints": ["nolistener"]}'])
def test_unreadable_registration_raises_value_error(data):
    with pytest.raises((ValueError, KeyError)):
        parse_broker(1, data)


# ---- topics and partitions ------------------------------------------------------------------------

def test_captured_topic_v3_with_topic_id():
    path = next(p for p in captured() if p.startswith("/brokers/topics/") and p.count("/") == 3)
    doc = json.loads(captured()[path]["data"])
    topic = parse_topic(path.rsplit("/", 1)[1], payload(path))
    assert topic.version == 3 and topic.topic_id == doc["topic_id"]
    assert topic.partitions == {int(p): tuple(r) for p, r in doc["partitions"].items()}
    assert topic.adding == {} and topic.removing == {}


def test_topic_v1_and_v2_shapes():
    v1 = parse_topic("t", b'{"version":1,"partitions":{"1":[2,3],"0":[1,2]}}')
    assert list(v1.partitions) == [0, 1] and v1.topic_id is None
    v2 = parse_topic("t", b'{"version":2,"partitions":{"0":[1,2,4]},"adding_replicas":{"0":[4]},'
                          b'"removing_replicas":{"0":[3]}}')
    assert (v2.adding, v2.removing) == ({0: (4,)}, {0: (3,)})


def test_captured_partition_states():
    for path, node in captured().items():
        if path.endswith("/state"):
            doc = json.loads(node["data"])
            state = parse_partition_state("t", int(path.split("/")[-2]), node["data"].encode(), node["version"])
            assert (state.leader, state.isr, state.leader_epoch) == (doc["leader"], tuple(doc["isr"]),
                                                                     doc["leader_epoch"])
            assert state.leader_recovery_state == 0 and state.zk_version == node["version"]


def test_partition_state_recovering_from_unclean_election():
    data = b'{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":7,"isr":[2],"leader_recovery_state":1}'
    state = parse_partition_state("t", 0, data)
    assert (state.leader_recovery_state, state.controller_epoch) == (1, 3)


# ---- controller and admin ---------------------------------------------------------------------------

def test_captured_controller_v2():
    doc = json.loads(captured()["/controller"]["data"])
    controller = parse_controller(payload("/controller"))
    assert (controller.broker_id, controller.version, controller.kraft_controller_epoch) == (doc["brokerid"], 2, -1)


def test_controller_v1():
    controller = parse_controller(b'{"version":1,"brokerid":3,"timestamp":"1600000000000"}')
    assert (controller.broker_id, controller.timestamp, controller.kraft_controller_epoch) == (3, 1600000000000, None)


def test_reassignment_and_preferred_election():
    reassign = parse_reassignment(b'{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1,2]}]}')
    assert reassign == (("a", 0, (1, 2)),)
    election = parse_preferred_election(b'{"version":1,"partitions":[{"topic":"a","partition":1}]}')
    assert election == (("a", 1),)
