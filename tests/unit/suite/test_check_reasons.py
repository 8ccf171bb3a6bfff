"""The fault tests' judge of why `check` left a component UNKNOWN: the product's own service
conditions pass, a collector's bug (in either wording check has used) never does."""

from __future__ import annotations

import pytest

from tests.check_reasons import (
    CLIENT_CRASHED,
    assert_unknowns_are_service_conditions,
    bug_marker,
    is_service_condition,
    problem_lines,
)

# Reasons seen from the collectors (their NotEvaluated texts, filled as the fault runs fill them).
SERVICE_REASONS = [
    "no answer within 10 s",
    "deadline reached",
    "no time left before the deadline",
    "no answer within the deadline (metadata request failed: Failed to get metadata: Local: Broker transport failure)",
    "broker 2 at 127.0.0.1:40113 did not answer within 1.0 s (list_groups: no answer from the Kafka client in 80 s)",
    "broker 3 at 127.0.0.1:40115 refuses connections (metadata request timed out)",
    "127.0.0.1:9 unreachable ([Errno 113] No route to host) (metadata request failed: Local: Timed out)",
    "no answer within the deadline (ZooKeeper unreachable at 127.0.0.1:2181: connection refused)",
    "agents did not answer before the deadline",
    "the Spark jobs were not read within the deadline",
    "connection refused (cut short by the deadline)",
    "metadata quorum: no answer within 5 s",
    "Kafka not read: offsets of t/0: Broker: Not coordinator",
    "Kafka not read: offsets of t/0: Broker: Leader not available",
    "HDFS (WebHDFS at 127.0.0.1:9870) does not answer: java.net.ConnectException: Connection refused",
    # checkpoint_store.StoreUnreachable names the client library's network error on purpose
    "job weblog-stats: checkpoint not read: HDFS (WebHDFS at 127.0.0.1:9870) does not answer: ConnectionError",
    "S3 (127.0.0.1:9000/ckpt) does not answer: EndpointConnectionError: Could not connect to the endpoint URL",
    "Kafka not read: http://127.0.0.1:4040/api/v1/applications: ConnectError: [Errno 111] Connection refused",
]

# What check said, or says, for an exception a collector did not expect.
BUG_REASONS = [
    "TypeError: 'NoneType' object is not subscriptable",
    "KeyError: 'brokers'",
    "AttributeError: 'Snapshot' object has no attribute 'groups' (no answer within the deadline)",
    "internal error in the kafka collector; traceback in /tmp/state/streamctl/check-internal.log",
    "broker 2 down (answer not transferable: PicklingError: Can't pickle <function <lambda>>)",
    "no answer within the deadline: StopIteration",
    "Traceback (most recent call last): ...",
    "ConnectionRefusedError: [Errno 111] Connection refused",  # a network error no collector translated
]


@pytest.mark.parametrize("reason", SERVICE_REASONS)
def test_a_service_condition_passes(reason):
    assert is_service_condition(reason) and bug_marker(reason) is None


@pytest.mark.parametrize("reason", BUG_REASONS)
def test_a_bug_never_passes(reason):
    assert not is_service_condition(reason)
    assert bug_marker(reason) or reason.startswith("ConnectionRefusedError: ")  # its own type, first
    assert not is_service_condition(reason, also=CLIENT_CRASHED)


def test_a_reason_naming_no_condition_does_not_pass():
    assert not is_service_condition("could not be judged")
    assert not is_service_condition("")


def test_a_client_crash_passes_only_where_a_test_accepts_it():
    reason = ("list_groups: the Kafka client crashed 4 times (SIGABRT, SIGSEGV, SIGSEGV, SIGABRT, librdkafka); "
              "nothing was read")
    assert not is_service_condition(reason)
    assert is_service_condition(reason, also=CLIENT_CRASHED)


def _doc(reason=None, unknown_text=None):
    findings = [{"severity": "CRIT", "component": "kafka", "object": "broker 3", "code": "KAFKA_BROKER_DOWN",
                 "text": "broker 3 down (2 of 3 brokers)"}]
    if unknown_text:
        findings.append({"severity": "UNKNOWN", "component": "kafka", "object": "broker 2",
                         "code": "KAFKA_BROKER_SILENT", "text": unknown_text})
    components = {"kafka": {"state": "CRIT", "evaluated": True, "reason": None},
                  "zookeeper": {"state": "UNKNOWN" if reason else "OK", "evaluated": reason is None, "reason": reason}}
    return {"state": "CRIT", "components": components, "findings": findings}


def test_the_json_document_is_judged_by_each_component_and_unknown_finding():
    assert_unknowns_are_service_conditions(_doc("deadline reached", "broker 2 at h:1 did not answer"))
    with pytest.raises(AssertionError, match="zookeeper not evaluated for no service condition"):
        assert_unknowns_are_service_conditions(_doc("ValueError: bad port"))
    with pytest.raises(AssertionError, match="a bug"):
        assert_unknowns_are_service_conditions(_doc(None, "IndexError: list index out of range"))
    assert problem_lines(_doc("deadline reached")).splitlines() == [
        "[CRIT] kafka broker 3: broker 3 down (2 of 3 brokers)",
        "[UNKNOWN] zookeeper not evaluated: deadline reached"]
