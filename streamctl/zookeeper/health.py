"""ZooKeeper health rules: server answers and Kafka-on-ZooKeeper views in, findings out. Pure.

Ensemble (thresholds from the context's `thresholds`):
    server down (no answer on its client port)                 CRIT  ZK_SERVER_DOWN
    no quorum (no server serving as leader/follower/standalone) CRIT  ZK_NO_QUORUM
    server up but not serving (outside the quorum, read-only)  WARN  ZK_SERVER_NOT_SERVING
    average latency over zk_latency_avg_warn_ms                 WARN  ZK_LATENCY
    outstanding requests over zk_outstanding_warn               WARN  ZK_OUTSTANDING
    ensemble size even, or below 3                              WARN  ZK_ENSEMBLE_SIZE
    server state not readable (srvr, mntr, AdminServer all unavailable)  UNKNOWN  ZK_STATE_UNAVAILABLE
Kafka cross-check (ZooKeeper vs the Admin API's metadata; a disagreement is a finding):
    broker registered in one but not the other, or other addresses      WARN  ZK_KAFKA_BROKER_MISMATCH
    topic in one but not the other (pending deletions excepted)         WARN  ZK_KAFKA_TOPIC_MISMATCH
    partition leader / ISR / replicas differ                            WARN  ZK_KAFKA_PARTITION_MISMATCH
    no /controller, or a controller that is not a live broker           CRIT  ZK_KAFKA_NO_CONTROLLER
    controller differs from the metadata's                              WARN  ZK_KAFKA_CONTROLLER_MISMATCH
    unparseable Kafka znodes                                            WARN  ZK_KAFKA_UNREADABLE
    pending admin work (deletions, reassignments, elections): metrics and an OK finding.
"""

from __future__ import annotations

from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.kafka import KafkaSnapshot

OK, WARN, CRIT, UNKNOWN = Severity.OK, Severity.WARN, Severity.CRIT, Severity.UNKNOWN
COMPONENT = "zookeeper"
MOST_LISTED = 5


def ensemble_health(servers, thresholds) -> tuple[list[Finding], list[Metric]]:
    """Findings and metrics from every server's ServerHealth (backends.zookeeper_ensemble)."""
    findings: list[Finding] = []
    metrics: list[Metric] = []
    size = len(servers)
    serving = [s for s in servers if s.serving]
    for s in servers:
        labels = {"server": s.server}
        metrics.append(Metric("zookeeper_up", int(s.reachable), "1 when the server answered",
                              labels=labels, min=0, max=1, perfdata=False))
        if not s.reachable:
            findings.append(Finding(CRIT, COMPONENT, f"server {s.server}", "ZK_SERVER_DOWN",
                                    f"ZooKeeper {s.server} down: {s.error or 'no answer'}"))
            continue
        _server_numbers(s, thresholds, findings, metrics, labels)
        if s.mode is None and not s.serving:
            findings.append(Finding(UNKNOWN, COMPONENT, f"server {s.server}", "ZK_STATE_UNAVAILABLE",
                                    f"ZooKeeper {s.server}: no command tells its state "
                                    f"({_unavailable(s)})"))
        elif not s.serving:
            findings.append(Finding(WARN, COMPONENT, f"server {s.server}", "ZK_SERVER_NOT_SERVING",
                                    f"ZooKeeper {s.server} is up but not serving ({s.mode})"))
    unknown_state = [s for s in servers if s.reachable and s.mode is None and not s.serving]
    if not serving and len(unknown_state) < size:
        down = sum(not s.reachable for s in servers)
        findings.append(Finding(CRIT, COMPONENT, "ensemble", "ZK_NO_QUORUM",
                                f"no quorum: none of {size} ZooKeeper server(s) serving ({down} down)",
                                value=0))
    if size % 2 == 0 or size < 3:
        why = "even" if size % 2 == 0 else "below 3"
        cost = "no fault tolerance" if size < 3 else "an odd size tolerates as many failures with fewer servers"
        findings.append(Finding(WARN, COMPONENT, "ensemble", "ZK_ENSEMBLE_SIZE",
                                f"ensemble of {size} server(s) ({why}): {cost}",
                                value=size))
    metrics.append(Metric("zookeeper_servers", size, "Servers in the connect string", min=0))
    metrics.append(Metric("zookeeper_servers_serving", len(serving), "Servers serving requests",
                          crit=1, min=0, max=size, alert_below=True))
    latencies = [s.latency_avg_ms for s in serving if s.latency_avg_ms is not None]
    if latencies:
        metrics.append(Metric("zookeeper_latency_avg_ms", round(max(latencies), 3),
                              "Highest average request latency of the serving servers", uom="ms",
                              warn=thresholds.zk_latency_avg_warn_ms, min=0))
    outstanding = [s.outstanding for s in serving if s.outstanding is not None]
    if outstanding:
        metrics.append(Metric("zookeeper_outstanding_requests", max(outstanding),
                              "Most outstanding requests on a server", warn=thresholds.zk_outstanding_warn, min=0))
    if not any(f.severity is not OK for f in findings):
        leader = next((s.server for s in servers if s.mode == "leader"), None)
        findings.append(Finding(OK, COMPONENT, "ensemble", "ZK_OK",
                                f"{len(serving)} of {size} ZooKeeper server(s) serving"
                                + (f", leader {leader}" if leader else "")))
    return findings, metrics


def _server_numbers(s, thresholds, findings, metrics, labels) -> None:
    if s.latency_avg_ms is not None:
        metrics.append(Metric("zookeeper_server_latency_avg_ms", s.latency_avg_ms, "Average request latency",
                              labels=labels, uom="ms", warn=thresholds.zk_latency_avg_warn_ms, min=0,
                              perfdata=False))
        if s.latency_avg_ms > thresholds.zk_latency_avg_warn_ms:
            findings.append(Finding(WARN, COMPONENT, f"server {s.server}", "ZK_LATENCY",
                                    f"ZooKeeper {s.server} average latency {s.latency_avg_ms:g} ms "
                                    f"(over {thresholds.zk_latency_avg_warn_ms:g} ms)", value=s.latency_avg_ms))
    if s.outstanding is not None:
        metrics.append(Metric("zookeeper_server_outstanding_requests", s.outstanding, "Outstanding requests",
                              labels=labels, warn=thresholds.zk_outstanding_warn, min=0, perfdata=False))
        if s.outstanding > thresholds.zk_outstanding_warn:
            findings.append(Finding(WARN, COMPONENT, f"server {s.server}", "ZK_OUTSTANDING",
                                    f"ZooKeeper {s.server} has {s.outstanding} outstanding requests "
                                    f"(over {thresholds.zk_outstanding_warn})", value=s.outstanding))
    for attribute, name, words in (("znode_count", "zookeeper_server_znodes", "Znodes"),
                                   ("watch_count", "zookeeper_server_watches", "Watches"),
                                   ("connections", "zookeeper_server_connections", "Open client connections")):
        value = getattr(s, attribute)
        if value is not None:
            metrics.append(Metric(name, value, words, labels=labels, min=0, perfdata=False))


def _unavailable(s) -> str:
    return ", ".join(f"{p.command}: {p.status}" for p in s.probes) or "no probe"


# ---- Kafka on ZooKeeper vs the Admin API ----------------------------------------------------

def kafka_crosscheck(view, snap: KafkaSnapshot) -> tuple[list[Finding], list[Metric]]:
    """Disagreements between ZooKeeper's Kafka znodes (zk_kafka.KafkaZkView) and the metadata."""
    findings: list[Finding] = []
    metrics: list[Metric] = []
    _brokers(view, snap, findings)
    _controller(view, snap, findings)
    _topics(view, snap, findings)
    for error in view.errors:
        findings.append(Finding(WARN, COMPONENT, "kafka znodes", "ZK_KAFKA_UNREADABLE", error))
    pending = view.pending
    for name, items, words in (
        ("zookeeper_kafka_pending_topic_deletions", pending.deletions, "topic deletions"),
        ("zookeeper_kafka_pending_reassignments", pending.reassignments, "partition reassignments"),
        ("zookeeper_kafka_pending_preferred_elections", pending.preferred_elections, "preferred-leader elections"),
    ):
        metrics.append(Metric(name, len(items), f"Pending {words} under /admin", min=0))
        if items:
            findings.append(Finding(OK, COMPONENT, "kafka admin", "ZK_KAFKA_PENDING",
                                    f"{len(items)} pending {words}: {_names(items)}", value=len(items)))
    metrics.append(Metric("zookeeper_kafka_brokers", len(view.brokers), "Brokers registered in ZooKeeper", min=0))
    if not any(f.severity is not OK for f in findings):
        findings.append(Finding(OK, COMPONENT, "kafka", "ZK_KAFKA_OK",
                                f"ZooKeeper agrees with the Admin API: {len(view.brokers)} brokers, "
                                f"{len(view.states)} partitions"))
    return findings, metrics


def _brokers(view, snap, findings) -> None:
    in_zk = {b.id: b for b in view.brokers}
    in_md = {b.id: b for b in snap.brokers}
    problems: list[tuple[int, str]] = []
    for broker_id in sorted(in_zk.keys() - in_md.keys()):
        problems.append((broker_id, f"broker {broker_id} registered in ZooKeeper but absent from the metadata"))
    for broker_id in sorted(in_md.keys() - in_zk.keys()):
        problems.append((broker_id, f"broker {broker_id} in the metadata but not registered in ZooKeeper"))
    for broker_id in sorted(in_zk.keys() & in_md.keys()):
        md = in_md[broker_id]
        if (md.host, md.port) not in in_zk[broker_id].addresses():
            endpoints = ", ".join(str(e) for e in in_zk[broker_id].endpoints) or "none"
            problems.append((broker_id, (f"broker {broker_id} answers at {md.host}:{md.port}, "
                                        f"ZooKeeper has {endpoints}")))
    for broker_id, text in problems:
        findings.append(Finding(WARN, COMPONENT, f"broker {broker_id}", "ZK_KAFKA_BROKER_MISMATCH", text))


def _controller(view, snap, findings) -> None:
    live = {b.id for b in view.brokers}
    if view.controller is None:
        findings.append(Finding(CRIT, COMPONENT, "controller", "ZK_KAFKA_NO_CONTROLLER",
                                "no Kafka controller registered in ZooKeeper (/controller missing)"))
        return
    if view.controller.broker_id not in live:
        findings.append(Finding(CRIT, COMPONENT, "controller", "ZK_KAFKA_NO_CONTROLLER",
                                f"/controller names broker {view.controller.broker_id}, "
                                "which is not registered"))
    elif snap.controller_id is not None and snap.controller_id != view.controller.broker_id:
        findings.append(Finding(WARN, COMPONENT, "controller", "ZK_KAFKA_CONTROLLER_MISMATCH",
                                f"controller is broker {view.controller.broker_id} in ZooKeeper, "
                                f"broker {snap.controller_id} in the metadata"))


def _topics(view, snap, findings) -> None:
    deleting = set(view.pending.deletions)
    zk_topics = {t.name: t for t in view.topics}
    md_topics = {t.name: t for t in snap.topics}
    only_zk = sorted(set(zk_topics) - set(md_topics) - deleting)
    only_md = sorted(set(md_topics) - set(zk_topics))
    if only_zk:
        findings.append(Finding(WARN, COMPONENT, _names(only_zk), "ZK_KAFKA_TOPIC_MISMATCH",
                                f"{len(only_zk)} topic(s) in ZooKeeper but not in the metadata: {_names(only_zk)}"))
    if only_md:
        findings.append(Finding(WARN, COMPONENT, _names(only_md), "ZK_KAFKA_TOPIC_MISMATCH",
                                f"{len(only_md)} topic(s) in the metadata but not in ZooKeeper: {_names(only_md)}"))
    differing = []
    for name in sorted(set(zk_topics) & set(md_topics) - deleting):
        assignment = zk_topics[name].partitions
        for p in md_topics[name].partitions:
            state = view.states.get((name, p.partition))
            why = []
            if state is None:
                why.append("no state znode")
            else:
                if state.leader != p.leader:
                    why.append(f"leader {state.leader} vs {p.leader}")
                if sorted(state.isr) != sorted(p.isr):
                    why.append(f"ISR {_ids(state.isr)} vs {_ids(p.isr)}")
            replicas = assignment.get(p.partition)
            if replicas is not None and tuple(replicas) != tuple(p.replicas):
                why.append(f"replicas {_ids(replicas)} vs {_ids(p.replicas)}")
            if why:
                differing.append(f"{name}/{p.partition} ({', '.join(why)})")
    if differing:
        findings.append(Finding(WARN, COMPONENT, _names(differing, most=3), "ZK_KAFKA_PARTITION_MISMATCH",
                                f"{len(differing)} partition(s) differ between ZooKeeper and the metadata "
                                f"(ZooKeeper vs metadata): {_names(differing, most=3)}", value=len(differing)))


def _ids(replicas) -> str:
    return "[" + ",".join(str(r) for r in replicas) + "]"


def _names(items, most: int = MOST_LISTED) -> str:
    words = [item if isinstance(item, str) else "/".join(str(x) for x in item[:2]) for item in items]
    shown = ", ".join(words[:most])
    return shown + (f" (+{len(words) - most} more)" if len(words) > most else "")
