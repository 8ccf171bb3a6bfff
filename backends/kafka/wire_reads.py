"""Reads through the kafka-python route (wire.py): every group's type (ListGroups v5, KIP-1043:
classic, consumer, share, streams) and the KRaft quorum (DescribeQuorum, the `kraft.version`
feature), with no JVM. Answers are plain data and model objects, so the reads run in an
IsolatedKafka child like the librdkafka ones (`IsolatedKafka(WireReads, config, timeout=...)`).
"""

from __future__ import annotations

import re
from typing import Any

from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.wire import WireAdmin
from streamctl.model.kafka import Quorum, QuorumNode

GROUP_TYPES = ("classic", "consumer", "share", "streams")
NOT_KRAFT = "not a KRaft cluster (ZooKeeper mode: no controller quorum)"
NOT_KRAFT_HINTS = ("IncompatibleBrokerVersion", "UnsupportedVersion")


class WireReads(WireAdmin):
    """A WireAdmin whose methods answer with plain data (picklable across IsolatedKafka)."""

    def group_listing(self) -> list[dict[str, Any]]:
        """Every broker's ListGroups answer: group_id, protocol_type, group_state (v4+) and
        group_type (v5+: absent from brokers before Kafka 3.8)."""
        try:
            return self.call(self.client.list_groups, "listing group types")
        finally:
            self.close()

    def quorum_answer(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The DescribeQuorum answer and the finalized features, as kafka-python decodes them."""
        try:
            answer = self.call(self.client.describe_metadata_quorum, "describe quorum")
            features = self.call(self.client.describe_features, "describe features")
        except KafkaError as exc:  # a ZooKeeper-mode broker has no DescribeQuorum
            if any(hint in str(exc) for hint in NOT_KRAFT_HINTS):
                raise KafkaError(NOT_KRAFT) from None
            raise
        finally:
            self.close()
        return answer, features

    def quorum(self) -> Quorum:
        return parse_wire_quorum(*self.quorum_answer())


def parse_wire_quorum(answer: dict[str, Any], features: dict[str, Any]) -> Quorum:
    """DescribeQuorum's answer as the JVM tool reports it: each node's lag is the leader's log
    end offset minus its own (MetadataQuorumCommand's), a last caught-up time of -1 is none."""
    try:
        partition = answer["topics"][0]["partitions"][0]
        voters, observers = partition["current_voters"], partition["observers"]
        leader = partition["leader_id"]
    except (KeyError, IndexError, TypeError):
        raise KafkaError(f"metadata quorum: unexpected DescribeQuorum answer: {str(answer)[:200]!r}") from None
    if partition.get("error"):
        raise KafkaError(f"metadata quorum: {partition['error']}")
    leader_end = next((v["log_end_offset"] for v in voters if v["replica_id"] == leader), None)

    def node(replica: dict[str, Any], role: str) -> QuorumNode:
        end = replica["log_end_offset"]
        caught_up = replica.get("last_caught_up_timestamp")
        return QuorumNode(node_id=replica["replica_id"], role=role, log_end_offset=end,
                          lag=max(0, leader_end - end) if leader_end is not None else 0,
                          last_caught_up_ms=caught_up if caught_up is not None and caught_up >= 0 else None)

    nodes = [node(v, "leader" if v["replica_id"] == leader else "follower") for v in voters]
    nodes += [node(o, "observer") for o in observers]
    return Quorum(leader_id=leader if leader >= 0 else None, epoch=partition["leader_epoch"],
                  high_watermark=partition["high_watermark"], nodes=tuple(nodes),
                  kraft_version=kraft_version(features))


def kraft_version(features: dict[str, Any]) -> int:
    """The finalized `kraft.version` (KIP-853): 0, a static quorum, is never listed as finalized."""
    finalized = (features.get("kraft.version") or {}).get("finalized")
    return int(finalized[1]) if finalized else 0


def group_type(listed: dict[str, Any]) -> str | None:
    """The group's type as the model writes it (CLASSIC, CONSUMER, SHARE, STREAMS); None from a
    broker whose ListGroups has no type (before v5)."""
    value = listed.get("group_type")
    return value.upper() if value else None


def group_state(listed: dict[str, Any]) -> str:
    """ListGroups' state ("PreparingRebalance", "NotReady") as the model writes it (PREPARING_REBALANCE)."""
    value = listed.get("group_state") or ""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", value).upper() or "UNKNOWN"
