"""`streamctl acls` on the secure sandbox in both modes (AclAuthorizer in ZooKeeper mode,
StandardAuthorizer in KRaft mode): a user with no Read on a topic is refused reading it, reads
after `acls create --execute`, and is refused again after `acls delete --execute`; a plan
without --execute changes nothing; read-only mode refuses before asking anything; the audit log
records what was done.

The reader is a SCRAM user this module adds (the sandbox's `monitor` may read every topic):
it holds Read on its own consumer groups (granted directly here) and nothing on the topic."""

from __future__ import annotations

import json
import secrets

import pytest
from confluent_kafka import Consumer, Producer

from streamctl.backends.kafka.acl_admin import AclAdmin, AclBinding, AclQuery
from tests.conftest import RunningSandbox
from tests.security.conftest import MODES
from tests.security.helpers import add_scram_user, one_error_line, unique

pytestmark = pytest.mark.integration

GROUPS = "aclread-"  # the reader's consumer groups (a prefix)


@pytest.fixture(scope="module", params=list(MODES))
def secure(request):
    """Every test here runs on the secure sandbox of each mode (each started once a session)."""
    return request.getfixturevalue(MODES[request.param])


@pytest.fixture(scope="module")
def scene(secure):
    """A topic with one record, and a reader user allowed its groups but not the topic."""
    topic, user, password = unique("acl"), unique("reader"), secrets.token_urlsafe(16)
    add_scram_user(secure, user, password)
    admin = AclAdmin(secure.kafka_client(), timeout=10)
    admin.add_acls([AclBinding(f"User:{user}", "*", "Read", "Allow", "Group", GROUPS, "Prefixed")])
    admin.create_topic(topic, 1, 1)
    producer = Producer({**secure.kafka_client(), "log_level": "0"})
    producer.produce(topic, value=b"granted")
    assert producer.flush(15) == 0
    login = {**secure.kafka_client(), "sasl.username": user, "sasl.password": password}
    return {"topic": topic, "principal": f"User:{user}", "login": login, "admin": admin}


def read_once(scene) -> str:
    """The reader's first record of the topic ('granted'), or the error it met instead
    (a fresh client in a fresh group: nothing cached from an earlier attempt)."""
    consumer = Consumer({**scene["login"], "group.id": unique(GROUPS.rstrip("-")), "enable.auto.commit": False,
                         "auto.offset.reset": "earliest", "log_level": "0"})
    try:
        consumer.subscribe([scene["topic"]])
        for _ in range(20):
            message = consumer.poll(1.0)
            if message is None:
                continue
            if message.error():
                return message.error().name()
            return message.value().decode()
        return "nothing read"
    finally:
        consumer.close()


def read_becomes(scene, expected: str) -> None:
    seen: list[str] = []

    def read() -> bool:
        seen.append(read_once(scene))
        return seen[-1] == expected

    try:
        RunningSandbox.wait_until(read, timeout=90, what=f"the reader's read: {expected}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the reads gave {seen}") from None


def grants(scene) -> list[AclBinding]:
    return scene["admin"].describe_acls(AclQuery("Topic", scene["topic"], "Literal"))


def audit(secure, operation: str, topic: str) -> list[dict]:
    """The sandbox context's audit records of `operation` about `topic` (other modules change
    ACLs on the same sandbox)."""
    path = secure.xdg_state / "streamctl" / "audit.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in records if r["operation"] == operation and r["context"] == "sandbox"
            and any(b["name"] == topic for b in (r.get("parameters") or {}).get("bindings", []))]


def acls(secure, *args: str):
    return secure.cli("--context", "sandbox", "acls", *args)


def test_grant_then_revoke_read(secure, scene):
    topic, who = scene["topic"], scene["principal"]
    read_becomes(scene, "TOPIC_AUTHORIZATION_FAILED")
    grant = ("create", "--principal", who, "--operation", "Read", "--topic", topic)

    planned = acls(secure, *grant, "-o", "json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    assert [(c["object"], c["field"], c["after"]) for c in plan["changes"]] == \
        [(who, f"Allow Read on Topic '{topic}' from host *", "present")]
    assert planned.stderr.strip().endswith("nothing changed; add --execute to apply")
    assert grants(scene) == [] and audit(secure, "acls.create", topic) == []

    created = acls(secure, *grant, "--execute")
    assert created.returncode == 0, created.stderr
    assert grants(scene) == [AclBinding(who, "*", "Read", "Allow", "Topic", topic, "Literal")]
    read_becomes(scene, "granted")
    again = acls(secure, *grant, "-o", "json")
    assert json.loads(again.stdout)["changes"] == [] and "already exists" in again.stdout

    listed = acls(secure, "list", "--topic", topic, "--principal", who, "-o", "json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == [{"principal": who, "host": "*", "operation": "Read", "permission": "Allow",
                                          "resource_type": "Topic", "name": topic, "pattern": "Literal"}]

    revoke = ("delete", "--principal", who, "--topic", topic)
    shown = acls(secure, *revoke, "-o", "json")
    assert shown.returncode == 0, shown.stderr
    plan = json.loads(shown.stdout)
    assert [(c["field"], c["note"]) for c in plan["changes"]] == \
        [(f"Allow Read on Topic '{topic}' from host *", f"loses Describe on Topic '{topic}', Read on Topic '{topic}'")]
    assert f"{who} can then no longer: Describe on Topic '{topic}', Read on Topic '{topic}'" in plan["warnings"]
    assert len(grants(scene)) == 1 and audit(secure, "acls.delete", topic) == []

    deleted = acls(secure, *revoke, "--execute")
    assert deleted.returncode == 0, deleted.stderr
    assert grants(scene) == []
    read_becomes(scene, "TOPIC_AUTHORIZATION_FAILED")

    [create_record], [delete_record] = audit(secure, "acls.create", topic), audit(secure, "acls.delete", topic)
    assert (create_record["result"], delete_record["result"]) == ("ok", "ok")
    assert create_record["after"] == [[who, f"Allow Read on Topic '{topic}' from host *", "present"]]
    assert delete_record["parameters"]["bindings"] == [{"principal": who, "host": "*", "operation": "Read",
                                                        "permission": "Allow", "resource_type": "Topic",
                                                        "name": topic, "pattern": "Literal"}]


def test_a_topic_filter_shows_the_prefixed_and_wildcard_bindings_that_match(secure, scene):
    topic, who = scene["topic"], scene["principal"]
    prefix = topic[:6]
    scene["admin"].add_acls([AclBinding(who, "*", "Describe", "Allow", "Topic", prefix, "Prefixed")])
    try:
        listed = acls(secure, "list", "--topic", topic, "-o", "json")
        assert listed.returncode == 0, listed.stderr
        found = {(b["principal"], b["operation"], b["name"], b["pattern"]) for b in json.loads(listed.stdout)}
        assert (who, "Describe", prefix, "Prefixed") in found
        assert ("User:monitor", "Read", "*", "Literal") in found  # the sandbox's monitoring grant
        assert all(b[2] in (topic, prefix, "*") for b in found), found
    finally:
        scene["admin"].remove_acls([AclBinding(who, "*", "Describe", "Allow", "Topic", prefix, "Prefixed")])


@pytest.mark.parametrize("command", ["create", "delete"])
def test_read_only_refuses_before_asking_anything(secure, scene, command):
    topic, who = scene["topic"], scene["principal"]
    before = scene["admin"].describe_acls(AclQuery())
    result = acls(secure, "--read-only", command, "--principal", who, "--operation", "Read", "--topic", topic,
                  "--execute")
    assert result.returncode == 3 and result.stdout == ""
    assert one_error_line(result) == f"streamctl: error: read-only mode (--read-only): refusing acls {command}"
    assert scene["admin"].describe_acls(AclQuery()) == before


def test_the_brokers_refuse_a_principal_without_alter_on_the_cluster(secure, scene, tmp_path):
    """`monitor` may describe ACLs (Describe on the Cluster) but not create them."""
    config = secure.write_monitor_context(tmp_path / "monitor.yaml")
    result = secure.cli("--config", str(config), "acls", "create", "--principal", scene["principal"],
                        "--operation", "Read", "--topic", scene["topic"], "--execute", **secure.monitor_env())
    assert result.returncode == 1, result.stderr
    assert one_error_line(result) == ("streamctl: error: not authorized: creating ACLs: User:monitor lacks Alter on "
                                      "Cluster 'kafka-cluster' (CLUSTER_AUTHORIZATION_FAILED)")
    assert grants(scene) == []
