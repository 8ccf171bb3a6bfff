"""Health rules: snapshots in, findings and metrics out. Pure functions, no I/O.

Kafka severities (defaults; thresholds come from the context's `thresholds`):
    broker missing (below expected count)          CRIT (WARN between min_brokers_warn and _crit)
    offline partition (no leader)                   CRIT
    under-min-ISR partition (acks=all writes fail)  CRIT
    under-replicated partition                      WARN
    no active controller (ZooKeeper mode)           CRIT
    group lag over records / seconds thresholds     WARN / CRIT
    group STALLED or STOPPED (across check runs)    CRIT;  REWOUND: WARN
    committed offset below the log start            WARN (data lost to retention)
    part of the snapshot unreadable                 UNKNOWN
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Protocol

from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.kafka import KafkaSnapshot, PartitionLag

OK, WARN, CRIT, UNKNOWN = Severity.OK, Severity.WARN, Severity.CRIT, Severity.UNKNOWN
STATUS_SEVERITY = {"STALLED": CRIT, "STOPPED": CRIT, "REWOUND": WARN}
STATUS_VALUE = {"OK": 0, "LAGGING": 1, "UNKNOWN": 2, "REWOUND": 3, "STALLED": 4, "STOPPED": 5}


class GroupStatusLike(Protocol):
    @property
    def status(self) -> object: ...  # a str enum: OK, LAGGING, STALLED, STOPPED, REWOUND, UNKNOWN
    @property
    def detail(self) -> str: ...


@dataclass(frozen=True)
class Filters:
    """Include/exclude globs for topics and groups (fnmatch, case-sensitive)."""

    include_topics: tuple[str, ...] = ("*",)
    exclude_topics: tuple[str, ...] = ()
    include_groups: tuple[str, ...] = ("*",)
    exclude_groups: tuple[str, ...] = ()

    @classmethod
    def from_context(cls, ctx) -> Filters:
        return cls(tuple(ctx.include.topics), tuple(ctx.exclude.topics),
                   tuple(ctx.include.groups), tuple(ctx.exclude.groups))

    def topic(self, name: str) -> bool:
        return _matches(name, self.include_topics, self.exclude_topics)

    def group(self, name: str) -> bool:
        return _matches(name, self.include_groups, self.exclude_groups)


def _matches(name: str, include, exclude) -> bool:
    return any(fnmatchcase(name, p) for p in include) and not any(fnmatchcase(name, p) for p in exclude)


def _level(value: float, warn: float | None, crit: float | None) -> Severity:
    if crit is not None and value > crit:
        return CRIT
    if warn is not None and value > warn:
        return WARN
    return OK


def kafka_health(snap: KafkaSnapshot, thresholds, expected_brokers: int | None = None,
                 filters: Filters = Filters(),
                 group_status: Mapping[str, GroupStatusLike] | None = None) -> tuple[list[Finding], list[Metric]]:
    findings: list[Finding] = []
    metrics: list[Metric] = []
    watched = [p for t in snap.topics if filters.topic(t.name) for p in t.partitions]
    _brokers(snap, watched, thresholds, expected_brokers, findings, metrics)
    _partitions(snap, watched, findings, metrics)
    _groups(snap, thresholds, filters, group_status or {}, findings, metrics)
    for error in snap.errors:
        findings.append(Finding(UNKNOWN, "kafka", "snapshot", "KAFKA_PARTIAL", f"could not read {error}"))
    if not any(f.severity is not OK for f in findings):
        findings.append(Finding(OK, "kafka", "cluster", "KAFKA_OK",
                                f"{len(snap.brokers)} brokers, {len(watched)} partitions healthy"))
    return findings, metrics


def _brokers(snap, watched, thresholds, expected, findings, metrics) -> None:
    live = {b.id for b in snap.brokers}
    crit_below = thresholds.min_brokers_crit or expected
    warn_below = thresholds.min_brokers_warn or expected
    metrics.append(Metric("kafka_brokers", len(live), "Brokers registered in the cluster metadata",
                          warn=warn_below, crit=crit_below, min=0, alert_below=True))
    # Brokers that hold replicas but are not registered are the ones that are down.
    assigned = {r for p in snap.partitions for r in p.replicas}
    missing = sorted(assigned - live)
    count_missing = max(len(missing), (expected or 0) - len(live))
    if count_missing > 0:
        severity = CRIT if crit_below is None or len(live) < crit_below else WARN
        names = ", ".join(f"broker {b}" for b in missing) or f"{count_missing} broker(s)"
        urp = sum(p.under_replicated for p in watched)
        findings.append(Finding(
            severity, "kafka", names if missing else "brokers", "KAFKA_BROKER_DOWN",
            f"{names} down ({len(live)} of {expected or len(live) + count_missing} brokers); "
            f"{urp} under-replicated partitions", value=len(live),
        ))
    if not snap.kraft:
        active = snap.controller_id is not None and snap.controller_id in live
        metrics.append(Metric("kafka_active_controller", int(active), "1 when a live broker is controller",
                              crit=1, min=0, max=1, alert_below=True))
        if not active:
            findings.append(Finding(CRIT, "kafka", "controller", "KAFKA_NO_CONTROLLER",
                                    "no active controller"))


def _partitions(snap, partitions, findings, metrics) -> None:
    live = {b.id for b in snap.brokers}
    offline = [p for p in partitions if p.offline or p.leader not in live]
    urp = [p for p in partitions if p.under_replicated]
    under_min = [p for p in partitions if p.under_min_isr and p not in offline]
    at_min = [p for p in partitions if p.at_min_isr and p not in offline]
    for name, items, severity, code, words in (
        ("kafka_offline_partitions", offline, CRIT, "KAFKA_OFFLINE", "offline partitions"),
        ("kafka_under_min_isr_partitions", under_min, CRIT, "KAFKA_UNDER_MIN_ISR", "under-min-ISR partitions"),
        ("kafka_under_replicated_partitions", urp, WARN, "KAFKA_URP", "under-replicated partitions"),
    ):
        metrics.append(Metric(name, len(items), words.capitalize(), crit=0 if severity is CRIT else None,
                              warn=0 if severity is WARN else None, min=0))
        if items:
            findings.append(Finding(severity, "kafka", _partition_list(items), code,
                                    f"{len(items)} {words}", value=len(items)))
    metrics.append(Metric("kafka_at_min_isr_partitions", len(at_min), "Partitions with ISR exactly at min", min=0))
    metrics.append(Metric("kafka_partitions", len(partitions), "Partitions watched", min=0))


def _partition_list(items, most: int = 5) -> str:
    shown = ", ".join(f"{p.topic}/{p.partition}" for p in items[:most])
    return shown + (f" (+{len(items) - most} more)" if len(items) > most else "")


def _groups(snap, thresholds, filters, group_status, findings, metrics) -> None:
    by_group: dict[str, list[PartitionLag]] = defaultdict(list)
    for lag in snap.lags:
        if filters.group(lag.group) and filters.topic(lag.topic):
            by_group[lag.group].append(lag)
    worst_records, worst_seconds = 0, 0.0
    for group, lags in sorted(by_group.items()):
        records = sum(l.lag or 0 for l in lags)
        seconds = max((l.lag_seconds or 0.0 for l in lags), default=0.0)
        worst_records, worst_seconds = max(worst_records, records), max(worst_seconds, seconds)
        labels = {"group": group}
        metrics.append(Metric("kafka_group_lag_records", records, "Records behind, summed over partitions",
                              labels=labels, warn=thresholds.lag_records_warn,
                              crit=thresholds.lag_records_crit, min=0, perfdata=False))
        metrics.append(Metric("kafka_group_lag_seconds", round(seconds, 3), "Age of the oldest unconsumed record",
                              labels=labels, uom="s", warn=thresholds.lag_seconds_warn,
                              crit=thresholds.lag_seconds_crit, min=0, perfdata=False))
        if records > thresholds.allowed_lag:
            level = Severity.worst([_level(records, thresholds.lag_records_warn, thresholds.lag_records_crit),
                                    _level(seconds, thresholds.lag_seconds_warn, thresholds.lag_seconds_crit)])
            if level is not OK:
                findings.append(Finding(level, "kafka", f"group {group}", "KAFKA_GROUP_LAG",
                                        f"group {group} lags {records} records, {seconds:.0f} s", value=records))
        gone = [l for l in lags if l.below_log_start]
        if gone:
            lost = sum((l.log_start or 0) - (l.committed or 0) for l in gone)  # both set when below
            findings.append(Finding(WARN, "kafka", f"group {group}", "KAFKA_OFFSET_BELOW_LOG_START",
                                    f"group {group}: committed offset below log start on "
                                    f"{_lag_list(gone)} ({lost} records lost to retention)", value=lost))
        status = group_status.get(group)
        if status is not None:
            name = getattr(status.status, "value", str(status.status))
            metrics.append(Metric("kafka_group_status", STATUS_VALUE.get(name, 2),
                                  "0 OK, 1 lagging, 2 unknown, 3 rewound, 4 stalled, 5 stopped",
                                  labels=labels, min=0, max=5, perfdata=False))
            if name in STATUS_SEVERITY:
                findings.append(Finding(STATUS_SEVERITY[name], "kafka", f"group {group}",
                                        f"KAFKA_GROUP_{name}", f"group {group} {name}: {status.detail}"))
    metrics += kafka_exporter_lag(lag for lags in by_group.values() for lag in lags)
    metrics.append(Metric("kafka_max_group_lag_records", worst_records, "Largest group lag in records",
                          warn=thresholds.lag_records_warn, crit=thresholds.lag_records_crit, min=0))
    metrics.append(Metric("kafka_max_group_lag_seconds", round(worst_seconds, 3), "Largest group lag in time",
                          uom="s", warn=thresholds.lag_seconds_warn, crit=thresholds.lag_seconds_crit, min=0))


def kafka_exporter_lag(lags: Iterable[PartitionLag]) -> list[Metric]:
    """The lag under kafka_exporter's series names and labels (danielqsj/kafka_exporter), so its
    dashboards read streamctl's textfile: `kafka_consumergroup_lag{consumergroup,topic,partition}`
    (-1 where the group committed nothing on a partition of a topic it consumes) and
    `kafka_consumergroup_lag_sum{consumergroup,topic}` (those -1 left out). As kafka_exporter, a
    topic where the group committed nothing, and a partition whose log end is unknown, are left out."""
    by_topic: dict[tuple[str, str], list[PartitionLag]] = defaultdict(list)
    for lag in lags:
        if lag.log_end is not None:
            by_topic[lag.group, lag.topic].append(lag)
    metrics = []
    for (group, topic), partitions in sorted(by_topic.items()):
        if all(p.committed is None for p in partitions):
            continue
        total = 0
        for p in sorted(partitions, key=lambda p: p.partition):
            behind = -1 if p.lag is None else p.lag
            total += max(behind, 0)
            metrics.append(Metric("kafka_consumergroup_lag", behind,
                                  "Current Approximate Lag of a ConsumerGroup at Topic/Partition",
                                  labels={"consumergroup": group, "topic": topic, "partition": str(p.partition)},
                                  perfdata=False, exporter_alias=True))
        metrics.append(Metric("kafka_consumergroup_lag_sum", total,
                              "Current Approximate Lag of a ConsumerGroup at Topic for all partitions",
                              labels={"consumergroup": group, "topic": topic}, perfdata=False, exporter_alias=True))
    return metrics


def _lag_list(items, most: int = 3) -> str:
    shown = ", ".join(f"{l.topic}/{l.partition}" for l in items[:most])
    return shown + (f" (+{len(items) - most} more)" if len(items) > most else "")
