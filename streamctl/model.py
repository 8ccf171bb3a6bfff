"""Snapshot dataclasses: the one shape every front end reads (no I/O, no UI)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Broker:
    id: int
    host: str
    port: int
    rack: str | None = None
    is_controller: bool = False


@dataclass(frozen=True)
class PartitionState:
    topic: str
    partition: int
    leader: int  # -1 when there is none
    replicas: tuple[int, ...]
    isr: tuple[int, ...]

    @property
    def under_replicated(self) -> bool:
        return len(self.replicas) - len(self.isr) > 0

    @property
    def offline(self) -> bool:
        return self.leader < 0


@dataclass(frozen=True)
class ClusterMetadata:
    """One metadata round trip: brokers, the controller where meaningful, partitions."""

    cluster_id: str | None
    brokers: tuple[Broker, ...]
    controller_id: int | None
    partitions: tuple[PartitionState, ...] = field(default=())

    def topic_partitions(self, topic: str) -> list[PartitionState]:
        return [p for p in self.partitions if p.topic == topic]
