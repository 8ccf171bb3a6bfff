"""Plain-dict views of snapshot objects for `-o json` (derived fields included)."""

from __future__ import annotations

from dataclasses import asdict

from streamctl.model.kafka import ConsumerGroup, KafkaSnapshot, PartitionLag, PartitionState, Topic


def partition(p: PartitionState) -> dict:
    return {**asdict(p), "replicas": list(p.replicas), "isr": list(p.isr),
            "under_replicated": p.under_replicated, "offline": p.offline,
            "under_min_isr": p.under_min_isr, "at_min_isr": p.at_min_isr, "messages": p.messages}


def topic_summary(t: Topic) -> dict:
    parts = t.partitions
    return {
        "name": t.name, "internal": t.internal, "partitions": len(parts),
        "replication_factor": t.replication_factor,
        "under_replicated": sum(p.under_replicated for p in parts),
        "offline": sum(p.offline for p in parts),
        "under_min_isr": sum(p.under_min_isr for p in parts),
        "messages": sum(p.messages or 0 for p in parts),
        "retention_ms": _int(t.configs.get("retention.ms")),
        "cleanup_policy": t.configs.get("cleanup.policy"),
    }


def topic_detail(t: Topic, consuming_groups: list[str]) -> dict:
    return {**topic_summary(t), "configs": dict(t.configs),
            "partition_states": [partition(p) for p in t.partitions], "groups": consuming_groups}


def lag(l: PartitionLag) -> dict:
    return {**asdict(l), "lag": l.lag, "below_log_start": l.below_log_start}


def group_summary(g: ConsumerGroup, snap: KafkaSnapshot) -> dict:
    lags = snap.group_lags(g.id)
    seconds = [l.lag_seconds for l in lags if l.lag_seconds is not None]
    return {
        "id": g.id, "state": g.state, "type": g.type, "protocol": g.protocol,
        "coordinator": g.coordinator, "members": len(g.members),
        "topics": sorted({l.topic for l in lags}),
        "lag": sum(l.lag or 0 for l in lags),
        "lag_seconds": max(seconds) if seconds else None,
    }


def group_detail(g: ConsumerGroup, snap: KafkaSnapshot) -> dict:
    return {**group_summary(g, snap),
            "member_details": [{**asdict(m), "assignments": [list(a) for a in m.assignments]} for m in g.members],
            "partitions": [lag(l) for l in snap.group_lags(g.id)]}


def consuming_groups(snap: KafkaSnapshot, topic: str) -> list[str]:
    return sorted({l.group for l in snap.lags if l.topic == topic}
                  | {g.id for g in snap.groups for m in g.members for t, _ in m.assignments if t == topic})


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def snapshot_dict(snap: KafkaSnapshot) -> dict:
    """The whole snapshot as plain data (fixtures, the dashboard's recorded snapshots)."""
    return asdict(snap)


def snapshot_from_dict(data: dict) -> KafkaSnapshot:
    from streamctl.model.kafka import Broker, GroupMember

    topics = tuple(
        Topic(t["name"], t["internal"], tuple(
            PartitionState(**{**p, "replicas": tuple(p["replicas"]), "isr": tuple(p["isr"])})
            for p in t["partitions"]), dict(t["configs"]), t.get("configs_read_at"))
        for t in data["topics"]
    )
    groups = tuple(
        ConsumerGroup(**{**g, "members": tuple(
            GroupMember(**{**m, "assignments": tuple(tuple(a) for a in m["assignments"])})
            for m in g["members"])})
        for g in data["groups"]
    )
    return KafkaSnapshot(
        taken_at=data["taken_at"], cluster_id=data["cluster_id"],
        brokers=tuple(Broker(**b) for b in data["brokers"]), controller_id=data["controller_id"],
        kraft=data["kraft"], topics=topics, groups=groups,
        lags=tuple(PartitionLag(**l) for l in data["lags"]), errors=tuple(data["errors"]),
    )
