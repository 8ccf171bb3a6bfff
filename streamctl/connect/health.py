"""Kafka Connect's health rules: pure functions from what a worker answered to findings.

A failed connector or task is CRIT (naming connector, task, worker and the first line of its
trace); UNASSIGNED for longer than `connect_unassigned_warn_seconds` is WARN; PAUSED and
STOPPED are WARN unless the context expects them. Sink connectors' consumer groups
(connect-<name>) are judged by Kafka's lag rules with every other group.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

from streamctl.model.connect import FAILED, PAUSED, STOPPED, UNASSIGNED, ConnectCluster
from streamctl.model.health import Finding, Metric, Severity


def connect_health(cluster: ConnectCluster, thresholds, expected_paused: Sequence[str] = (),
                   unassigned_for: dict[str, float] | None = None) -> tuple[list[Finding], list[Metric]]:
    """`unassigned_for`: seconds each UNASSIGNED connector or task ("name" or "name/3") has
    been seen so, from `unassigned_ages`."""
    unassigned_for = unassigned_for or {}
    findings: list[Finding] = []
    for c in cluster.connectors:
        if c.state == FAILED:
            findings.append(Finding(Severity.CRIT, "connect", f"connector {c.name}", "CONNECT_CONNECTOR_FAILED",
                                    f"connector {c.name} FAILED on worker {c.worker_id or '?'}"
                                    + _because(c.trace)))
        elif c.state in (PAUSED, STOPPED) and not any(fnmatchcase(c.name, p) for p in expected_paused):
            findings.append(Finding(Severity.WARN, "connect", f"connector {c.name}", f"CONNECT_CONNECTOR_{c.state}",
                                    f"connector {c.name} is {c.state} (list it under connect.expected_paused "
                                    "if that is intended)"))
        for t in c.failed_tasks:
            findings.append(Finding(Severity.CRIT, "connect", f"task {c.name}/{t.id}", "CONNECT_TASK_FAILED",
                                    f"task {c.name}/{t.id} FAILED on worker {t.worker_id or '?'}"
                                    + _because(t.trace)))
        for key, what in [(c.name, f"connector {c.name}")] + [(f"{c.name}/{t.id}", f"task {c.name}/{t.id}")
                                                              for t in c.tasks if t.state == UNASSIGNED]:
            age = unassigned_for.get(key)
            if age is not None and age >= thresholds.connect_unassigned_warn_seconds:
                findings.append(Finding(Severity.WARN, "connect", what, "CONNECT_UNASSIGNED",
                                        f"{what} UNASSIGNED for {age:.0f} s (no worker runs it)", value=age))
    return findings, _metrics(cluster)


def unassigned_keys(cluster: ConnectCluster) -> set[str]:
    """"name" for each UNASSIGNED connector, "name/id" for each UNASSIGNED task."""
    keys = {c.name for c in cluster.connectors if c.state == UNASSIGNED}
    return keys | {f"{c.name}/{t.id}" for c in cluster.connectors for t in c.tasks if t.state == UNASSIGNED}


def _because(trace: str | None) -> str:
    from streamctl.model.connect import first_line

    line = first_line(trace)
    return f": {line}" if line else ""


def _metrics(cluster: ConnectCluster) -> list[Metric]:
    tasks = [t for c in cluster.connectors for t in c.tasks]
    metrics = [
        Metric("connect_up", 1, "1 when a Connect worker answered", min=0, max=1),
        Metric("connect_connectors", len(cluster.connectors), "Connectors", min=0),
        Metric("connect_connectors_failed", sum(c.state == FAILED for c in cluster.connectors),
               "Connectors in state FAILED", min=0, crit=0),
        Metric("connect_tasks", len(tasks), "Tasks", min=0),
        Metric("connect_tasks_running", sum(t.state == "RUNNING" for t in tasks), "Tasks in state RUNNING", min=0),
        Metric("connect_tasks_failed", sum(t.state == FAILED for t in tasks), "Tasks in state FAILED",
               min=0, crit=0),
    ]
    for c in cluster.connectors:
        metrics.append(Metric("connect_connector_running_tasks", c.running_tasks, "Running tasks of a connector",
                              labels={"connector": c.name, "state": c.state}, perfdata=False))
    return metrics


def unreachable(why: str) -> tuple[list[Finding], list[Metric]]:
    return ([Finding(Severity.CRIT, "connect", "cluster", "CONNECT_UNREACHABLE", why)],
            [Metric("connect_up", 0, "1 when a Connect worker answered", min=0, max=1)])
