"""Flume agent counters and statuses: what the metrics adapter reads and the rules judge (no I/O, no UI)."""

from __future__ import annotations

from dataclasses import dataclass, field

FAILURE_COUNTERS = {
    "SOURCE": ("ChannelWriteFail", "EventReadFail", "GenericProcessingFail"),
    "CHANNEL": ("EventPutErrorCount", "EventTakeErrorCount", "CheckpointWriteErrorCount",
                "CheckpointBackupWriteErrorCount"),
    "SINK": ("ConnectionFailedCount", "EventWriteFail", "ChannelReadFail", "RollbackCount"),
}


@dataclass(frozen=True)
class Counters:
    """One component's numbers from one poll."""

    kind: str  # SOURCE | CHANNEL | SINK | another Type the agent reports
    name: str
    values: dict[str, float]
    attributes: dict[str, str] = field(default_factory=dict)  # non-numeric ("Open": "true")

    @property
    def start_time(self) -> float | None:
        """When the component started (unix seconds)."""
        ms = self.values.get("StartTime")
        return ms / 1000.0 if ms else None

    def get(self, key: str) -> float | None:
        return self.values.get(key)

    def failures(self) -> dict[str, float]:
        return {k: self.values[k] for k in FAILURE_COUNTERS.get(self.kind, ()) if k in self.values}


@dataclass(frozen=True)
class Poll:
    taken_at: float  # unix seconds
    components: dict[str, Counters]  # "SOURCE.r1" -> counters

    def of_kind(self, kind: str) -> list[Counters]:
        return sorted((c for c in self.components.values() if c.kind == kind), key=lambda c: c.name)


@dataclass(frozen=True)
class SourceStatus:
    name: str
    received: int
    accepted: int
    accept_rate: float | None  # events/s since the baseline poll
    failures: dict[str, float]
    new_failures: int | None  # failure counts added since the baseline poll
    idle_seconds: float | None  # since EventReceivedCount last moved


@dataclass(frozen=True)
class ChannelStatus:
    name: str
    size: int
    capacity: int | None
    fill_pct: float | None
    size_change: int | None  # since the baseline poll
    put_rate: float | None
    take_rate: float | None
    failures: dict[str, float]
    new_failures: int | None
    healthy: bool = True


@dataclass(frozen=True)
class SinkStatus:
    name: str
    channel: str | None  # from the agent's config file, when known
    drained: int
    drain_rate: float | None
    drained_since: int | None  # events drained since the baseline poll
    failures: dict[str, float]
    new_failures: int | None
    new_failure_counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentStatus:
    name: str
    url: str
    up: bool
    error: str | None = None
    taken_at: float | None = None
    interval: float | None = None  # seconds the rates cover (None: first poll)
    sources: tuple[SourceStatus, ...] = ()
    channels: tuple[ChannelStatus, ...] = ()
    sinks: tuple[SinkStatus, ...] = ()
    timed_out: bool = False  # down because it did not answer in time (not refused)
