"""Kafka's snapshot: brokers, topics, partitions, groups and lag (no I/O, no UI)."""

from __future__ import annotations

from dataclasses import dataclass, field

from streamctl.model.acls import ClusterAccess

# ---- Kafka snapshot ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Broker:
    id: int
    host: str
    port: int
    rack: str | None = None
    is_controller: bool = False


@dataclass(frozen=True, slots=True)
class PartitionState:
    topic: str
    partition: int
    leader: int  # -1 when there is none
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    low: int | None = None  # log start offset (earliest)
    high: int | None = None  # log end offset (latest, the high watermark)
    min_isr: int | None = None  # the topic's min.insync.replicas, when known

    @property
    def under_replicated(self) -> bool:
        return len(self.replicas) - len(self.isr) > 0

    @property
    def offline(self) -> bool:
        return self.leader < 0

    @property
    def under_min_isr(self) -> bool:
        return self.offline or (self.min_isr is not None and len(self.isr) < self.min_isr)

    @property
    def at_min_isr(self) -> bool:
        return not self.offline and self.min_isr is not None and len(self.isr) == self.min_isr

    @property
    def messages(self) -> int | None:
        return None if self.low is None or self.high is None else self.high - self.low


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    internal: bool
    partitions: tuple[PartitionState, ...]
    configs: dict[str, str] = field(default_factory=dict)
    configs_read_at: float | None = None  # when `configs` were read from the cluster (None: not read)

    @property
    def replication_factor(self) -> int:
        return max((len(p.replicas) for p in self.partitions), default=0)


@dataclass(frozen=True, slots=True)
class GroupMember:
    member_id: str
    client_id: str
    host: str
    assignments: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ConsumerGroup:
    id: str
    state: str  # STABLE, EMPTY, DEAD, PREPARING_REBALANCE, COMPLETING_REBALANCE, UNKNOWN
    type: str | None = None  # CLASSIC, CONSUMER, SHARE, STREAMS; UNKNOWN: the typed listing failed
    protocol: str | None = None  # range, roundrobin, ...
    coordinator: int | None = None
    members: tuple[GroupMember, ...] = ()


def broker_roles(broker: Broker, kraft: bool, kraft_roles: dict[int, str]) -> list[str]:
    """What a broker is: in ZooKeeper mode a broker, and the controller when it is the active
    one; in KRaft its process.roles (unknown until read). describe_cluster's "controller" is an
    arbitrary broker in KRaft and never shown as one."""
    if not kraft:
        return ["broker", "controller"] if broker.is_controller else ["broker"]
    return [r.strip() for r in kraft_roles[broker.id].split(",")] if broker.id in kraft_roles else []


def type_label(group_type: str | None) -> str:
    """A group's type as operators write it (classic, consumer, share, streams: KIP-1043);
    "unknown" when the typed listing failed, "-" when nothing was read (librdkafka alone, a
    broker before Kafka 3.8)."""
    return group_type.lower() if group_type else "-"


@dataclass(frozen=True, slots=True)
class PartitionLag:
    """A group's position on one partition. lag = log_end - committed (None if uncommitted)."""

    group: str
    topic: str
    partition: int
    committed: int | None
    log_start: int | None
    log_end: int | None
    lag_seconds: float | None = None
    lag_seconds_source: str | None = None  # "record" | "history" | None
    record_time: float | None = None  # unix seconds of the record at the committed offset, when read

    @property
    def lag(self) -> int | None:
        if self.committed is None or self.log_end is None:
            return None
        return max(0, self.log_end - self.committed)

    @property
    def below_log_start(self) -> bool:
        """The committed offset points at data already deleted by retention."""
        return self.committed is not None and self.log_start is not None and self.committed < self.log_start


@dataclass(frozen=True, slots=True)
class KafkaSnapshot:
    taken_at: float  # unix seconds
    cluster_id: str | None
    brokers: tuple[Broker, ...]
    controller_id: int | None  # None in KRaft mode: a broker's answer names no real controller
    kraft: bool
    topics: tuple[Topic, ...]
    groups: tuple[ConsumerGroup, ...] = ()
    lags: tuple[PartitionLag, ...] = ()
    errors: tuple[str, ...] = ()  # parts that could not be read (partial snapshot)
    # When the committed offsets were read: the lag history's sample time. A snapshot whose
    # other reads ran long (a broker restarting) must not date them later than a newer read.
    offsets_read_at: float | None = None
    access: ClusterAccess | None = None  # ACLs and brokers' security configs, when asked for (check)

    @property
    def partitions(self) -> tuple[PartitionState, ...]:
        return tuple(p for t in self.topics for p in t.partitions)

    def topic_partitions(self, name: str) -> list[PartitionState]:
        topic = self.topic(name)
        return list(topic.partitions) if topic else []

    def topic(self, name: str) -> Topic | None:
        return next((t for t in self.topics if t.name == name), None)

    def group(self, group_id: str) -> ConsumerGroup | None:
        return next((g for g in self.groups if g.id == group_id), None)

    def group_lags(self, group_id: str) -> list[PartitionLag]:
        return [l for l in self.lags if l.group == group_id]


# ---- KRaft controller quorum ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class QuorumNode:
    """A voter (role leader or follower) or an observer (a broker that only reads the log)."""

    node_id: int
    role: str  # leader, follower, observer
    log_end_offset: int
    lag: int  # records behind the leader
    last_caught_up_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Quorum:
    leader_id: int | None  # None: no leader elected
    epoch: int
    high_watermark: int
    nodes: tuple[QuorumNode, ...] = ()
    kraft_version: int | None = None  # 0 static, 1 dynamic (KIP-853); None: not read (the JVM tool)

    @property
    def voters(self) -> tuple[QuorumNode, ...]:
        return tuple(n for n in self.nodes if n.role in ("leader", "follower"))
