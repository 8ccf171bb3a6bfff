"""The Kafka health rules (streamctl.kafka.health), fed snapshots captured from the 3-broker sandbox.

The fixtures come from tests/fixtures/capture_kafka.py. Variants of them (offline partitions,
short ISRs, a missing controller, lag in seconds, partial snapshots) are derived with
`dataclasses.replace`, so every test starts from a real cluster's metadata.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import pytest

from streamctl.kafka.health import Filters, kafka_health
from streamctl.kafka.lag.rules import GroupStatus, LagStatus
from streamctl.kafka.serialize import snapshot_from_dict
from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.kafka import KafkaSnapshot
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "kafka"
OK, WARN, CRIT, UNKNOWN = Severity.OK, Severity.WARN, Severity.CRIT, Severity.UNKNOWN
EXPECTED_BROKERS = 3


# ---- helpers -------------------------------------------------------------------------------

@cache
def raw(name: str) -> dict:
    """A fixture file as plain JSON, for computing expected numbers independently of the model."""
    return json.loads((FIXTURES / f"{name}.json").read_text())


def load(name: str) -> KafkaSnapshot:
    return snapshot_from_dict(json.loads((FIXTURES / f"{name}.json").read_text()))


def health(snap: KafkaSnapshot, expected: int | None = EXPECTED_BROKERS, filters: Filters = Filters(),  # noqa: B008 - frozen
           group_status=None, **thresholds) -> tuple[list[Finding], list[Metric]]:
    return kafka_health(snap, Thresholds(**thresholds), expected, filters, group_status)


def by_code(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def one(findings: list[Finding], code: str) -> Finding:
    found = by_code(findings, code)
    assert len(found) == 1, f"expected one {code}, got {found}"
    return found[0]


def problems(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is not OK]


def metric(metrics: list[Metric], name: str, **labels: str) -> Metric:
    found = [m for m in metrics if m.name == name and m.labels == labels]
    assert len(found) == 1, f"expected one {name}{labels or ''}, got {found}"
    return found[0]


def metric_names(metrics: list[Metric]) -> set[str]:
    return {m.name for m in metrics}


def with_partition(snap: KafkaSnapshot, topic: str, partition: int, **changes) -> KafkaSnapshot:
    """The snapshot with one partition's state changed."""
    topics = tuple(
        replace(t, partitions=tuple(replace(p, **changes) if p.partition == partition else p
                                    for p in t.partitions)) if t.name == topic else t
        for t in snap.topics)
    assert topics != snap.topics, f"{topic}/{partition} not in the snapshot"
    return replace(snap, topics=topics)


def with_lags(snap: KafkaSnapshot, group: str, **changes) -> KafkaSnapshot:
    """The snapshot with every partition lag of one group changed."""
    assert snap.group_lags(group), f"group {group} not in the snapshot"
    return replace(snap, lags=tuple(replace(l, **changes) if l.group == group else l for l in snap.lags))


def with_partition_lag_seconds(snap: KafkaSnapshot, group: str, seconds: dict[int, float]) -> KafkaSnapshot:
    """The snapshot with lag_seconds set on some partitions (by number) of one group."""
    return replace(snap, lags=tuple(replace(l, lag_seconds=seconds[l.partition])
                                    if l.group == group and l.partition in seconds else l
                                    for l in snap.lags))


def group_lag(name: str, group: str) -> int:
    """A group's lag summed over its partitions, from the fixture's raw offsets."""
    return sum(l["log_end"] - l["committed"] for l in raw(name)["lags"] if l["group"] == group)


def urp_count(name: str) -> int:
    return sum(len(p["isr"]) < len(p["replicas"]) for t in raw(name)["topics"] for p in t["partitions"])


def partition_count(name: str, topics=None) -> int:
    return sum(len(t["partitions"]) for t in raw(name)["topics"] if topics is None or t["name"] in topics)


def status(group: str, lag_status: LagStatus, detail: str = "") -> dict[str, GroupStatus]:
    return {group: GroupStatus(group, lag_status, (), detail or f"{group} is {lag_status.value.lower()}")}


BILLING_LAG = group_lag("healthy", "billing")


def test_fixture_facts_the_tests_rely_on():
    assert BILLING_LAG == 0 + 150 + 300 + 450 + 600 + 750
    assert group_lag("healthy", "ledger") == 0
    assert urp_count("healthy") == 0 and urp_count("retention-deleted") == 0
    assert urp_count("broker-down") == 21
    assert [b["id"] for b in raw("broker-down")["brokers"]] == [1, 3]


# ---- a healthy cluster ------------------------------------------------------------------

def test_healthy_with_thresholds_above_the_lag_is_one_ok_finding():
    findings, _ = health(load("healthy"), lag_records_warn=BILLING_LAG, lag_records_crit=BILLING_LAG)
    assert findings == [Finding(OK, "kafka", "cluster", "KAFKA_OK",
                                f"3 brokers, {partition_count('healthy')} partitions healthy")]


def test_healthy_with_default_thresholds_only_warns_on_billing_lag():
    # billing lags 2250 records in sum, over the default lag_records_warn of 1000.
    assert Thresholds().lag_records_warn < BILLING_LAG
    findings, _ = health(load("healthy"))
    assert [(f.severity, f.code, f.object) for f in problems(findings)] == [
        (WARN, "KAFKA_GROUP_LAG", "group billing")]
    assert not by_code(findings, "KAFKA_OK")


@pytest.mark.parametrize("thresholds, severity", [
    ({"lag_records_warn": 100}, WARN),
    ({"lag_records_warn": 100, "lag_records_crit": 1000}, CRIT),
    ({"lag_records_warn": BILLING_LAG - 1}, WARN),
    ({"lag_records_warn": 0, "lag_records_crit": BILLING_LAG - 1}, CRIT),
])
def test_healthy_billing_lag_over_thresholds(thresholds, severity):
    findings, _ = health(load("healthy"), **thresholds)
    lag = one(findings, "KAFKA_GROUP_LAG")
    assert (lag.severity, lag.object, lag.value) == (severity, "group billing", BILLING_LAG)
    assert f"group billing lags {BILLING_LAG} records" in lag.text
    assert problems(findings) == [lag]


def test_lag_equal_to_the_threshold_is_not_over_it():
    findings, _ = health(load("healthy"), lag_records_warn=BILLING_LAG)
    assert not by_code(findings, "KAFKA_GROUP_LAG")


def test_caught_up_group_never_lags():
    findings, metrics = health(load("healthy"), lag_records_warn=0, lag_seconds_warn=0)
    assert [f.object for f in by_code(findings, "KAFKA_GROUP_LAG")] == ["group billing"]
    assert metric(metrics, "kafka_group_lag_records", group="ledger").value == 0


def test_healthy_metrics():
    _, metrics = health(load("healthy"))
    assert metric(metrics, "kafka_brokers").value == 3
    assert metric(metrics, "kafka_active_controller").value == 1
    for name in ("kafka_offline_partitions", "kafka_under_min_isr_partitions",
                 "kafka_under_replicated_partitions", "kafka_at_min_isr_partitions"):
        assert metric(metrics, name).value == 0, name
    assert metric(metrics, "kafka_partitions").value == partition_count("healthy")
    assert metric(metrics, "kafka_group_lag_records", group="billing").value == BILLING_LAG


# ---- brokers ------------------------------------------------------------------------------

def test_broker_down_is_critical_and_names_the_broker():
    findings, _ = health(load("broker-down"))
    down = one(findings, "KAFKA_BROKER_DOWN")
    assert down.severity is CRIT
    assert down.object == "broker 2"
    assert "broker 2 down" in down.text
    assert "2 of 3 brokers" in down.text
    assert f"{urp_count('broker-down')} under-replicated partitions" in down.text
    assert down.value == 2


def test_broker_down_under_replicated_partitions_warn():
    findings, _ = health(load("broker-down"))
    urp = one(findings, "KAFKA_URP")
    assert urp.severity is WARN
    assert urp.value == urp_count("broker-down")
    assert urp.text == f"{urp_count('broker-down')} under-replicated partitions"
    assert urp.object.endswith(f"(+{urp_count('broker-down') - 5} more)")


def test_broker_down_shrinks_isr_to_min_but_nothing_goes_offline():
    findings, metrics = health(load("broker-down"))
    assert not by_code(findings, "KAFKA_OFFLINE")
    assert not by_code(findings, "KAFKA_UNDER_MIN_ISR")
    at_min = sum(p["leader"] >= 0 and p["min_isr"] is not None and len(p["isr"]) == p["min_isr"]
                 for t in raw("broker-down")["topics"] for p in t["partitions"])
    assert at_min == 9  # orders (6) and payments (3): min.insync.replicas=2, ISR shrunk to 2
    assert metric(metrics, "kafka_at_min_isr_partitions").value == at_min


def test_broker_down_metrics():
    _, metrics = health(load("broker-down"))
    brokers = metric(metrics, "kafka_brokers")
    assert (brokers.value, brokers.alert_below, brokers.warn, brokers.crit) == (2, True, 3, 3)
    urp = metric(metrics, "kafka_under_replicated_partitions")
    assert (urp.value, urp.warn, urp.perfdata) == (urp_count("broker-down"), 0, True)


@pytest.mark.parametrize("expected", [EXPECTED_BROKERS, None])
@pytest.mark.parametrize("thresholds, severity", [
    ({"min_brokers_warn": 3, "min_brokers_crit": 2}, WARN),
    ({"min_brokers_warn": 3, "min_brokers_crit": 3}, CRIT),
    ({"min_brokers_warn": 2, "min_brokers_crit": 1}, WARN),
])
def test_broker_thresholds_choose_the_severity(thresholds, severity, expected):
    findings, metrics = health(load("broker-down"), expected=expected, **thresholds)
    assert one(findings, "KAFKA_BROKER_DOWN").severity is severity
    brokers = metric(metrics, "kafka_brokers")
    assert (brokers.warn, brokers.crit) == (thresholds["min_brokers_warn"], thresholds["min_brokers_crit"])


def test_broker_down_without_an_expected_count_is_still_critical():
    # Broker 2 holds replicas but is not registered: the rule finds it without expected_brokers.
    # By the module docstring a missing broker is CRIT by default; WARN only between
    # min_brokers_warn and min_brokers_crit, and neither is set here.
    findings, _ = health(load("broker-down"), expected=None)
    down = one(findings, "KAFKA_BROKER_DOWN")
    assert (down.object, down.value) == ("broker 2", 2)
    assert "2 of 3 brokers" in down.text
    assert down.severity is CRIT


def test_fewer_brokers_than_expected_without_orphaned_replicas():
    findings, _ = health(load("healthy"), expected=4)
    down = one(findings, "KAFKA_BROKER_DOWN")
    assert (down.severity, down.object, down.value) == (CRIT, "brokers", 3)
    assert "3 of 4 brokers" in down.text


def test_all_expected_brokers_up_is_no_finding():
    findings, _ = health(load("healthy"))
    assert not by_code(findings, "KAFKA_BROKER_DOWN")


# ---- partitions ---------------------------------------------------------------------------

@pytest.mark.parametrize("fixture, leader", [
    ("healthy", -1),  # no leader at all
    ("broker-down", 2),  # leader is the stopped broker (stale metadata)
])
def test_offline_partition_is_critical(fixture, leader):
    snap = with_partition(load(fixture), "orders", 0, leader=leader, isr=())
    findings, metrics = health(snap)
    offline = one(findings, "KAFKA_OFFLINE")
    assert (offline.severity, offline.object, offline.value) == (CRIT, "orders/0", 1)
    assert metric(metrics, "kafka_offline_partitions").value == 1
    # The offline partition is below min ISR too, but is reported once, as offline.
    assert not by_code(findings, "KAFKA_UNDER_MIN_ISR")
    assert metric(metrics, "kafka_under_min_isr_partitions").value == 0


def test_under_min_isr_is_critical():
    snap = with_partition(load("healthy"), "orders", 3, isr=(1,))  # min.insync.replicas=2
    findings, metrics = health(snap)
    under = one(findings, "KAFKA_UNDER_MIN_ISR")
    assert (under.severity, under.object, under.value) == (CRIT, "orders/3", 1)
    assert under.text == "1 under-min-ISR partitions"
    assert metric(metrics, "kafka_under_min_isr_partitions").value == 1
    assert one(findings, "KAFKA_URP").object == "orders/3"
    assert not by_code(findings, "KAFKA_OFFLINE")


def test_offline_and_under_min_isr_counted_apart():
    snap = with_partition(load("healthy"), "orders", 0, leader=-1, isr=())
    snap = with_partition(snap, "payments", 1, isr=(3,))
    findings, metrics = health(snap)
    assert one(findings, "KAFKA_OFFLINE").object == "orders/0"
    assert one(findings, "KAFKA_UNDER_MIN_ISR").object == "payments/1"
    assert metric(metrics, "kafka_under_replicated_partitions").value == 2


def test_at_min_isr_is_a_metric_not_a_finding():
    snap = with_partition(load("healthy"), "payments", 0, isr=(2, 3))  # min.insync.replicas=2
    findings, metrics = health(snap, lag_records_warn=BILLING_LAG)
    assert metric(metrics, "kafka_at_min_isr_partitions").value == 1
    assert not by_code(findings, "KAFKA_UNDER_MIN_ISR")
    assert [f.code for f in problems(findings)] == ["KAFKA_URP"]


# ---- controller ---------------------------------------------------------------------------

@pytest.mark.parametrize("fixture, controller_id", [
    ("healthy", None),
    ("broker-down", 2),  # names the stopped broker
])
def test_no_active_controller_in_zookeeper_mode(fixture, controller_id):
    snap = replace(load(fixture), controller_id=controller_id)
    assert not snap.kraft
    findings, metrics = health(snap)
    assert one(findings, "KAFKA_NO_CONTROLLER").severity is CRIT
    assert metric(metrics, "kafka_active_controller").value == 0


def test_kraft_mode_has_no_controller_rule():
    snap = replace(load("healthy"), kraft=True, controller_id=None)
    findings, metrics = health(snap)
    assert not by_code(findings, "KAFKA_NO_CONTROLLER")
    assert "kafka_active_controller" not in metric_names(metrics)


# ---- group lag in seconds and allowed lag -------------------------------------------------

RECORDS_QUIET = {"lag_records_warn": 10 * BILLING_LAG, "lag_records_crit": 100 * BILLING_LAG}


@pytest.mark.parametrize("seconds, severity", [(120.0, WARN), (900.0, CRIT)])
def test_group_lag_in_seconds(seconds, severity):
    snap = with_lags(load("healthy"), "billing", lag_seconds=seconds)
    findings, metrics = health(snap, **RECORDS_QUIET)
    lag = one(findings, "KAFKA_GROUP_LAG")
    assert (lag.severity, lag.object) == (severity, "group billing")
    assert f"{seconds:.0f} s" in lag.text
    assert metric(metrics, "kafka_group_lag_seconds", group="billing").value == seconds


def test_group_lag_seconds_is_the_oldest_partition():
    snap = with_partition_lag_seconds(load("healthy"), "billing", {2: 30.0, 4: 700.0})
    findings, metrics = health(snap, **RECORDS_QUIET)
    assert one(findings, "KAFKA_GROUP_LAG").severity is CRIT
    assert metric(metrics, "kafka_group_lag_seconds", group="billing").value == 700.0



def test_records_and_seconds_take_the_worse_level():
    snap = with_lags(load("healthy"), "billing", lag_seconds=900.0)
    findings, _ = health(snap, lag_records_warn=100)  # records: WARN, seconds: CRIT
    assert one(findings, "KAFKA_GROUP_LAG").severity is CRIT


@pytest.mark.parametrize("lag_seconds", [None, 900.0])
def test_allowed_lag_suppresses_group_lag(lag_seconds):
    snap = with_lags(load("healthy"), "billing", lag_seconds=lag_seconds)
    findings, metrics = health(snap, allowed_lag=BILLING_LAG, lag_records_warn=100)
    assert not by_code(findings, "KAFKA_GROUP_LAG")
    assert by_code(findings, "KAFKA_OK")
    assert metric(metrics, "kafka_group_lag_records", group="billing").value == BILLING_LAG


def test_lag_just_over_allowed_lag_is_judged():
    findings, _ = health(load("healthy"), allowed_lag=BILLING_LAG - 1, lag_records_warn=100)
    assert one(findings, "KAFKA_GROUP_LAG").severity is WARN


# ---- retention ----------------------------------------------------------------------------

def test_committed_offset_below_log_start_warns_with_records_lost():
    gone = [l for l in raw("retention-deleted")["lags"]
            if l["group"] == "archiver" and l["committed"] < l["log_start"]]
    lost = sum(l["log_start"] - l["committed"] for l in gone)
    assert lost == 2 * (400 - 5)
    findings, _ = health(load("retention-deleted"))
    below = one(findings, "KAFKA_OFFSET_BELOW_LOG_START")
    assert (below.severity, below.object, below.value) == (WARN, "group archiver", lost)
    assert "group archiver" in below.text
    assert f"{lost} records lost to retention" in below.text
    assert "audit/0, audit/1" in below.text


def test_no_offset_below_log_start_in_other_fixtures():
    for name in ("healthy", "broker-down"):
        findings, _ = health(load(name))
        assert not by_code(findings, "KAFKA_OFFSET_BELOW_LOG_START"), name


# ---- group status across runs -------------------------------------------------------------

@pytest.mark.parametrize("lag_status, severity", [
    (LagStatus.STALLED, CRIT),
    (LagStatus.STOPPED, CRIT),
    (LagStatus.REWOUND, WARN),
])
def test_bad_group_status_is_a_finding_with_its_detail(lag_status, severity):
    detail = "orders/4: committed offset 400 unchanged for 312 s, lag 600"
    findings, _ = health(load("healthy"), group_status=status("billing", lag_status, detail),
                         **RECORDS_QUIET)
    found = one(findings, f"KAFKA_GROUP_{lag_status.value}")
    assert (found.severity, found.object) == (severity, "group billing")
    assert detail in found.text
    assert lag_status.value in found.text
    assert problems(findings) == [found]


@pytest.mark.parametrize("lag_status", [LagStatus.LAGGING, LagStatus.OK, LagStatus.UNKNOWN])
def test_harmless_group_status_is_no_finding(lag_status):
    findings, _ = health(load("healthy"), group_status=status("billing", lag_status), **RECORDS_QUIET)
    assert not [f for f in findings if f.code.startswith("KAFKA_GROUP_")]
    assert by_code(findings, "KAFKA_OK")


@pytest.mark.parametrize("lag_status, value", [
    (LagStatus.OK, 0), (LagStatus.LAGGING, 1), (LagStatus.UNKNOWN, 2),
    (LagStatus.REWOUND, 3), (LagStatus.STALLED, 4), (LagStatus.STOPPED, 5),
])
def test_group_status_metric(lag_status, value):
    _, metrics = health(load("healthy"), group_status=status("ledger", lag_status))
    found = metric(metrics, "kafka_group_status", group="ledger")
    assert (found.value, found.perfdata, found.min, found.max) == (value, False, 0, 5)
    assert not [m for m in metrics if m.name == "kafka_group_status" and m.labels != {"group": "ledger"}]


# ---- filters ------------------------------------------------------------------------------

def test_excluding_a_group_removes_its_findings_and_metrics():
    findings, metrics = health(load("healthy"), filters=Filters(exclude_groups=("billing",)),
                               group_status=status("billing", LagStatus.STOPPED), lag_records_warn=100)
    assert not [f for f in findings if "billing" in f.object or "billing" in f.text]
    assert not [m for m in metrics if m.labels.get("group") == "billing"]
    assert metric(metrics, "kafka_max_group_lag_records").value == 0
    assert by_code(findings, "KAFKA_OK")


def test_excluding_a_topic_removes_its_partitions_and_lags():
    filters = Filters(exclude_topics=("orders",))
    findings, metrics = health(load("healthy"), filters=filters, lag_records_warn=100)
    assert not by_code(findings, "KAFKA_GROUP_LAG")  # billing reads only orders
    assert not [m for m in metrics if m.labels.get("group") == "billing"]
    assert metric(metrics, "kafka_partitions").value == partition_count("healthy") - 6


def test_excluding_topics_removes_their_partition_findings():
    snap = with_partition(load("healthy"), "orders", 0, leader=-1, isr=())
    findings, metrics = health(snap, filters=Filters(exclude_topics=("ord*",)))
    assert not by_code(findings, "KAFKA_OFFLINE")
    assert metric(metrics, "kafka_offline_partitions").value == 0
    assert by_code(health(snap)[0], "KAFKA_OFFLINE")


def test_broker_down_urp_only_counts_watched_topics():
    watched = ("orders", "payments")
    filters = Filters(include_topics=watched)
    findings, metrics = health(load("broker-down"), filters=filters)
    urp = sum(len(p["isr"]) < len(p["replicas"]) for t in raw("broker-down")["topics"]
              if t["name"] in watched for p in t["partitions"])
    assert one(findings, "KAFKA_URP").value == urp
    assert metric(metrics, "kafka_under_replicated_partitions").value == urp
    assert metric(metrics, "kafka_partitions").value == partition_count("broker-down", watched)


@pytest.mark.parametrize("filters, groups", [
    (Filters(include_groups=("bill*",)), ["billing"]),
    (Filters(include_groups=("*er",)), ["ledger"]),
    (Filters(include_groups=("BILL*",)), []),  # case-sensitive
    (Filters(include_topics=("pay*",)), ["ledger"]),
    (Filters(include_groups=("*",), exclude_groups=("l?dger",)), ["billing"]),
    (Filters(include_topics=("orders", "payments"), include_groups=("billing", "ledger")), ["billing", "ledger"]),
])
def test_include_globs_choose_the_groups(filters, groups):
    findings, metrics = health(load("healthy"), filters=filters, lag_records_warn=100)
    assert [m.labels["group"] for m in metrics if m.name == "kafka_group_lag_records"] == groups
    lagging = ["group billing"] if "billing" in groups else []
    assert [f.object for f in by_code(findings, "KAFKA_GROUP_LAG")] == lagging


def test_include_topic_globs_choose_the_partitions():
    _, metrics = health(load("healthy"), filters=Filters(include_topics=("pay*", "aud?t")))
    assert metric(metrics, "kafka_partitions").value == partition_count("healthy", ("payments", "audit"))


# ---- partial snapshots --------------------------------------------------------------------

def test_snapshot_errors_are_unknown():
    errors = ("consumer group offsets", "topic configs")
    snap = replace(load("healthy"), errors=errors)
    findings, _ = health(snap, lag_records_warn=BILLING_LAG)
    partial = by_code(findings, "KAFKA_PARTIAL")
    assert [f.severity for f in partial] == [UNKNOWN, UNKNOWN]
    assert [f.text for f in partial] == [f"could not read {e}" for e in errors]
    assert not by_code(findings, "KAFKA_OK")


# ---- metrics shape ------------------------------------------------------------------------

def test_per_group_metrics_are_not_perfdata():
    _, metrics = health(load("retention-deleted"))
    per_group = [m for m in metrics if "group" in m.labels]
    assert {m.labels["group"] for m in per_group} == {"archiver", "billing", "ledger"}
    assert {m.name for m in per_group} == {"kafka_group_lag_records", "kafka_group_lag_seconds"}
    assert all(m.perfdata is False for m in per_group)


def test_aggregate_lag_metrics_are_perfdata_with_thresholds():
    thresholds = {"lag_records_warn": 500, "lag_records_crit": 5000,
                  "lag_seconds_warn": 30.0, "lag_seconds_crit": 300.0}
    snap = load("retention-deleted")
    _, metrics = health(snap, **thresholds)
    records = metric(metrics, "kafka_max_group_lag_records")
    worst = max(group_lag("retention-deleted", g) for g in ("archiver", "billing", "ledger"))
    assert (records.value, records.warn, records.crit, records.perfdata) == (worst, 500, 5000, True)
    seconds = metric(metrics, "kafka_max_group_lag_seconds")
    oldest = max(l["lag_seconds"] or 0.0 for l in raw("retention-deleted")["lags"])
    assert seconds.value == pytest.approx(oldest, abs=1e-3)
    assert (seconds.uom, seconds.warn, seconds.crit, seconds.perfdata) == ("s", 30.0, 300.0, True)


def test_cluster_metrics_are_perfdata():
    _, metrics = health(load("broker-down"))
    for name in ("kafka_brokers", "kafka_active_controller", "kafka_offline_partitions",
                 "kafka_under_min_isr_partitions", "kafka_under_replicated_partitions",
                 "kafka_at_min_isr_partitions", "kafka_partitions"):
        assert metric(metrics, name).perfdata is True, name
