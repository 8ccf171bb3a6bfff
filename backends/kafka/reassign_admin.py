"""Moving partitions between brokers (KIP-455) through kafka-python: the layout (brokers with
their racks, every partition's replicas), the size of each partition on disk (DescribeLogDirs),
the reassignments in flight, starting and cancelling them, and the replication throttles.

librdkafka 2.16 has no AlterPartitionReassignments / ListPartitionReassignments, so the whole
resource goes through WireAdmin (wire.py) for one connection and one error shape. Partitions are
(topic, partition) tuples; every answer is plain data (it crosses IsolatedKafka's process boundary;
`reassign plan` keeps it in its own process: clients.wire_reader).
Altering reassignments needs Alter on the Cluster, the throttles AlterConfigs; a refusal names it.
"""

from __future__ import annotations

from typing import Any

from streamctl.backends.kafka.authz import CLUSTER, Acl
from streamctl.backends.kafka.client import mutation
from streamctl.backends.kafka.wire import WireAdmin, WireError

Partition = tuple[str, int]
BROKER_RATES = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
TOPIC_REPLICAS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


class ReassignAdmin(WireAdmin):
    def layout(self) -> dict[str, Any]:
        """{"brokers": {id: rack or None}, "replicas": {(topic, partition): [broker ids]}}: one
        Metadata request (its brokers are the live, unfenced ones, as DescribeCluster's are)."""
        return _layout(self.send(_every_topic(), "describing topics", Acl("Topic", "*", "Describe")))

    def sizes(self) -> dict[tuple[int, str, int], int]:
        """Bytes on disk per (broker, topic, partition) replica (the current log, not a future
        one): every broker's DescribeLogDirs, sent together."""
        brokers = self.broker_ids()
        answers = self.send_together(_log_dirs_requests(brokers), "describing log dirs", Acl("Cluster", CLUSTER, "Describe"))
        return _sizes(brokers, answers)

    def layout_and_sizes(self) -> tuple[dict[str, Any], dict[tuple[int, str, int], int]]:
        """layout() and the sizes of its partitions in one round trip: the Metadata request and
        every broker's DescribeLogDirs go out together."""
        brokers = self.broker_ids()
        metadata, *log_dirs = self.send_together(
            [(_every_topic(), None), *_log_dirs_requests(brokers)],
            "describing topics and log dirs", Acl("Topic", "*", "Describe"), Acl("Cluster", CLUSTER, "Describe"))
        layout = _layout(metadata)
        sizes = _sizes(brokers, log_dirs)
        return layout, {key: size for key, size in sizes.items() if key[1:] in layout["replicas"]}

    def in_flight(self) -> dict[Partition, dict[str, list[int]]]:
        """The reassignments in progress: replicas, adding_replicas, removing_replicas."""
        listed = self.call(self.client.list_partition_reassignments, "listing reassignments",
                           Acl("Cluster", CLUSTER, "Describe"))
        return {(tp.topic, tp.partition): dict(state) for tp, state in listed.items()}

    @mutation
    def reassign(self, targets: dict[Partition, list[int] | None]) -> None:
        """Start moving each partition to its replicas (None cancels its move in flight)."""
        from kafka import TopicPartition

        asked = {TopicPartition(t, p): replicas for (t, p), replicas in targets.items()}
        what = "cancelling reassignments" if all(r is None for r in targets.values()) else "reassigning partitions"
        results = self.call(lambda: self.client.alter_partition_reassignments(asked), what,
                            Acl("Cluster", CLUSTER, "Alter"))
        failed = [f"{tp.topic}/{tp.partition}: {err.__name__}" for tp, err in results.items()
                  if err is not None and not (err.__name__ == "NoReassignmentInProgressError" and asked[tp] is None)]
        if failed:
            raise WireError(f"{what} failed: {failed[0]}" + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""))

    def throttle_configs(self, brokers: list[int], topics: list[str]) -> dict[str, dict[str, str]]:
        """The throttle settings now set: {"broker 1": {key: value}, "topic t": {key: value}}."""
        from kafka.admin import ConfigResource, ConfigResourceType

        resources = ([ConfigResource(ConfigResourceType.BROKER, str(b), list(BROKER_RATES)) for b in brokers] +
                     [ConfigResource(ConfigResourceType.TOPIC, t, list(TOPIC_REPLICAS)) for t in topics])
        if not resources:
            return {}
        described = self.call(lambda: self.client.describe_configs(resources), "describing throttle configs",
                              Acl("Cluster", CLUSTER, "DescribeConfigs"))
        found: dict[str, dict[str, str]] = {}
        for kind, by_name in described.items():
            for name, configs in by_name.items():
                found[f"{kind} {name}"] = {key: c["value"] for key, c in configs.items()
                                           if key in BROKER_RATES + TOPIC_REPLICAS and c.get("value")}
        return found

    @mutation
    def set_throttles(self, rate: int, brokers: list[int], topics: dict[str, dict[str, str]]) -> None:
        """Set both replication rates on `brokers` and, per topic, its throttled replica lists."""
        from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType

        resources = ([ConfigResource(ConfigResourceType.BROKER, str(b),
                                     {k: (AlterConfigOp.SET, str(rate)) for k in BROKER_RATES}) for b in brokers] +
                     [ConfigResource(ConfigResourceType.TOPIC, t, {k: (AlterConfigOp.SET, v) for k, v in lists.items()})
                      for t, lists in topics.items()])
        self._alter(resources, "setting replication throttles")

    @mutation
    def clear_throttles(self, brokers: list[int], topics: list[str]) -> None:
        """Remove the replication throttles from `brokers` and `topics`."""
        from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType

        delete = (AlterConfigOp.DELETE, None)
        resources = ([ConfigResource(ConfigResourceType.BROKER, str(b), dict.fromkeys(BROKER_RATES, delete)) for b in brokers] +
                     [ConfigResource(ConfigResourceType.TOPIC, t, dict.fromkeys(TOPIC_REPLICAS, delete)) for t in topics])
        self._alter(resources, "removing replication throttles")

    def _alter(self, resources: list, what: str) -> None:
        if not resources:
            return
        answer = self.call(lambda: self.client.alter_configs(resources, raise_on_unknown=False, incremental=True),
                           what, Acl("Cluster", CLUSTER, "AlterConfigs"))
        for by_name in answer.values():
            for name, result in by_name.items():
                if result != "OK":  # kafka-python's answer: "OK" or the error's text
                    raise WireError(f"{what} failed on {name}: {result}")


def _every_topic():
    """A Metadata request for every topic (brokers and replicas; no authorized-operations lists)."""
    from kafka.protocol.metadata import MetadataRequest

    return MetadataRequest(topics=None, allow_auto_topic_creation=False)


def _layout(metadata) -> dict[str, Any]:
    """layout()'s shape from a MetadataResponse."""
    return {"brokers": {b.node_id: b.rack for b in metadata.brokers},
            "replicas": {(t.name, p.partition_index): list(p.replica_nodes)
                         for t in metadata.topics for p in t.partitions}}


def _log_dirs_requests(brokers: list[int]) -> list[tuple[Any, int]]:
    """A DescribeLogDirs request for each broker, asking for every partition it holds (null
    topics: no list of every partition to send, nor a Metadata request to build one)."""
    from kafka.protocol.admin.cluster import DescribeLogDirsRequest

    return [(DescribeLogDirsRequest(topics=None), broker) for broker in brokers]


def _sizes(brokers: list[int], answers: list) -> dict[tuple[int, str, int], int]:
    """Bytes per (broker, topic, partition) from each broker's DescribeLogDirsResponse (future
    replicas, a move between a broker's log dirs, left out)."""
    return {(broker, topic.name, p.partition_index): p.partition_size
            for broker, answer in zip(brokers, answers, strict=True)
            for log_dir in answer.results for topic in log_dir.topics for p in topic.partitions
            if not p.is_future_key}
