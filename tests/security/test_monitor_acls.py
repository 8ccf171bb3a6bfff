"""The least-privilege monitoring principal on the secure sandbox in both modes, whose brokers
run Kafka's AclAuthorizer (ZooKeeper mode) or StandardAuthorizer (KRaft mode), no ACL, no
access: `monitor` holds exactly MONITOR_ACLS; check, every read
command and the dashboard's reads work as it; every Kafka mutation is refused by the brokers in
one line naming the ACL missing, and nothing changes (as the admin principal sees it)."""

from __future__ import annotations

import json

import pytest
import yaml
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.kafka.authz import NotAuthorized
from streamctl.sandbox.secure import MONITOR_ACLS, MONITOR_CONTEXT, MONITOR_USER
from tests.security.conftest import MODES
from tests.security.helpers import one_error_line, unique

pytestmark = pytest.mark.integration

RECORDS = 10  # per partition of the scene's topic
PARTITIONS = 2


@pytest.fixture(scope="module", params=list(MODES))
def secure(request):
    """Every test here runs on the secure sandbox of each mode (each started once a session)."""
    return request.getfixturevalue(MODES[request.param])


def commit(secure, group: str, topic: str, offset: int) -> None:
    """Commit `offset` on every partition of `topic` for `group`, as the admin principal."""
    consumer = Consumer({**secure.kafka_client(), "group.id": group, "enable.auto.commit": False, "log_level": "0"})
    try:
        consumer.commit(offsets=[TopicPartition(topic, p, offset) for p in range(PARTITIONS)], asynchronous=False)
    finally:
        consumer.close()


@pytest.fixture(scope="module")
def scene(secure):
    """A topic with records, a group at its end (no lag), and a Kafka Streams app (a group at
    the end of the topic plus an internal changelog topic), all made by the admin principal."""
    topic, group, app = unique("mon"), unique("mong"), unique("monapp")
    admin = KafkaAdmin(secure.kafka_client(), timeout=10)
    admin.create_topic(topic, PARTITIONS, 1)
    admin.create_topic(f"{app}-store-changelog", 1, 1)
    producer = Producer({**secure.kafka_client(), "log_level": "0"})
    for i in range(RECORDS * PARTITIONS):
        producer.produce(topic, value=f"record-{i}".encode(), partition=i % PARTITIONS)
    assert producer.flush(15) == 0
    commit(secure, group, topic, RECORDS)
    commit(secure, app, topic, RECORDS)
    records = secure.tmp / "monitor-records.txt"
    records.write_text("one\ntwo\n")
    return {"topic": topic, "group": group, "app": app, "new": unique("mon"), "records": str(records)}


@pytest.fixture
def monitor_config(secure, tmp_path):
    """A context `it` logged in as `monitor`, NOT read-only: whatever is refused, the brokers refuse."""
    return secure.write_monitor_context(tmp_path / "monitor.yaml")


def monitor_cli(secure, *args: str):
    return secure.cli("--context", MONITOR_CONTEXT, *args)


def test_the_sandbox_writes_a_read_only_monitor_context(secure):
    raw = yaml.safe_load(secure.config_path.read_text())
    assert raw["current-context"] == "sandbox"
    monitor = raw["contexts"][MONITOR_CONTEXT]
    assert monitor["read_only"] is True
    assert monitor["kafka"]["properties"]["sasl.username"] == MONITOR_USER
    assert monitor["kafka"]["properties"]["sasl.password"] == \
        f"${{file:{secure.root / 'secrets' / 'kafka-monitor.password'}}}"
    assert {k: v for k, v in monitor.items() if k not in ("kafka", "read_only")} == \
        {k: v for k, v in raw["contexts"]["sandbox"].items() if k != "kafka"}


def test_the_monitor_holds_exactly_the_monitoring_acls(secure):
    admin = AdminClient({**secure.kafka_client(), "log_level": "0"})
    # The monitor's bindings only: other modules on this sandbox grant their own users (test_acls.py).
    monitors = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, f"User:{MONITOR_USER}", None,
                                AclOperation.ANY, AclPermissionType.ANY)
    kinds = {ResourceType.TOPIC: "Topic", ResourceType.GROUP: "Group", ResourceType.BROKER: "Cluster"}
    acls = admin.describe_acls(monitors, request_timeout=10).result(timeout=15)
    assert {(b.principal, b.permission_type, b.resource_pattern_type, b.host) for b in acls} == {
        (f"User:{MONITOR_USER}", AclPermissionType.ALLOW, ResourcePatternType.LITERAL, "*")}
    found = {(kinds[b.restype], b.name, b.operation.name) for b in acls}
    assert found == {(kind, name, op.upper().replace("CONFIGS", "_CONFIGS")) for kind, name, op in MONITOR_ACLS}


def test_check_as_the_monitor_sees_what_the_admin_sees(secure, scene):
    as_admin = secure.cli("--context", "sandbox", "check", "--format", "json")
    as_monitor = monitor_cli(secure, "check", "--format", "json")
    assert as_monitor.stderr == ""
    admin_report, monitor_report = json.loads(as_admin.stdout), json.loads(as_monitor.stdout)
    components = ("kafka", "connect") if secure.kraft else ("kafka", "zookeeper", "connect")
    assert {n: c["evaluated"] for n, c in monitor_report["components"].items()} == dict.fromkeys(components, True)

    def findings(report):
        return sorted((f["component"], f["code"], f["object"], f["severity"]) for f in report["findings"])

    assert findings(monitor_report) == findings(admin_report)
    # ZooKeeper mode: a one-server ensemble warns, nothing else does
    warnings = {} if secure.kraft else {"ZK_ENSEMBLE_SIZE": "WARN"}
    assert {f["code"]: f["severity"] for f in monitor_report["findings"] if f["severity"] != "OK"} == warnings
    assert as_monitor.returncode == as_admin.returncode == (1 if warnings else 0)
    kafka_and_connect = monitor_cli(secure, "check", "--component", "kafka,connect")
    assert kafka_and_connect.returncode == 0, kafka_and_connect.stdout
    assert kafka_and_connect.stdout.startswith("STREAMCTL OK")


def test_read_commands_as_the_monitor(secure, scene):
    topic, group = scene["topic"], scene["group"]

    def read(*args: str):
        result = monitor_cli(secure, *args, "-o", "json")
        assert result.returncode == 0 and result.stderr == "", (args, result.stderr)
        return json.loads(result.stdout)

    assert [b["id"] for b in read("brokers")["brokers"]] == [1]
    listed = {t["name"]: t for t in read("topics", "list")}
    assert {topic, "weblog-stats", "connect-configs"} <= set(listed)
    described = read("topics", "describe", topic)
    assert json.dumps(described).count('"min.insync.replicas"') >= 1
    assert group in json.dumps(read("groups", "list"))
    assert read("groups", "describe", group)
    lags = [l for l in read("groups", "lag", group) if l["topic"] == topic]
    assert sorted((l["partition"], l["committed"], l["lag"]) for l in lags) == [(0, RECORDS, 0), (1, RECORDS, 0)]
    records = monitor_cli(secure, "topics", "read", topic, "--limit", "3", "-o", "json")
    assert records.returncode == 0, records.stderr
    assert len([line for line in records.stdout.splitlines() if line.strip()]) == 3


def test_lag_in_time_and_peek_as_the_monitor(secure, scene):
    """Lag in time reads the record at the committed offset: Read on the topic."""
    topic, lagging = scene["topic"], unique("monlag")
    commit(secure, lagging, topic, RECORDS - 4)
    try:
        result = monitor_cli(secure, "groups", "lag", lagging, "-o", "json")
        assert result.returncode == 0, result.stderr
        lags = json.loads(result.stdout)
        assert [(l["lag"], l["lag_seconds_source"]) for l in lags] == [(4, "record")] * PARTITIONS
        peek = monitor_cli(secure, "groups", "peek", lagging)
        assert peek.returncode == 0, peek.stderr
        assert f"record-{2 * (RECORDS - 4)}" in peek.stdout
    finally:
        commit(secure, lagging, topic, RECORDS)  # no lag left for the other modules' checks


def test_the_dashboard_reads_as_the_monitor(secure, scene, tmp_path, monkeypatch):
    from streamctl.dashboard.source import make_dashboard

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # its lag history
    dashboard = make_dashboard(secure.config_path, MONITOR_CONTEXT)
    try:
        snap = dashboard.kafka_snapshot()
        assert snap.errors == ()
        assert scene["topic"] in {t.name for t in snap.topics}
        assert scene["group"] in {g.id for g in snap.groups}
        groups_snap, _ = dashboard.kafka_groups()
        assert scene["group"] in {g.id for g in groups_snap.groups}
        evaluation = dashboard.health()
        assert not [f for f in evaluation.findings if f.severity.name == "UNKNOWN"], evaluation.findings
        records = dashboard.topic_records(scene["topic"], last=5)  # per partition
        assert sorted((r.partition, r.offset) for r in records) == \
            [(p, o) for p in range(PARTITIONS) for o in range(RECORDS - 5, RECORDS)]
    finally:
        dashboard.close()


def refusal(operation: str, resource: str, extra: str = "", code: str = "TOPIC_AUTHORIZATION_FAILED") -> str:
    return f"streamctl: error: not authorized: {operation}: User:{MONITOR_USER} lacks {resource}{extra} ({code})"


# argv (formatted with the scene) -> the one line the brokers' refusal gives
REFUSED = {
    "topics create": (["topics", "create", "{new}", "--partitions", "1", "--replication-factor", "1", "--execute"],
                      refusal("creating topic '{new}'", "Create on Topic '{new}'",
                              " (or Create on Cluster 'kafka-cluster')")),
    "topics add-partitions": (["topics", "add-partitions", "{topic}", "--total", "3", "--execute"],
                              refusal("adding partitions to '{topic}'", "Alter on Topic '{topic}'")),
    "topics alter-config": (["topics", "alter-config", "{topic}", "retention.ms=1000", "--execute"],
                            refusal("altering configs of '{topic}'", "AlterConfigs on Topic '{topic}'")),
    "topics delete": (["topics", "delete", "{topic}", "--execute", "--yes-delete", "{topic}"],
                      refusal("deleting topic '{topic}'", "Delete on Topic '{topic}'")),
    "topics produce": (["topics", "produce", "{topic}", "--from", "{records}", "--execute"],
                       refusal("starting transactions", "Write on TransactionalId prefix 'streamctl-produce-'",
                               code="TRANSACTIONAL_ID_AUTHORIZATION_FAILED")),
    "groups reset-offsets": (["groups", "reset-offsets", "{group}", "--topic", "{topic}", "--to-earliest",
                              "--execute"],
                             refusal("committing offsets of group '{group}'", "Read on Group '{group}'",
                                     code="GROUP_AUTHORIZATION_FAILED")),
    "groups undo-reset": (["groups", "undo-reset", "{group}", "--execute"],
                          refusal("committing offsets of group '{group}'", "Read on Group '{group}'",
                                  code="GROUP_AUTHORIZATION_FAILED")),
    "streams reset": (["streams", "reset", "{app}", "--execute"],
                      refusal("committing offsets of group '{app}'", "Read on Group '{app}'",
                              code="GROUP_AUTHORIZATION_FAILED")),
}


def world(secure, scene) -> dict:
    """What any of the mutations could change, read by the admin principal."""
    admin = KafkaAdmin(secure.kafka_client(), timeout=10)
    md = admin.metadata()
    partitions = [(scene["topic"], p) for p in range(PARTITIONS)]
    return {
        "topics": {t.name: len(t.partitions) for t in md.topics},
        "retention": admin.topic_configs(scene["topic"])["retention.ms"].value,
        "log end": admin.offsets(partitions, -1),
        "offsets": {g: admin.committed(g) for g in (scene["group"], scene["app"])},
    }


@pytest.mark.parametrize("command", list(REFUSED))
def test_the_brokers_refuse_every_kafka_mutation_naming_the_acl(secure, scene, monitor_config, tmp_path, command):
    argv, expected = REFUSED[command]
    if command == "groups undo-reset":  # an undo file of context `it`, the group back at its end
        admin_config = secure.write_context(tmp_path / "admin.yaml")
        for to in ("--to-earliest", "--to-latest"):
            done = secure.cli("--config", str(admin_config), "groups", "reset-offsets", scene["group"],
                              "--topic", scene["topic"], to, "--execute", **secure.password_env())
            assert done.returncode == 0, done.stderr
    before = world(secure, scene)
    result = secure.cli("--config", str(monitor_config), *[a.format(**scene) for a in argv], **secure.monitor_env())
    assert result.returncode == 1
    if command == "groups undo-reset":  # which undo file it read, then the refusal
        undo, refused = result.stderr.strip().splitlines()
        assert undo.startswith("undo file: ") and refused == expected.format(**scene), result.stderr
    else:
        assert one_error_line(result) == expected.format(**scene)
    assert world(secure, scene) == before


def test_leader_election_needs_alter_on_the_cluster(secure, scene, monitor_config):
    """One broker leads every partition already (the CLI plans nothing to elect), so the
    refusal is asked of the backend directly."""
    monitor = KafkaAdmin({**secure.kafka_client(), "sasl.username": MONITOR_USER,
                          "sasl.password": secure.password("kafka-monitor")}, timeout=10)
    with pytest.raises(NotAuthorized) as refused:
        monitor.elect_preferred([(scene["topic"], 0)])
    assert str(refused.value) == ("not authorized: electing preferred leaders: User:monitor lacks Alter on "
                                  "Cluster 'kafka-cluster' (CLUSTER_AUTHORIZATION_FAILED)")
    planned = secure.cli("--config", str(monitor_config), "elect-leaders", "--execute", **secure.monitor_env())
    assert planned.returncode == 0 and planned.stderr.strip().endswith("nothing to change"), planned.stderr


def test_the_monitor_context_is_read_only_too(secure, scene):
    """ZooKeeper and the Connect worker's REST API are not governed by Kafka's ACLs: the
    monitor context refuses every mutation before asking anything."""
    result = monitor_cli(secure, "connect", "pause", "weblog-archive", "--execute")
    assert result.returncode == 3
    assert one_error_line(result) == f"streamctl: error: context '{MONITOR_CONTEXT}' is read-only: refusing connect pause"


def test_the_kraft_quorum_as_the_monitor(secure_kraft):
    """KRaft mode only (ZooKeeper mode has no controller quorum): `check --component quorum`,
    Kafka's metadata-quorum tool (DescribeQuorum: Describe on the Cluster), as the monitor."""
    result = monitor_cli(secure_kraft, "check", "--component", "quorum", "--format", "json")
    assert result.stderr == "", result.stderr
    report = json.loads(result.stdout)
    assert report["components"]["quorum"]["evaluated"] is True, report
    assert result.returncode == 0, report
