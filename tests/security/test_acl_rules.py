"""check's ACL rules on the secure sandbox in both modes (AclAuthorizer in ZooKeeper mode,
StandardAuthorizer in KRaft mode), checked as the `monitor` principal (Describe on the Cluster):

- a group read by a user holding Read on its topic and on itself: the missing-grant rule is
  quiet; `acls delete --execute` of the group's Read grant makes it WARN naming group, topic
  and what is missing; `acls create --execute` clears it again;
- the brokers' security configs as DescribeConfigs answers them: SASL listeners, and
  allow.everyone.if.no.acl.found and super.users sent as sensitive (no value), so the
  allow-everyone rule says it was not evaluated instead of judging.

The reader is a SCRAM user this module adds; its grants are removed at the end (other modules
count the cluster's bindings)."""

from __future__ import annotations

import json
import secrets

import pytest
from confluent_kafka import Consumer, KafkaException, Producer

from streamctl.backends.kafka.acl_admin import AclAdmin, AclBinding
from streamctl.backends.kafka.cluster import KafkaBackend
from streamctl.sandbox.secure import MONITOR_CONTEXT
from tests.conftest import RunningSandbox
from tests.security.conftest import MODES
from tests.security.helpers import add_scram_user, unique

pytestmark = pytest.mark.integration

MISSING_GRANT = "KAFKA_ACL_MISSING_GRANT"


@pytest.fixture(scope="module", params=list(MODES))
def secure(request):
    """Every test here runs on the secure sandbox of each mode (each started once a session)."""
    return request.getfixturevalue(MODES[request.param])


def consumed(login: dict, topic: str, group: str) -> bool:
    """Read the topic's record as `group` and commit it; False while the brokers refuse (the
    new grants not applied yet) or nothing came."""
    consumer = Consumer({**login, "group.id": group, "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "log_level": "0"})
    try:
        consumer.subscribe([topic])
        for _ in range(10):
            message = consumer.poll(1.0)
            if message is not None:
                if message.error():
                    return False
                try:
                    consumer.commit(message=message, asynchronous=False)
                except KafkaException:  # the group's grant not applied yet
                    return False
                return True
        return False
    finally:
        consumer.close()


@pytest.fixture(scope="module")
def scene(secure):
    """A topic with one record and a group that read it, as a user holding Read on both."""
    topic, group, user, password = unique("aclrule"), unique("aclruleg"), unique("ruler"), secrets.token_urlsafe(16)
    add_scram_user(secure, user, password)
    admin = AclAdmin(secure.kafka_client(), timeout=10)
    who = f"User:{user}"
    grants = [AclBinding(who, "*", "Read", "Allow", "Topic", topic, "Literal"),
              AclBinding(who, "*", "Read", "Allow", "Group", group, "Literal")]
    admin.add_acls(grants)
    admin.create_topic(topic, 1, 1)
    producer = Producer({**secure.kafka_client(), "log_level": "0"})
    producer.produce(topic, value=b"one")
    assert producer.flush(15) == 0
    login = {**secure.kafka_client(), "sasl.username": user, "sasl.password": password}
    RunningSandbox.wait_until(lambda: consumed(login, topic, group), timeout=90, what="the reader's commit")
    yield {"topic": topic, "group": group, "principal": who}
    admin.remove_acls(grants)


def check_as_monitor(secure) -> dict:
    result = secure.cli("--context", MONITOR_CONTEXT, "check", "--component", "kafka", "--format", "json")
    assert result.stderr == ""
    report = json.loads(result.stdout)
    assert report["components"]["kafka"]["evaluated"] is True, report
    return report


def missing_grants(report: dict, group: str) -> list[dict]:
    return [f for f in report["findings"] if f["code"] == MISSING_GRANT and f["object"] == f"group {group}"]


def test_a_deleted_read_grant_fires_the_rule_and_a_new_one_clears_it(secure, scene):
    topic, group, who = scene["topic"], scene["group"], scene["principal"]
    before = check_as_monitor(secure)
    assert missing_grants(before, group) == []
    assert MISSING_GRANT not in before["components"]["kafka"].get("rules_not_evaluated", {})
    assert not [f for f in before["findings"] if f["code"] == "KAFKA_ACL_UNREADABLE"]

    grant = ("--principal", who, "--operation", "Read", "--group", group, "--execute")
    deleted = secure.cli("--context", "sandbox", "acls", "delete", *grant)
    assert deleted.returncode == 0, deleted.stderr
    reports: list[dict] = []

    def fired() -> bool:
        reports.append(check_as_monitor(secure))
        return bool(missing_grants(reports[-1], group))

    RunningSandbox.wait_until(fired, timeout=60, what="the missing-grant finding")
    [finding] = missing_grants(reports[-1], group)
    assert finding["severity"] == "WARN"
    assert finding["text"] == f"group {group} has offsets on topic {topic}: no principal may Read Group '{group}'"
    assert reports[-1]["state"] in ("WARN", "CRIT")

    created = secure.cli("--context", "sandbox", "acls", "create", *grant)
    assert created.returncode == 0, created.stderr
    RunningSandbox.wait_until(lambda: not missing_grants(check_as_monitor(secure), group), timeout=60,
                              what="the missing-grant finding to clear")


def test_the_brokers_security_configs_and_the_allow_everyone_rule(secure, scene):
    snap = KafkaBackend(secure.kafka_client(), timeout=10).snapshot(access=True)
    assert snap.access is not None and snap.access.acls is not None
    assert AclBinding(scene["principal"], "*", "Read", "Allow", "Topic", scene["topic"], "Literal") in snap.access.acls
    assert [b.broker for b in snap.access.brokers] == [b.id for b in snap.brokers]
    # The brokers send the authorizer's configs (set in server.properties) as sensitive: no value.
    assert {(b.protocols[0], b.allow_everyone, b.super_users, b.hidden) for b in snap.access.brokers} == \
        {("SASL_PLAINTEXT", None, None, ("allow.everyone.if.no.acl.found", "super.users"))}
    report = check_as_monitor(secure)
    assert not [f for f in report["findings"] if f["code"] == "KAFKA_ACL_ALLOW_EVERYONE"]
    assert "send allow.everyone.if.no.acl.found as sensitive" in \
        report["components"]["kafka"]["rules_not_evaluated"]["KAFKA_ACL_ALLOW_EVERYONE"]
