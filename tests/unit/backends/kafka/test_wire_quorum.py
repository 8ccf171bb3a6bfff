"""DescribeQuorum and the finalized features as kafka-python decodes them, captured from the
KRaft sandbox (Kafka 4.3.1, bench/quorum_read.py --capture; tests/fixtures/kafka/quorum/wire-4.3.json),
parsed like the JVM tool's answer and judged by the same rules."""

from __future__ import annotations

import json

import pytest

from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.wire_reads import kraft_version, parse_wire_quorum
from streamctl.kafka.quorum import quorum_health
from streamctl.kafka.quorum_command import quorum_summary
from streamctl.thresholds import Thresholds
from tests import repo

CAPTURED = json.loads((repo.FIXTURES / "kafka" / "quorum" / "wire-4.3.json").read_text())


def test_the_captured_answer_parses_to_the_quorum_the_jvm_tool_reports():
    quorum = parse_wire_quorum(CAPTURED["describe_quorum"], CAPTURED["features"])
    leader = quorum.leader_id
    assert leader in (1, 2, 3) and quorum.epoch >= 1 and quorum.high_watermark > 0
    assert sorted(n.node_id for n in quorum.voters) == [1, 2, 3]
    assert [n.role for n in quorum.voters if n.node_id == leader] == ["leader"]
    assert next(n.lag for n in quorum.voters if n.node_id == leader) == 0
    assert all(n.lag >= 0 and n.last_caught_up_ms and n.last_caught_up_ms > 1.7e12 for n in quorum.voters)
    assert quorum.kraft_version in (0, 1)
    findings, metrics = quorum_health(quorum, Thresholds())
    assert findings == []
    assert {m.name for m in metrics} >= {"kafka_quorum_has_leader", "kafka_quorum_voter_lag"}
    summary = quorum_summary(quorum)
    assert [v["node_id"] for v in summary["voters"]] == [n.node_id for n in quorum.voters]


def test_a_voter_behind_the_leader_lags_by_the_leaders_log_end():
    answer = json.loads(json.dumps(CAPTURED["describe_quorum"]))
    partition = answer["topics"][0]["partitions"][0]
    follower = next(v for v in partition["current_voters"] if v["replica_id"] != partition["leader_id"])
    leader_end = next(v["log_end_offset"] for v in partition["current_voters"]
                      if v["replica_id"] == partition["leader_id"])
    follower["log_end_offset"] = leader_end - 1500
    quorum = parse_wire_quorum(answer, CAPTURED["features"])
    assert {n.node_id: n.lag for n in quorum.voters}[follower["replica_id"]] == 1500
    findings, _ = quorum_health(quorum, Thresholds())
    assert [f.code for f in findings] == ["KAFKA_QUORUM_VOTER_LAG"]


def test_kraft_version_is_the_finalized_level_and_zero_when_not_finalized():
    assert kraft_version({"kraft.version": {"supported": (0, 1), "finalized": (1, 1)}}) == 1
    assert kraft_version({"kraft.version": {"supported": (0, 1)}}) == 0
    assert kraft_version({}) == 0


def test_an_answer_without_the_metadata_partition_is_one_line():
    with pytest.raises(KafkaError, match="unexpected DescribeQuorum answer"):
        parse_wire_quorum({"topics": []}, {})


def test_a_partition_error_is_one_line():
    answer = json.loads(json.dumps(CAPTURED["describe_quorum"]))
    answer["topics"][0]["partitions"][0]["error"] = "[Error 6] NotLeaderOrFollowerError: "
    with pytest.raises(KafkaError, match=r"^metadata quorum: \[Error 6\] NotLeaderOrFollowerError"):
        parse_wire_quorum(answer, CAPTURED["features"])
