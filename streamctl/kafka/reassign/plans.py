"""Reassignment plans: the moves (from the planner or a plan file, checked against the cluster),
the throttle rate, and the Plan that execute shows, runs and audits.

The plan file is kafka-reassign-partitions.sh's format ({"version": 1, "partitions": [{"topic",
"partition", "replicas"}]}); `reassign plan -o json` writes it with more fields (old replicas,
bytes per broker, the estimate), which execute ignores.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from streamctl.errors import UsageError
from streamctl.kafka.reassign import planner
from streamctl.kafka.reassign.planner import Layout, Partition
from streamctl.ops import Change, Plan

UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def parse_rate(text: str) -> int:
    """A throttle in bytes/s: "5000000", "50MB", "20MiB" (an optional "/s")."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)(?:/s)?\s*", text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in UNITS:
        raise UsageError(f"--throttle {text!r}: give bytes per second, e.g. 10MB or 5000000")
    rate = int(float(match.group(1)) * UNITS[unit])
    if rate <= 0:
        raise UsageError(f"--throttle {text!r}: must be above 0 bytes per second")
    return rate


JOBS = "--decommission, --add-broker, --replication-factor, --rebalance"


def require_one_job(decommission: int | None, replication_factor: str | None, rebalance: bool,
                    add_broker: int | None = None) -> None:
    """Exactly one job was asked (checked before any network call)."""
    if sum(x is not None and x is not False for x in (decommission, replication_factor, rebalance, add_broker)) != 1:
        raise UsageError(f"give exactly one of {JOBS}")


@dataclass(frozen=True)
class Job:
    """One reassignment job, as the CLI's options give it: exactly one field set."""

    decommission: int | None = None
    add_broker: int | None = None
    replication_factor: str | None = None  # TOPIC=N
    rebalance: bool = False

    @property
    def label(self) -> str:
        """The job as the plan and the audit log name it, e.g. "decommission 3"."""
        if self.decommission is not None:
            return f"decommission {self.decommission}"
        if self.add_broker is not None:
            return f"add-broker {self.add_broker}"
        return f"replication-factor {self.replication_factor}" if self.replication_factor else "rebalance"

    def moves(self, layout: Layout) -> dict[Partition, list[int]]:
        return moves_for(layout, self.decommission, self.replication_factor, self.rebalance, self.add_broker)


def moves_for(layout: Layout, decommission: int | None, replication_factor: str | None,
              rebalance: bool, add_broker: int | None = None) -> dict[Partition, list[int]]:
    """The moves for the one job asked (decommission, add a broker, replication factor or rebalance)."""
    require_one_job(decommission, replication_factor, rebalance, add_broker)
    if decommission is not None:
        return planner.decommission(layout, decommission)
    if add_broker is not None:
        return planner.add_broker(layout, add_broker)
    if replication_factor is not None:
        topic, _, factor = replication_factor.rpartition("=")
        if not topic or not factor.isdigit():
            raise UsageError(f"--replication-factor {replication_factor!r}: give TOPIC=N, e.g. orders=3")
        return planner.replication_factor(layout, topic, int(factor))
    return planner.rebalance(layout)


def load_plan_file(path: str, layout: Layout) -> dict[Partition, list[int]]:
    """A plan file's moves, each checked against the cluster: any fault is one line."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise UsageError(f"plan file {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"plan file {path}: not JSON ({exc})") from None
    entries = data.get("partitions") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"plan file {path}: no \"partitions\" list")
    moves: dict[Partition, list[int]] = {}
    for entry in entries:
        partition, replicas = _entry(path, entry)
        where = f"plan file {path}: {partition[0]}/{partition[1]}"
        if partition not in layout.replicas:
            raise UsageError(f"{where}: no such partition in the cluster")
        if partition in moves:
            raise UsageError(f"{where}: listed twice")
        if not replicas:
            raise UsageError(f"{where}: the replica list is empty")
        if len(set(replicas)) != len(replicas):
            raise UsageError(f"{where}: a broker appears twice in {replicas}")
        unknown = sorted(set(replicas) - set(layout.brokers))
        if unknown:
            raise UsageError(f"{where}: unknown broker {unknown[0]} (brokers: "
                             f"{', '.join(str(b) for b in sorted(layout.brokers))})")
        moves[partition] = replicas
    return {p: r for p, r in sorted(moves.items()) if r != layout.replicas[p]}


def _entry(path: str, entry) -> tuple[Partition, list[int]]:
    ok = (isinstance(entry, dict) and isinstance(entry.get("topic"), str) and type(entry.get("partition")) is int
          and isinstance(entry.get("replicas"), list) and all(type(b) is int for b in entry["replicas"]))
    if not ok:
        raise UsageError(f"plan file {path}: each partition needs \"topic\" (text), \"partition\" (a number) "
                         f"and \"replicas\" (broker ids): {json.dumps(entry)[:80]}")
    return (entry["topic"], entry["partition"]), list(entry["replicas"])


def describe(layout: Layout, moves: dict[Partition, list[int]], rate: int | None) -> dict:
    """The plan as data: every partition's old -> new replicas, bytes per broker, the estimate.
    Its "version" and "partitions" make it a plan file for execute (and Kafka's own tool)."""
    per_broker = planner.bytes_moving(layout, moves)
    return {
        "version": 1,
        "partitions": [{"topic": t, "partition": p, "replicas": new, "old_replicas": layout.replicas[(t, p)],
                        "bytes": layout.size((t, p))} for (t, p), new in moves.items()],
        "bytes_per_broker": {str(b): v for b, v in sorted(per_broker.items())},
        "bytes_to_move": sum(v["in"] for v in per_broker.values()),
        "throttle": rate,
        "estimate_seconds": round(planner.estimate_seconds(per_broker, rate), 1) if rate else None,
    }


def throttled_replicas(layout: Layout, moves: dict[Partition, list[int]]) -> dict[str, dict[str, str]]:
    """Per topic, Kafka's throttled replica lists for the moving partitions only: the leader side
    is every replica now (any may serve the copy), the follower side each new replica."""
    leader: dict[str, list[str]] = {}
    follower: dict[str, list[str]] = {}
    for (topic, partition), new in moves.items():
        old = layout.replicas[(topic, partition)]
        leader.setdefault(topic, []).extend(f"{partition}:{b}" for b in old)
        follower.setdefault(topic, []).extend(f"{partition}:{b}" for b in new if b not in old)
    lists = {topic: {"leader.replication.throttled.replicas": ",".join(leader[topic]),
                     "follower.replication.throttled.replicas": ",".join(follower.get(topic, []))}
             for topic in sorted(leader)}
    return {topic: {key: value for key, value in keys.items() if value} for topic, keys in lists.items()}


def moving_brokers(layout: Layout, moves: dict[Partition, list[int]]) -> list[int]:
    return sorted({b for p, new in moves.items() for b in [*new, *layout.replicas[p]]})


def plan_execute(layout: Layout, moves: dict[Partition, list[int]], rate: int, job: str,
                 elect_leaders: bool = False) -> Plan:
    described = describe(layout, moves, rate)
    plan = Plan("reassign.execute", job, {"job": job, "throttle": rate, "elect_leaders": elect_leaders,
                                          "partitions": described["partitions"]},
                [Change(f"{t}/{p}", "replicas", _ids(layout.replicas[(t, p)]), _ids(new),
                        _bytes_note(layout.size((t, p)))) for (t, p), new in moves.items()])
    if moves:
        plan.warnings.append(f"{described['bytes_to_move']:,} bytes to copy; about "
                             f"{described['estimate_seconds']:g} s at {rate:,} bytes/s per broker")
    return plan


def plan_cancel(in_flight: dict[Partition, dict[str, list[int]]]) -> Plan:
    """Cancel every move in flight: each partition keeps the replicas it had before."""
    changes = [Change(f"{t}/{p}", "replicas", _ids(state["replicas"]), _ids(_previous(state)), "cancel the move")
               for (t, p), state in sorted(in_flight.items())]
    return Plan("reassign.cancel", "in-flight reassignments",
                {"partitions": [f"{t}/{p}" for t, p in sorted(in_flight)]}, changes)


def _previous(state: dict[str, list[int]]) -> list[int]:
    return [b for b in state["replicas"] if b not in state["adding_replicas"]]


def _ids(replicas: list[int]) -> str:
    return ",".join(str(b) for b in replicas)


def _bytes_note(size: int) -> str:
    return f"{size:,} bytes" if size else ""
