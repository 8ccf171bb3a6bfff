"""Kafka mutations and the focused reads operations plan with. Every call bounded, errors one line."""

from __future__ import annotations

from confluent_kafka import ConsumerGroupTopicPartitions, ElectionType, TopicPartition
from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka.admin import (
    AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions, OffsetSpec, ResourceType,
)

from streamctl.backends.kafka import KafkaBackend
from streamctl.backends.kafka_client import KafkaError, call, mutation


class KafkaAdmin(KafkaBackend):
    # ---- reads for planning ----------------------------------------------------------------

    def committed(self, group: str) -> dict[tuple[str, int], int]:
        futures = self._admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)],
                                                          request_timeout=self.timeout)
        answer = call(lambda: futures[group].result(timeout=self.timeout + 5),
                       f"reading offsets of group {group!r}")
        return {(tp.topic, tp.partition): tp.offset for tp in answer.topic_partitions if tp.offset >= 0}

    def offsets(self, partitions: list[tuple[str, int]], timestamp: int) -> dict[tuple[str, int], int]:
        """list_offsets for many partitions at once: `timestamp` in ms, or EARLIEST / LATEST
        (plain numbers, so a call can cross a process boundary: OffsetSpec does not pickle)."""
        if not partitions:
            return {}
        spec = OffsetSpec(timestamp)
        futures = self._admin.list_offsets({TopicPartition(t, p): spec for t, p in partitions},
                                           request_timeout=self.timeout)
        return {(tp.topic, tp.partition): call(lambda f=f: f.result(timeout=self.timeout + 5).offset,
                                                f"listing offsets of {tp.topic}/{tp.partition}")
                for tp, f in futures.items()}

    def topic_configs(self, name: str) -> dict[str, ConfigEntry]:
        resource = ConfigResource(ResourceType.TOPIC, name)
        future = self._admin.describe_configs([resource], request_timeout=self.timeout)[resource]
        return call(lambda: future.result(timeout=self.timeout + 5), f"describing topic {name!r}")

    # ---- mutations (validate_only asks the broker to check without changing) -------------------

    @mutation
    def add_partitions(self, name: str, total: int, validate_only: bool = False) -> None:
        futures = self._admin.create_partitions([NewPartitions(name, total)], validate_only=validate_only,
                                                operation_timeout=self.timeout, request_timeout=self.timeout)
        call(lambda: futures[name].result(timeout=self.timeout + 5), f"adding partitions to {name!r}")

    @mutation
    def alter_topic_configs(self, name: str, values: dict[str, str | None], validate_only: bool = False) -> None:
        """Incremental: a value sets the key, None deletes it (back to the default)."""
        entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.DELETE if v is None
                               else AlterConfigOpType.SET) for k, v in values.items()]
        resource = ConfigResource(ResourceType.TOPIC, name, incremental_configs=entries)
        future = self._admin.incremental_alter_configs([resource], validate_only=validate_only,
                                                       request_timeout=self.timeout)[resource]
        call(lambda: future.result(timeout=self.timeout + 5), f"altering configs of {name!r}")

    @mutation
    def delete_topic(self, name: str) -> None:
        futures = self._admin.delete_topics([name], operation_timeout=self.timeout, request_timeout=self.timeout)
        call(lambda: futures[name].result(timeout=self.timeout + 5), f"deleting topic {name!r}")

    @mutation
    def commit_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        request = ConsumerGroupTopicPartitions(group, [TopicPartition(t, p, o) for (t, p), o in offsets.items()])
        futures = self._admin.alter_consumer_group_offsets([request], request_timeout=self.timeout)
        answer = call(lambda: futures[group].result(timeout=self.timeout + 5),
                       f"committing offsets of group {group!r}")
        failed = [tp for tp in answer.topic_partitions if tp.error is not None]
        if failed:
            tp = failed[0]
            raise KafkaError(f"committing {tp.topic}/{tp.partition} for group {group!r} failed: {tp.error.str()}")

    @mutation
    def elect_preferred(self, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], str | None]:
        """Preferred leader election; per partition None (done) or the broker's reason."""
        # confluent-kafka 2.16 raises SystemError for any timeout keyword on elect_leaders; the
        # client's socket.timeout.ms bounds the request and result(timeout) bounds the wait.
        future = self._admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(t, p) for t, p in partitions])
        answer = call(lambda: future.result(timeout=self.timeout + 5), "electing preferred leaders")
        return {(tp.topic, tp.partition): _election_error(err) for tp, err in answer.items()}


def _election_error(err) -> str | None:
    """None when the partition is led by its preferred replica afterwards."""
    if err is None or err.code() == KafkaErrorCode.ELECTION_NOT_NEEDED:
        return None
    return err.str()
