"""check's ACL rules: how a binding applies to a name (literal, `*`, prefix), Deny winning over
Allow, super users left out, the missing-grant and allow-everyone findings, and a cluster
without an authorizer (the rule not evaluated, check otherwise unchanged)."""

from __future__ import annotations

import json
from dataclasses import replace

from confluent_kafka import KafkaError, KafkaException

from streamctl.backends.kafka.access_reads import NO_AUTHORIZER, listener_protocols, why_unread
from streamctl.check.render import render_json
from streamctl.kafka.access_rules import ALLOW_EVERYONE, MISSING_GRANT, access_health, applies, readers
from streamctl.kafka.health import Filters
from streamctl.kafka.serialize import snapshot_from_dict
from streamctl.model.acls import AclBinding, BrokerSecurity, ClusterAccess
from streamctl.model.health import Evaluation, Severity
from streamctl.model.kafka import KafkaSnapshot, PartitionLag
from tests import repo

SASL = BrokerSecurity(1, ("SASL_PLAINTEXT",), "false", "User:broker;User:streamctl")


def acl(who: str, op: str, kind: str, name: str, pattern: str = "Literal", permission: str = "Allow",
        host: str = "*") -> AclBinding:
    return AclBinding(who, host, op, permission, kind, name, pattern)


APP_GRANTS = (acl("User:app", "Read", "Topic", "orders"), acl("User:app", "Read", "Group", "billing"))


def snapshot(access: ClusterAccess | None, lags=(("billing", "orders", 5),)) -> KafkaSnapshot:
    return KafkaSnapshot(0.0, "c", (), None, False, (),
                         lags=tuple(PartitionLag(g, t, 0, committed, 0, 10) for g, t, committed in lags),
                         access=access)


def health(access: ClusterAccess | None, **kwargs):
    return access_health(snapshot(access, **kwargs), Filters())


def test_a_binding_applies_to_its_literal_name_the_wildcard_and_prefixes_the_name_starts_with():
    assert applies(acl("User:a", "Read", "Topic", "orders"), "Topic", "orders")
    assert not applies(acl("User:a", "Read", "Topic", "orders"), "Topic", "orders-eu")
    assert applies(acl("User:a", "Read", "Topic", "*"), "Topic", "orders")
    assert applies(acl("User:a", "Read", "Topic", "ord", "Prefixed"), "Topic", "orders")
    assert not applies(acl("User:a", "Read", "Topic", "eu-", "Prefixed"), "Topic", "orders")
    assert not applies(acl("User:a", "Read", "Group", "orders"), "Topic", "orders")
    assert not applies(acl("User:a", "Read", "Topic", "*", "Prefixed"), "Topic", "orders")  # a literal '*' only


def test_read_or_all_grants_read_and_deny_for_the_principal_or_everyone_wins():
    acls = (acl("User:a", "Read", "Topic", "ord", "Prefixed"), acl("User:b", "All", "Topic", "*"),
            acl("User:c", "Describe", "Topic", "orders"), acl("User:d", "Read", "Topic", "orders"),
            acl("User:d", "Read", "Topic", "or", "Prefixed", permission="Deny"))
    assert readers(acls, "Topic", "orders", set()) == {"User:a", "User:b"}
    everyone_denied = (*acls, acl("User:*", "All", "Topic", "*", permission="Deny"))
    assert readers(everyone_denied, "Topic", "orders", set()) == set()
    # a Deny from one host leaves an Allow from every host standing; from the Allow's own host it wins
    one_host = (acl("User:a", "Read", "Topic", "orders"), acl("User:a", "Read", "Topic", "orders", permission="Deny",
                                                              host="10.0.0.1"))
    assert readers(one_host, "Topic", "orders", set()) == {"User:a"}
    same_host = (acl("User:a", "Read", "Topic", "orders", host="10.0.0.1"),
                 acl("User:a", "Read", "Topic", "orders", permission="Deny", host="10.0.0.1"))
    assert readers(same_host, "Topic", "orders", set()) == set()


def test_super_users_grants_do_not_count():
    acls = (acl("User:streamctl", "Read", "Topic", "orders"),)
    assert readers(acls, "Topic", "orders", {"User:streamctl"}) == set()
    findings, _ = health(ClusterAccess(acls, brokers=(SASL,)))
    assert [f.text for f in findings] == \
        ["group billing has offsets on topic orders: no principal may Read Topic 'orders' nor Group 'billing'"]


def test_a_pair_nobody_was_granted_is_read_by_super_users_and_quiet():
    monitor = (acl("User:monitor", "Read", "Topic", "*"), acl("User:monitor", "Describe", "Group", "*"))
    assert health(ClusterAccess(monitor, brokers=(SASL,))) == ([], {})
    assert health(ClusterAccess((), brokers=(SASL,))) == ([], {})
    denied_group = (*monitor, acl("User:app", "Read", "Group", "bill", "Prefixed"))
    [finding] = health(ClusterAccess(denied_group, brokers=(SASL,)))[0]
    assert finding.code == MISSING_GRANT  # the group was granted to app, the topic to nobody but the monitor


def test_granted_group_and_topic_are_quiet():
    assert health(ClusterAccess(APP_GRANTS, brokers=(SASL,))) == ([], {})
    wildcard = (acl("User:*", "Read", "Topic", "*"), acl("User:app", "Read", "Group", "bill", "Prefixed"))
    assert health(ClusterAccess(wildcard, brokers=(SASL,))) == ([], {})


def test_a_missing_group_grant_is_a_warning_naming_group_topic_and_what_is_missing():
    findings, skipped = health(ClusterAccess(APP_GRANTS[:1], brokers=(SASL,)))
    assert skipped == {}
    [finding] = findings
    assert (finding.severity, finding.code, finding.object) == (Severity.WARN, MISSING_GRANT, "group billing")
    assert finding.text == "group billing has offsets on topic orders: no principal may Read Group 'billing'"


def test_topic_and_group_readable_only_by_different_principals():
    acls = (acl("User:monitor", "Read", "Topic", "*"), acl("User:app", "Read", "Group", "billing"))
    [finding] = health(ClusterAccess(acls, brokers=(SASL,)))[0]
    assert finding.text == ("group billing has offsets on topic orders: no principal may Read both Topic 'orders' "
                            "and Group 'billing' (the topic: User:monitor; the group: User:app)")


def test_only_groups_with_committed_offsets_are_judged():
    assert health(ClusterAccess((), brokers=(SASL,)), lags=(("billing", "orders", None),)) == ([], {})


def test_without_an_authorizer_the_rule_is_not_evaluated_and_says_why():
    access = ClusterAccess(None, NO_AUTHORIZER, no_authorizer=True,
                           brokers=(BrokerSecurity(1, ("PLAINTEXT",), None, None),))
    assert health(access) == ([], {MISSING_GRANT: NO_AUTHORIZER})


def test_the_plain_clusters_answer_means_no_authorizer():
    """What describe_acls raises on a broker without an authorizer (error 54)."""
    answer = KafkaException(KafkaError(KafkaError.SECURITY_DISABLED, "Security features are disabled"))
    assert why_unread(answer, "this client's principal") == NO_AUTHORIZER


def test_a_refusal_is_unknown_for_the_rule_naming_the_acl():
    refused = KafkaException(KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED, "denied"))
    why = why_unread(refused, "User:app")
    assert why == ("not authorized: describing ACLs: User:app lacks Describe on Cluster 'kafka-cluster' "
                   "(CLUSTER_AUTHORIZATION_FAILED)")
    [finding] = health(ClusterAccess(None, why, brokers=(SASL,)))[0]
    assert (finding.severity, finding.code) == (Severity.UNKNOWN, "KAFKA_ACL_UNREADABLE")
    assert finding.text == f"missing-grant rule not evaluated: {why}"


def test_allow_everyone_on_a_secured_listener_warns_naming_the_brokers():
    brokers = (replace(SASL, allow_everyone="true"), replace(SASL, broker=2),
               BrokerSecurity(3, ("PLAINTEXT",), "true", None), BrokerSecurity(4, ("SSL",), "TRUE", None))
    findings, _ = health(ClusterAccess(APP_GRANTS, brokers=brokers))
    [finding] = findings
    assert (finding.severity, finding.code, finding.object) == (Severity.WARN, ALLOW_EVERYONE, "broker 1, broker 4")


def test_a_hidden_allow_everyone_value_is_said_not_evaluated_an_unset_one_is_the_default_false():
    # what the sandbox's brokers answer in both modes (tests/security/test_acl_rules.py)
    hidden = BrokerSecurity(1, ("SASL_PLAINTEXT",), None, None, ("allow.everyone.if.no.acl.found", "super.users"))
    findings, skipped = health(ClusterAccess(APP_GRANTS, brokers=(hidden,)))
    assert findings == []
    assert skipped == {ALLOW_EVERYONE: "broker(s) 1 send allow.everyone.if.no.acl.found as sensitive, without its value"}
    assert health(ClusterAccess(APP_GRANTS, brokers=(replace(SASL, allow_everyone=None),))) == ([], {})


def test_listener_protocols_through_the_protocol_map():
    assert listener_protocols("SASL_PLAINTEXT://h:9092", None) == ("SASL_PLAINTEXT",)
    assert listener_protocols("CLIENT://h:9092,CONTROLLER://h:9093",
                              "CLIENT:SASL_SSL,CONTROLLER:PLAINTEXT") == ("SASL_SSL", "PLAINTEXT")


def test_json_names_the_rule_not_evaluated_and_the_component_stays_evaluated():
    evaluation = Evaluation(evaluated=["kafka"], rules_unevaluated={"kafka": {MISSING_GRANT: NO_AUTHORIZER}})
    document = json.loads(render_json(evaluation, 0.0))
    assert document["state"] == "OK"
    assert document["components"]["kafka"] == {"state": "OK", "evaluated": True, "reason": None,
                                               "rules_not_evaluated": {MISSING_GRANT: NO_AUTHORIZER}}
    plain = json.loads(render_json(Evaluation(evaluated=["kafka"]), 0.0))
    assert plain["components"]["kafka"] == {"state": "OK", "evaluated": True, "reason": None}


def test_a_plain_cluster_adds_no_finding_to_the_captured_healthy_snapshot():
    snap = snapshot_from_dict(json.loads((repo.FIXTURES / "kafka" / "healthy.json").read_text()))
    assert snap.lags  # groups with committed offsets, which the rule would otherwise judge
    no_authorizer = ClusterAccess(None, NO_AUTHORIZER, no_authorizer=True,
                                  brokers=tuple(BrokerSecurity(b.id, ("PLAINTEXT",), None, None) for b in snap.brokers))
    assert access_health(replace(snap, access=no_authorizer), Filters()) == ([], {MISSING_GRANT: NO_AUTHORIZER})
