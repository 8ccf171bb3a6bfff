"""Kafka mutations and the focused reads operations plan with. Every call bounded, errors one line."""

from __future__ import annotations

from confluent_kafka import ConsumerGroupTopicPartitions, ElectionType, TopicPartition
from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    OffsetSpec,
    ResourcePatternType,
    ResourceType,
)

from streamctl.backends.kafka.authz import CLUSTER, Acl, refusal
from streamctl.backends.kafka.client import KafkaError, mutation
from streamctl.backends.kafka.cluster import KafkaBackend


class KafkaAdmin(KafkaBackend):
    # ---- reads for planning ----------------------------------------------------------------

    def committed(self, group: str) -> dict[tuple[str, int], int]:
        futures = self._admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)],
                                                          request_timeout=self.timeout)
        answer = self._call(lambda: futures[group].result(timeout=self.timeout + 5),
                            f"reading offsets of group {group!r}", Acl("Group", group, "Describe"))
        return {(tp.topic, tp.partition): tp.offset for tp in answer.topic_partitions if tp.offset >= 0}

    def offsets(self, partitions: list[tuple[str, int]], timestamp: int) -> dict[tuple[str, int], int]:
        """list_offsets for many partitions at once: `timestamp` in ms, or EARLIEST / LATEST
        (plain numbers, so a call can cross a process boundary: OffsetSpec does not pickle)."""
        if not partitions:
            return {}
        spec = OffsetSpec(timestamp)  # type: ignore[abstract]  # its __new__ picks the concrete spec
        futures = self._admin.list_offsets({TopicPartition(t, p): spec for t, p in partitions},
                                           request_timeout=self.timeout)
        return {(tp.topic, tp.partition): self._call(lambda f=f: f.result(timeout=self.timeout + 5).offset,
                                                     f"listing offsets of {tp.topic}/{tp.partition}",
                                                     Acl("Topic", tp.topic, "Describe"))
                for tp, f in futures.items()}

    def topic_configs(self, name: str) -> dict[str, ConfigEntry]:
        resource = ConfigResource(ResourceType.TOPIC, name)
        future = self._admin.describe_configs([resource], request_timeout=self.timeout)[resource]
        return self._call(lambda: future.result(timeout=self.timeout + 5), f"describing topic {name!r}",
                          Acl("Topic", name, "DescribeConfigs"))

    # ---- mutations (validate_only asks the broker to check without changing) -------------------

    @mutation
    def add_partitions(self, name: str, total: int, validate_only: bool = False) -> None:
        futures = self._admin.create_partitions([NewPartitions(name, total)], validate_only=validate_only,
                                                operation_timeout=self.timeout, request_timeout=self.timeout)
        self._call(lambda: futures[name].result(timeout=self.timeout + 5), f"adding partitions to {name!r}",
                   Acl("Topic", name, "Alter"))

    @mutation
    def alter_topic_configs(self, name: str, values: dict[str, str | None], validate_only: bool = False) -> None:
        """Incremental: a value sets the key, None deletes it (back to the default)."""
        entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.DELETE if v is None
                               else AlterConfigOpType.SET) for k, v in values.items()]
        resource = ConfigResource(ResourceType.TOPIC, name, incremental_configs=entries)
        future = self._admin.incremental_alter_configs([resource], validate_only=validate_only,
                                                       request_timeout=self.timeout)[resource]
        self._call(lambda: future.result(timeout=self.timeout + 5), f"altering configs of {name!r}",
                   Acl("Topic", name, "AlterConfigs"))

    @mutation
    def delete_topic(self, name: str) -> None:
        futures = self._admin.delete_topics([name], operation_timeout=self.timeout, request_timeout=self.timeout)
        self._call(lambda: futures[name].result(timeout=self.timeout + 5), f"deleting topic {name!r}",
                   Acl("Topic", name, "Delete"))

    @mutation
    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        request = ConsumerGroupTopicPartitions(group, [TopicPartition(t, p, o) for (t, p), o in offsets.items()])
        futures = self._admin.alter_consumer_group_offsets([request], request_timeout=self.timeout)
        what = f"committing offsets of group {group!r}"
        answer = self._call(lambda: futures[group].result(timeout=self.timeout + 5), what,
                            Acl("Group", group, "Read"))
        failed = [tp for tp in answer.topic_partitions if tp.error is not None]
        if failed:
            tp = failed[0]
            needs = [Acl("Group", group, "Read"), Acl("Topic", tp.topic, "Read")]
            if refused := refusal(tp.error, what, self.principal, needs):
                raise refused
            raise KafkaError(f"committing {tp.topic}/{tp.partition} for group {group!r} failed: {tp.error.str()}")

    @mutation
    def elect_preferred(self, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], str | None]:
        """Preferred leader election; per partition None (done) or the broker's reason."""
        # confluent-kafka 2.16 raises SystemError for any timeout keyword on elect_leaders; the
        # client's socket.timeout.ms bounds the request and result(timeout) bounds the wait.
        future = self._admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(t, p) for t, p in partitions])
        what, needs = "electing preferred leaders", [Acl("Cluster", CLUSTER, "Alter")]
        answer = self._call(lambda: future.result(timeout=self.timeout + 5), what, *needs)
        for err in answer.values():  # a refusal comes back per partition
            if err is not None and (refused := refusal(err, what, self.principal, needs)):
                raise refused
        return {(tp.topic, tp.partition): _election_error(err) for tp, err in answer.items()}


    def create_acls(self, acls: list[tuple[str, str, str, str]]) -> None:
        """ALLOW ACLs, each (principal, resource type, literal name, operation) as kafka-acls.sh
        names them: ("User:ops", "Topic", "*", "DescribeConfigs")."""
        bindings = [AclBinding(_ACL_RESOURCE_TYPES[kind], name, ResourcePatternType.LITERAL, who, "*",
                               AclOperation[_snake(operation)], AclPermissionType.ALLOW)
                    for who, kind, name, operation in acls]
        futures = self._admin.create_acls(bindings, request_timeout=self.timeout)
        for binding, future in futures.items():
            self._call(lambda f=future: f.result(timeout=self.timeout + 5),
                       f"creating the ACL {binding.principal} {binding.operation.name} on "
                       f"{binding.restype.name} {binding.name!r}", Acl("Cluster", CLUSTER, "Alter"))


# kafka-acls.sh's resource types in librdkafka's terms (its BROKER is Kafka's CLUSTER, code 4)
_ACL_RESOURCE_TYPES = {"Topic": ResourceType.TOPIC, "Group": ResourceType.GROUP, "Cluster": ResourceType.BROKER,
                       "TransactionalId": ResourceType.TRANSACTIONAL_ID}


def _snake(operation: str) -> str:
    """DescribeConfigs -> DESCRIBE_CONFIGS."""
    return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(operation)).upper()


def _election_error(err) -> str | None:
    """None when the partition is led by its preferred replica afterwards."""
    if err is None or err.code() == KafkaErrorCode.ELECTION_NOT_NEEDED:
        return None
    return err.str()
