"""ZooKeeper health rules (streamctl.zookeeper.health) fed answers captured from real servers
(tests/fixtures/zookeeper/), and the Kafka cross-check fed the sandbox's captured Kafka znodes
against a metadata snapshot built from the same cluster; variants via dataclasses.replace."""

from __future__ import annotations

import json
from dataclasses import replace

from streamctl.backends.zookeeper_ensemble import merge_answers
from streamctl.model.health import Severity
from streamctl.model.kafka import Broker, KafkaSnapshot, PartitionState, Topic
from streamctl.thresholds import Thresholds
from streamctl.zookeeper.health import ensemble_health, kafka_crosscheck
from streamctl.zookeeper.kafka_znodes import (
    KafkaZkView,
    PendingAdmin,
    ZkController,
    parse_broker,
    parse_controller,
    parse_partition_state,
    parse_topic,
)
from tests import repo

FIXTURES = repo.FIXTURES / "zookeeper"
OK, WARN, CRIT, UNKNOWN = Severity.OK, Severity.WARN, Severity.CRIT, Severity.UNKNOWN
REFUSED = ConnectionRefusedError(111, "Connection refused")


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def standalone(name="127.0.0.1:2181"):
    return merge_answers(name, {"srvr": text("sandbox-srvr.txt"), "mntr": text("sandbox-mntr.txt"),
                                "ruok": text("sandbox-ruok.txt")})


def leader(name="zk1:2181"):
    return merge_answers(name, {"srvr": text("ensemble-leader-srvr.txt"), "mntr": text("ensemble-leader-mntr.txt"),
                                "ruok": text("ensemble-ruok.txt")})


def follower(name):
    return merge_answers(name, {"srvr": text("ensemble-follower-srvr.txt"),
                                "mntr": text("ensemble-follower-mntr.txt"), "ruok": text("ensemble-ruok.txt")})


def outside_quorum(name):
    return merge_answers(name, {"srvr": text("ensemble-noquorum-srvr.txt"),
                                "mntr": text("ensemble-noquorum-mntr.txt"),
                                "ruok": text("ensemble-noquorum-ruok.txt")})


def down(name):
    return merge_answers(name, {"srvr": REFUSED, "mntr": REFUSED, "ruok": REFUSED})


def codes(findings) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in findings:
        out.setdefault(f.code, []).append(f)
    return out


def worst(findings) -> Severity:
    return Severity.worst(f.severity for f in findings)


# ---- ensemble ------------------------------------------------------------------------------------

def test_sandbox_standalone_warns_only_about_its_size():
    findings, metrics = ensemble_health([standalone()], Thresholds())
    assert [(f.severity, f.code) for f in findings] == [(WARN, "ZK_ENSEMBLE_SIZE")]
    assert "no fault tolerance" in findings[0].text
    by_name = {m.name: m for m in metrics if not m.labels}
    assert by_name["zookeeper_servers_serving"].value == 1
    assert by_name["zookeeper_latency_avg_ms"].warn == Thresholds().zk_latency_avg_warn_ms


def test_healthy_three_server_ensemble_is_ok_and_names_the_leader():
    findings, _ = ensemble_health([leader("zk1:2181"), follower("zk2:2181"), follower("zk3:2181")], Thresholds())
    assert [(f.severity, f.code) for f in findings] == [(OK, "ZK_OK")]
    assert findings[0].text == "3 of 3 ZooKeeper server(s) serving, leader zk1:2181"


def test_one_server_down_keeps_the_quorum():
    findings, metrics = ensemble_health([leader("zk1:2181"), follower("zk2:2181"), down("zk3:2181")], Thresholds())
    by_code = codes(findings)
    assert set(by_code) == {"ZK_SERVER_DOWN"}
    assert by_code["ZK_SERVER_DOWN"][0].text == "ZooKeeper zk3:2181 down: connection refused"
    up = {m.labels["server"]: m.value for m in metrics if m.name == "zookeeper_up"}
    assert up == {"zk1:2181": 1, "zk2:2181": 1, "zk3:2181": 0}


def test_lost_quorum_is_critical():
    findings, _ = ensemble_health([down("zk1:2181"), down("zk2:2181"), outside_quorum("zk3:2181")], Thresholds())
    by_code = codes(findings)
    assert len(by_code["ZK_SERVER_DOWN"]) == 2
    assert by_code["ZK_NO_QUORUM"][0].severity is CRIT
    assert by_code["ZK_NO_QUORUM"][0].text == "no quorum: none of 3 ZooKeeper server(s) serving (2 down)"
    assert by_code["ZK_SERVER_NOT_SERVING"][0].severity is WARN
    assert worst(findings) is CRIT


def test_standalone_down_is_down_and_no_quorum():
    findings, _ = ensemble_health([down("127.0.0.1:2181")], Thresholds())
    assert {f.code for f in findings if f.severity is CRIT} == {"ZK_SERVER_DOWN", "ZK_NO_QUORUM"}


def test_latency_and_outstanding_thresholds():
    server = replace(standalone(), latency_avg_ms=250.0, outstanding=25)
    findings, _ = ensemble_health([server], Thresholds(zk_latency_avg_warn_ms=100, zk_outstanding_warn=10))
    by_code = codes(findings)
    assert by_code["ZK_LATENCY"][0].severity is WARN and by_code["ZK_LATENCY"][0].value == 250.0
    assert by_code["ZK_OUTSTANDING"][0].text.endswith("has 25 outstanding requests (over 10)")
    quiet, _ = ensemble_health([standalone()], Thresholds(zk_latency_avg_warn_ms=1e6, zk_outstanding_warn=1000))
    assert "ZK_LATENCY" not in codes(quiet) and "ZK_OUTSTANDING" not in codes(quiet)


def test_even_ensemble_warns():
    servers = [leader("zk1:2181")] + [follower(f"zk{i}:2181") for i in (2, 3, 4)]
    findings, _ = ensemble_health(servers, Thresholds())
    assert [(f.severity, f.code) for f in findings] == [(WARN, "ZK_ENSEMBLE_SIZE")]
    assert "(even)" in findings[0].text


def test_no_command_available_is_unknown_not_healthy_or_down():
    refusal = text("sandbox-mntr.txt")  # the real whitelist refusal
    server = merge_answers("zk1:2181", {"srvr": refusal.replace("mntr", "srvr"), "mntr": refusal,
                                        "ruok": text("sandbox-ruok.txt")})
    findings, _ = ensemble_health([server], Thresholds())
    by_code = codes(findings)
    assert by_code["ZK_STATE_UNAVAILABLE"][0].severity is UNKNOWN
    assert "ZK_NO_QUORUM" not in by_code and "ZK_SERVER_DOWN" not in by_code


# ---- Kafka cross-check ---------------------------------------------------------------------------

def captured_view() -> KafkaZkView:
    znodes = json.loads(text("kafka-znodes.json"))
    brokers = tuple(parse_broker(int(p.rsplit("/", 1)[1]), n["data"].encode(), n["ephemeral_owner"])
                    for p, n in sorted(znodes.items()) if p.startswith("/brokers/ids/"))
    topics = tuple(parse_topic(p.rsplit("/", 1)[1], n["data"].encode())
                   for p, n in znodes.items() if p.startswith("/brokers/topics/") and p.count("/") == 3)
    states = {}
    for p, n in znodes.items():
        if p.endswith("/state"):
            parts = p.split("/")
            states[(parts[3], int(parts[5]))] = parse_partition_state(parts[3], int(parts[5]), n["data"].encode())
    return KafkaZkView(brokers, parse_controller(znodes["/controller"]["data"].encode()),
                       int(znodes["/controller_epoch"]["data"]), topics, states, PendingAdmin())


def metadata_of(view: KafkaZkView) -> KafkaSnapshot:
    """The Admin API's view of the same cluster (what a healthy cluster's metadata says)."""
    brokers = tuple(Broker(b.id, b.host, b.port, is_controller=b.id == view.controller.broker_id)
                    for b in view.brokers)
    topics = tuple(Topic(t.name, False, tuple(
        PartitionState(t.name, p, view.states[(t.name, p)].leader, replicas, view.states[(t.name, p)].isr)
        for p, replicas in t.partitions.items())) for t in view.topics)
    return KafkaSnapshot(0.0, "cluster", brokers, view.controller.broker_id, False, topics)


def test_agreeing_views_are_ok():
    view = captured_view()
    findings, metrics = kafka_crosscheck(view, metadata_of(view))
    assert [(f.severity, f.code) for f in findings] == [(OK, "ZK_KAFKA_OK")]
    assert {m.name: m.value for m in metrics}["zookeeper_kafka_brokers"] == 3


def test_broker_registered_but_absent_from_metadata():
    view = captured_view()
    snap = metadata_of(view)
    snap = replace(snap, brokers=tuple(b for b in snap.brokers if b.id != 2))
    findings, _ = kafka_crosscheck(view, snap)
    mismatch = codes(findings)["ZK_KAFKA_BROKER_MISMATCH"]
    assert [(f.severity, f.object, f.text) for f in mismatch] == [
        (WARN, "broker 2", "broker 2 registered in ZooKeeper but absent from the metadata")]


def test_broker_answering_at_another_address():
    view = captured_view()
    snap = metadata_of(view)
    snap = replace(snap, brokers=tuple(replace(b, port=1) if b.id == 1 else b for b in snap.brokers))
    mismatch = codes(kafka_crosscheck(view, snap)[0])["ZK_KAFKA_BROKER_MISMATCH"]
    assert mismatch[0].text.startswith("broker 1 answers at 127.0.0.1:1, ZooKeeper has PLAINTEXT://127.0.0.1:")


def test_leader_and_isr_differences_are_named():
    view = captured_view()
    snap = metadata_of(view)
    topic = snap.topics[0]
    first = topic.partitions[0]
    changed = replace(first, leader=first.isr[1], isr=first.isr[1:])
    snap = replace(snap, topics=(replace(topic, partitions=(changed, *topic.partitions[1:])),))
    finding = codes(kafka_crosscheck(view, snap)[0])["ZK_KAFKA_PARTITION_MISMATCH"][0]
    assert finding.severity is WARN and finding.value == 1
    expected = (f"{topic.name}/{first.partition} (leader {first.leader} vs {changed.leader}, "
                f"ISR [{','.join(map(str, first.isr))}] vs [{','.join(map(str, changed.isr))}])")
    assert expected in finding.text


def test_missing_controller_is_critical():
    view = replace(captured_view(), controller=None)
    finding = codes(kafka_crosscheck(view, metadata_of(captured_view()))[0])["ZK_KAFKA_NO_CONTROLLER"][0]
    assert finding.severity is CRIT


def test_controller_disagreement():
    view = captured_view()
    other = next(b.id for b in view.brokers if b.id != view.controller.broker_id)
    snap = replace(metadata_of(view), controller_id=other)
    finding = codes(kafka_crosscheck(view, snap)[0])["ZK_KAFKA_CONTROLLER_MISMATCH"][0]
    assert finding.text == f"controller is broker {view.controller.broker_id} in ZooKeeper, broker {other} in the metadata"


def test_controller_naming_an_unregistered_broker_is_critical():
    view = replace(captured_view(), controller=ZkController(broker_id=99, version=2))
    assert codes(kafka_crosscheck(view, metadata_of(captured_view()))[0])["ZK_KAFKA_NO_CONTROLLER"][0].severity is CRIT


def test_pending_deletion_is_not_a_topic_mismatch_but_is_reported():
    view = captured_view()
    name = view.topics[0].name
    snap = replace(metadata_of(view), topics=())
    findings, metrics = kafka_crosscheck(replace(view, pending=PendingAdmin(deletions=(name,))), snap)
    by_code = codes(findings)
    assert "ZK_KAFKA_TOPIC_MISMATCH" not in by_code
    assert by_code["ZK_KAFKA_PENDING"][0].text == f"1 pending topic deletions: {name}"
    assert {m.name: m.value for m in metrics}["zookeeper_kafka_pending_topic_deletions"] == 1
    plain, _ = kafka_crosscheck(view, snap)
    assert codes(plain)["ZK_KAFKA_TOPIC_MISMATCH"][0].text == f"1 topic(s) in ZooKeeper but not in the metadata: {name}"


def test_unreadable_znodes_are_warnings():
    view = replace(captured_view(), errors=("/brokers/ids/4: unreadable registration (Expecting value)",))
    finding = codes(kafka_crosscheck(view, metadata_of(captured_view()))[0])["ZK_KAFKA_UNREADABLE"][0]
    assert finding.severity is WARN and finding.text.startswith("/brokers/ids/4")
