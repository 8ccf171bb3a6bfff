"""The KRaft quorum tool's answers, captured from the KRaft sandbox (Kafka 4.1.1 nodes with the
3.9.2 and 4.1.1 tools; Kafka 4.3.1 nodes with the 3.9.2 and 4.3.1 tools, capture_quorum.py;
tests/fixtures/kafka/quorum/), parsed and judged."""

from __future__ import annotations

import pytest

from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.quorum import java_client_properties, parse_quorum
from streamctl.kafka.quorum import quorum_health
from streamctl.model.health import Severity
from streamctl.model.kafka import Quorum
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "kafka" / "quorum"


def _quorum(status: str, replication: str) -> Quorum:
    return parse_quorum((FIXTURES / status).read_text(), (FIXTURES / replication).read_text())


@pytest.mark.parametrize("captured, epoch", [("3.9-tool", 4), ("4.1-tool", 4), ("3.9-tool-on-4.3", 1),
                                             ("4.3-tool-on-4.3", 1)])
def test_every_tool_and_node_version_parses_to_the_same_quorum(captured, epoch):
    quorum = _quorum(f"status-{captured}.txt", f"replication-{captured}.txt")
    assert (quorum.leader_id, quorum.epoch) == (1, epoch)
    assert quorum.high_watermark > 0
    assert [(n.node_id, n.role, n.lag) for n in quorum.voters] == [(1, "leader", 0), (2, "follower", 0),
                                                                   (3, "follower", 0)]
    assert all(n.last_caught_up_ms and n.last_caught_up_ms > 1.7e12 for n in quorum.nodes)
    findings, metrics = quorum_health(quorum, Thresholds())
    assert findings == []
    assert {m.name for m in metrics} >= {"kafka_quorum_has_leader", "kafka_quorum_voter_lag"}


def test_a_frozen_voter_lags_and_warns_past_the_threshold():
    quorum = _quorum("status-voter-frozen.txt", "replication-voter-frozen.txt")
    lagging = {n.node_id: n.lag for n in quorum.voters if n.lag}
    assert lagging == {3: 45}
    assert quorum_health(quorum, Thresholds())[0] == []  # 45 records: under the default 1000
    findings, _ = quorum_health(quorum, Thresholds(quorum_voter_lag_warn=10))
    assert [(f.severity, f.object, f.code) for f in findings] == [(Severity.WARN, "controller 3",
                                                                   "KAFKA_QUORUM_VOTER_LAG")]
    assert "45 records behind the quorum leader 1" in findings[0].text


def test_no_leader_is_critical():
    status = (FIXTURES / "status-4.1-tool.txt").read_text().replace("LeaderId:               1",
                                                                     "LeaderId:               -1")
    quorum = parse_quorum(status, (FIXTURES / "replication-4.1-tool.txt").read_text())
    assert quorum.leader_id is None
    findings, metrics = quorum_health(quorum, Thresholds())
    assert [(f.severity, f.code) for f in findings] == [(Severity.CRIT, "KAFKA_QUORUM_NO_LEADER")]
    assert next(m.value for m in metrics if m.name == "kafka_quorum_has_leader") == 0


@pytest.mark.parametrize("broken", ["status", "replication"])
def test_an_unexpected_answer_is_one_line_error(broken):
    status = (FIXTURES / "status-4.1-tool.txt").read_text()
    replication = (FIXTURES / "replication-4.1-tool.txt").read_text()
    answers = {"status": status, "replication": replication, broken: "Exception in thread main\n\tat x"}
    with pytest.raises(KafkaError) as raised:
        parse_quorum(answers["status"], answers["replication"])
    assert "\n" not in str(raised.value) and str(raised.value).startswith("metadata quorum:")


def test_sasl_settings_become_the_java_clients():
    properties = java_client_properties({"bootstrap.servers": "b:9092", "security.protocol": "sasl_plaintext",
                                         "sasl.mechanisms": "PLAIN", "sasl.username": "ops",
                                         "sasl.password": 'p"w'})
    assert properties == {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                            'username="ops" password="p\\"w";'}
    assert java_client_properties({"bootstrap.servers": "b:9092"}) == {}
    with pytest.raises(KafkaError, match="GSSAPI is not supported"):
        java_client_properties({"security.protocol": "SASL_SSL"})
