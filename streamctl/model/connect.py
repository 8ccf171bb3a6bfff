"""Kafka Connect's shapes as streamctl reads them from a worker's REST API: plain data, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field

RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED, RESTARTING = (
    "RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING")


@dataclass(frozen=True)
class ConnectTask:
    id: int
    state: str
    worker_id: str
    trace: str | None = None  # a FAILED task's Java stack trace

    @property
    def first_trace_line(self) -> str | None:
        return first_line(self.trace)


@dataclass(frozen=True)
class Connector:
    name: str
    type: str  # "sink" | "source" | "unknown"
    state: str
    worker_id: str
    config: dict[str, str] = field(default_factory=dict)
    tasks: tuple[ConnectTask, ...] = ()
    trace: str | None = None  # the connector's own trace when it FAILED

    @property
    def connector_class(self) -> str:
        return self.config.get("connector.class", "")

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics a sink reads as configured (`topics`; a `topics.regex` is not expanded)."""
        return tuple(t.strip() for t in self.config.get("topics", "").split(",") if t.strip())

    @property
    def group_id(self) -> str | None:
        """The consumer group a sink connector commits with (Connect names it connect-<name>
        unless the connector overrides consumer.override.group.id)."""
        if self.type != "sink":
            return None
        return self.config.get("consumer.override.group.id") or f"connect-{self.name}"

    @property
    def failed_tasks(self) -> tuple[ConnectTask, ...]:
        return tuple(t for t in self.tasks if t.state == FAILED)

    @property
    def running_tasks(self) -> int:
        return sum(t.state == RUNNING for t in self.tasks)


@dataclass(frozen=True)
class ConnectPlugin:
    class_name: str
    type: str
    version: str


@dataclass(frozen=True)
class ConnectCluster:
    """What one worker of the cluster answered."""

    url: str  # the worker that answered
    version: str
    commit: str
    kafka_cluster_id: str
    connectors: tuple[Connector, ...]

    def connector(self, name: str) -> Connector | None:
        return next((c for c in self.connectors if c.name == name), None)


def first_line(trace: str | None) -> str | None:
    if not trace:
        return None
    return trace.strip().splitlines()[0].strip()
