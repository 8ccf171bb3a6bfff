"""Kafka Streams apps as the cluster shows them: a consumer group named by the application.id,
its members' threads, and the topics it reads, keeps internally and writes."""

from __future__ import annotations

from dataclasses import dataclass

# How an app stands, from its group's state and lag.
RUNNING, REBALANCING, STOPPED, IDLE = "RUNNING", "REBALANCING", "STOPPED", "IDLE"


@dataclass(frozen=True, slots=True)
class StreamsTopic:
    name: str
    role: str  # input, repartition, changelog, output
    partitions: int
    records: int | None  # log end - log start, summed (None: watermarks unread)
    lag: int | None = None  # the app's lag on it (inputs and repartition topics it reads)
    committed: int | None = None  # its committed offsets summed over the partitions (topics it reads)
    log_end: int | None = None  # ... and those partitions' log ends
    under_min_isr: tuple[int, ...] = ()  # partitions with fewer in-sync replicas than min.insync.replicas


@dataclass(frozen=True, slots=True)
class StreamsInstance:
    """One running app process: its StreamThreads are the group's members sharing its client id prefix."""

    client: str  # client.id prefix, `<application.id>-<process uuid>` by default
    host: str
    threads: int
    partitions: int  # assigned over its threads


@dataclass(frozen=True, slots=True)
class StreamsApp:
    app_id: str
    group_state: str  # the consumer group's state
    status: str  # RUNNING, REBALANCING, STOPPED (no members, lag over the allowed), IDLE (no members, caught up)
    instances: tuple[StreamsInstance, ...]
    topics: tuple[StreamsTopic, ...]
    members_read: bool  # False when the group was listed, not described (no instances known)

    @property
    def lag(self) -> int:
        return sum(t.lag or 0 for t in self.topics)

    def positions(self) -> tuple[int, int]:
        """(committed, log end) summed over every topic it reads: what drain rates are taken from."""
        read = [t for t in self.topics if t.committed is not None]
        return sum(t.committed or 0 for t in read), sum(t.log_end or 0 for t in read)

    @property
    def threads(self) -> int:
        return sum(i.threads for i in self.instances)

    def by_role(self, role: str) -> list[StreamsTopic]:
        return [t for t in self.topics if t.role == role]

    @property
    def internal_topics(self) -> list[StreamsTopic]:
        return [t for t in self.topics if t.role in ("repartition", "changelog")]
