"""Kafka Streams apps found in a Kafka snapshot, and their rules.

An app is a consumer group whose members use the `stream` assignor, or (when its members
are unknown: stopped, or only listed) whose id prefixes internal topics
`<application.id>-<name>-repartition` / `-changelog`, or that the context declares. Its inputs are the other topics it
commits offsets on; its outputs only the context can name (kafka.streams.<app>.outputs).

    app with no members while its lag is over allowed_lag    CRIT  STREAMS_APP_STOPPED
    a changelog partition under min.insync.replicas          CRIT  STREAMS_CHANGELOG_UNDER_MIN_ISR

Its lag is judged by the group rules (KAFKA_GROUP_LAG, STALLED, ...): the app's group
commits on the repartition topics too, so that lag counts.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.kafka import ConsumerGroup, KafkaSnapshot
from streamctl.model.streams import IDLE, REBALANCING, RUNNING, STOPPED, StreamsApp, StreamsInstance, StreamsTopic

STREAMS_ASSIGNOR = "stream"
ROLE_ORDER = ("input", "repartition", "changelog", "output")
_THREAD_CLIENT = re.compile(r"^(?P<client>.+)-StreamThread-\d+-consumer$")
_FK_JOIN_TOPIC = re.compile(r"-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\d+-topic$")


def internal_role(app_id: str, topic: str) -> str | None:
    """`repartition` or `changelog` for an internal topic of `app_id`, else None."""
    if not topic.startswith(app_id + "-"):
        return None
    if topic.endswith("-changelog"):
        return "changelog"
    if topic.endswith("-repartition") or _FK_JOIN_TOPIC.search(topic):
        return "repartition"
    return None


def internal_topic_owners(topic_names) -> set[str]:
    """Every id an internal topic among `topic_names` could belong to: each prefix of its name
    before a "-" (an application id may hold "-" itself). One pass over the topics, where asking
    each group against each topic cost 90,000 calls for 300 groups and 300 topics."""
    owners: set[str] = set()
    for name in topic_names:
        if name.endswith(("-changelog", "-repartition")) or _FK_JOIN_TOPIC.search(name):
            owners.update(name[:at] for at, char in enumerate(name) if char == "-")
    return owners


def is_streams_app(group: ConsumerGroup, owners: set[str], declared=()) -> bool:
    """`owners`: internal_topic_owners() of the snapshot's topics."""
    return group.protocol == STREAMS_ASSIGNOR or group.id in declared or group.id in owners


def find_apps(snap: KafkaSnapshot, allowed_lag: int = 0,
              outputs: dict[str, list[str]] | None = None) -> list[StreamsApp]:
    """Every Streams app among the snapshot's groups, sorted by application id. `outputs`: the
    apps the context declares (kafka.streams), with their output topics; a declared app is
    known even when stopped and without internal topics (after a reset)."""
    names = [t.name for t in snap.topics]
    owners = internal_topic_owners(names)
    lags_by_group = defaultdict(list)
    for lag in snap.lags:
        lags_by_group[lag.group].append(lag)
    return [_app(snap, group, names, lags_by_group[group.id], allowed_lag, (outputs or {}).get(group.id, []))
            for group in sorted(snap.groups, key=lambda g: g.id) if is_streams_app(group, owners, outputs or {})]


def _app(snap, group, names, lags, allowed_lag: int, outputs: list[str]) -> StreamsApp:
    lag_by_topic: dict[str, int] = defaultdict(int)
    positions: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for lag in lags:
        lag_by_topic[lag.topic] += lag.lag or 0
        committed, log_end = positions[lag.topic]
        positions[lag.topic] = (committed + (lag.committed or 0), log_end + (lag.log_end or 0))
    roles = {name: internal_role(group.id, name) for name in names}
    topics = [replace(_topic(snap, name, roles[name] or "input", lag_by_topic.get(name)),
                      committed=positions[name][0], log_end=positions[name][1])
              for name in sorted(lag_by_topic) if snap.topic(name)]
    topics += [_topic(snap, name, "changelog", None) for name in names if roles[name] == "changelog"]
    topics += [_topic(snap, name, "repartition", None) for name in names
               if roles[name] == "repartition" and name not in lag_by_topic]
    topics += [_topic(snap, name, "output", None) for name in outputs if snap.topic(name)]
    topics.sort(key=lambda t: (ROLE_ORDER.index(t.role), t.name))
    total = sum(lag_by_topic.values())
    return StreamsApp(group.id, group.state, _status(group, total, allowed_lag), _instances(group),
                      tuple(topics), members_read=bool(group.members) or group.coordinator is not None)


def _topic(snap, name: str, role: str, lag: int | None) -> StreamsTopic:
    partitions = snap.topic(name).partitions
    known = [p for p in partitions if p.low is not None and p.high is not None]
    records = sum(p.high - p.low for p in known) if len(known) == len(partitions) else None
    under = tuple(p.partition for p in partitions if p.min_isr is not None and len(p.isr) < p.min_isr)
    return StreamsTopic(name, role, len(partitions), records, lag, under_min_isr=under)


def _instances(group: ConsumerGroup) -> tuple[StreamsInstance, ...]:
    """Members grouped by process: a StreamThread's client id is `<client>-StreamThread-N-consumer`."""
    by_client: dict[tuple[str, str], list] = defaultdict(list)
    for member in group.members:
        match = _THREAD_CLIENT.match(member.client_id)
        by_client[(match["client"] if match else member.client_id, member.host)].append(member)
    return tuple(StreamsInstance(client, host, len(members), sum(len(m.assignments) for m in members))
                 for (client, host), members in sorted(by_client.items()))


def _status(group: ConsumerGroup, lag: int, allowed_lag: int) -> str:
    if group.state == "STABLE":
        return RUNNING
    if group.state in ("EMPTY", "DEAD"):
        return STOPPED if lag > allowed_lag else IDLE
    if group.state in ("PREPARING_REBALANCE", "COMPLETING_REBALANCE", "ASSIGNING", "RECONCILING"):
        return REBALANCING
    return group.state


def streams_health(apps: list[StreamsApp]) -> tuple[list[Finding], list[Metric]]:
    findings: list[Finding] = []
    metrics: list[Metric] = []
    for app in apps:
        labels = {"app": app.app_id}
        metrics.append(Metric("kafka_streams_app_lag_records", app.lag,
                              "Records behind on inputs and repartition topics", labels=labels, min=0,
                              perfdata=False))
        metrics.append(Metric("kafka_streams_app_running", int(app.status == RUNNING),
                              "1 when the app's group is stable with members", labels=labels, min=0, max=1,
                              perfdata=False))
        if app.status == STOPPED:
            findings.append(Finding(Severity.CRIT, "kafka", f"streams {app.app_id}", "STREAMS_APP_STOPPED",
                                    f"Streams app {app.app_id} has no members and lags {app.lag} records",
                                    value=app.lag))
        for topic in app.by_role("changelog"):
            if topic.under_min_isr:
                parts = ", ".join(str(p) for p in topic.under_min_isr)
                findings.append(Finding(Severity.CRIT, "kafka", f"streams {app.app_id}",
                                        "STREAMS_CHANGELOG_UNDER_MIN_ISR",
                                        f"Streams app {app.app_id}: changelog {topic.name} partition(s) {parts} "
                                        "under min.insync.replicas (its state store cannot be written)"))
    return findings, metrics
