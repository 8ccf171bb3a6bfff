"""Topic operations: validate locally, ask the broker to validate, then plan.

Kafka's own rules (org.apache.kafka.common.internals.Topic): legal characters [a-zA-Z0-9._-],
at most 249 of them, not "." or "..". Names that differ only by '.' vs '_' collide in metric
names, so the plan warns about them.
"""

from __future__ import annotations

import re

from streamctl.errors import UsageError
from streamctl.kafka.clients import broker_says
from streamctl.model.kafka import KafkaSnapshot
from streamctl.ops import Change, Plan

LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]+")
MAX_NAME_LENGTH = 249

# Value types of common topic configs; the broker validates everything else (validate_only).
BOOLEAN = {"unclean.leader.election.enable", "preallocate", "message.downconversion.enable",
           "remote.storage.enable"}
CHOICES = {
    "cleanup.policy": {"delete", "compact", "compact,delete", "delete,compact"},
    "compression.type": {"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"},
    "message.timestamp.type": {"CreateTime", "LogAppendTime"},
}
FLOAT = {"min.cleanable.dirty.ratio"}


def validate_name(name: str) -> None:
    if name in (".", ".."):
        raise UsageError(f"illegal topic name {name!r}: '.' and '..' are not allowed")
    if len(name) > MAX_NAME_LENGTH:
        raise UsageError(f"illegal topic name: {len(name)} characters, at most {MAX_NAME_LENGTH}")
    if not LEGAL_NAME.fullmatch(name):
        bad = sorted({c for c in name if not LEGAL_NAME.fullmatch(c)})
        raise UsageError(f"illegal topic name {name!r}: characters {''.join(bad)!r} are not allowed "
                         "(use letters, digits, '.', '_' and '-')")


def parse_configs(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """k=v strings to a dict; a malformed pair is a one-line error."""
    configs = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"config {pair!r}: expected key=value")
        configs[key.strip()] = value.strip()
    return configs


def validate_configs(configs: dict[str, str], known: set[str]) -> None:
    """Unknown keys and values of the wrong type, before the broker is asked."""
    for key, value in configs.items():
        if known and key not in known:
            close = [k for k in sorted(known) if k.split(".")[0] == key.split(".")[0]][:3]
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"unknown topic config {key!r}{hint}")
        _check_type(key, value)


def _check_type(key: str, value: str) -> None:
    if key in BOOLEAN and value not in ("true", "false"):
        raise UsageError(f"config {key}: expected true or false, got {value!r}")
    if key in CHOICES and value not in CHOICES[key]:
        raise UsageError(f"config {key}: expected one of {', '.join(sorted(CHOICES[key]))}, got {value!r}")
    if key in FLOAT:
        try:
            float(value)
        except ValueError:
            raise UsageError(f"config {key}: expected a number, got {value!r}") from None
    elif ((key.endswith((".ms", ".bytes", ".messages", ".replicas")) or key == "segment.index.bytes")
          and not re.fullmatch(r"-?\d+", value)):
        raise UsageError(f"config {key}: expected an integer, got {value!r}")


def plan_create(admin, snap: KafkaSnapshot, name: str, partitions: int, replication_factor: int,
                configs: dict[str, str], known_configs: set[str]) -> Plan:
    validate_name(name)
    if partitions < 1:
        raise UsageError(f"--partitions must be at least 1 (got {partitions})")
    live = len(snap.brokers)
    if replication_factor < 1 or replication_factor > live:
        raise UsageError(f"--replication-factor {replication_factor}: must be between 1 and the "
                         f"{live} live broker(s)")
    if snap.topic(name):
        raise UsageError(f"topic {name!r} already exists")
    validate_configs(configs, known_configs)
    plan = Plan("topics.create", name, {"name": name, "partitions": partitions,
                                        "replication_factor": replication_factor, "configs": configs})
    collides = [t.name for t in snap.topics if t.name.replace(".", "_") == name.replace(".", "_")]
    if collides:
        plan.warnings.append(f"{name!r} collides with {', '.join(collides)} once '.' and '_' are "
                             "equated (metric names): consider another name")
    plan.changes.append(Change(f"topic {name}", "partitions", None, partitions))
    plan.changes.append(Change(f"topic {name}", "replication factor", None, replication_factor))
    plan.changes += [Change(f"topic {name}", key, None, value) for key, value in sorted(configs.items())]
    broker_says(lambda: admin.create_topic(name, partitions, replication_factor, configs, validate_only=True))
    return plan


def plan_add_partitions(admin, snap: KafkaSnapshot, name: str, total: int) -> Plan:
    topic = _existing(snap, name)
    current = len(topic.partitions)
    if total <= current:
        raise UsageError(f"topic {name!r} has {current} partitions; --total {total} would not add any "
                         "(Kafka cannot remove partitions)")
    plan = Plan("topics.add-partitions", name, {"name": name, "total": total},
                [Change(f"topic {name}", "partitions", current, total)])
    plan.warnings.append("records with keys will map to other partitions from now on: "
                         "per-key ordering across the change is not kept")
    broker_says(lambda: admin.add_partitions(name, total, validate_only=True))
    return plan


def plan_alter_config(admin, snap: KafkaSnapshot, name: str, values: dict[str, str | None]) -> Plan:
    _existing(snap, name)
    current = admin.topic_configs(name)
    validate_configs({k: v for k, v in values.items() if v is not None}, set(current))
    plan = Plan("topics.alter-config", name, {"name": name, "configs": values})
    for key, value in sorted(values.items()):
        entry = current.get(key)
        before = entry.value if entry is not None else None
        if value is None:
            plan.changes.append(Change(f"topic {name}", key, before, "(default)", "reverts to the broker default"))
        elif before != value:
            plan.changes.append(Change(f"topic {name}", key, before, value))
    if plan.changes:
        broker_says(lambda: admin.alter_topic_configs(name, values, validate_only=True))
    return plan


def plan_delete(snap: KafkaSnapshot, name: str) -> Plan:
    topic = _existing(snap, name)
    groups = sorted({l.group for l in snap.lags if l.topic == name})
    plan = Plan("topics.delete", name, {"name": name},
                [Change(f"topic {name}", "exists", f"{len(topic.partitions)} partitions, "
                        f"{sum(p.messages or 0 for p in topic.partitions)} records", None)])
    if groups:
        plan.warnings.append(f"consumer groups still reading {name!r}: {', '.join(groups)}")
    return plan


def _existing(snap: KafkaSnapshot, name: str):
    topic = snap.topic(name)
    if topic is None:
        raise UsageError(f"no topic {name!r} in the cluster")
    return topic
