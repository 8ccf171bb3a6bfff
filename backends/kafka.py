"""Kafka adapter on confluent-kafka's AdminClient: plain dataclasses out, every call bounded."""

from __future__ import annotations

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from streamctl.errors import StreamctlError
from streamctl.model import Broker, ClusterMetadata, PartitionState


class KafkaBackend:
    def __init__(self, client_config: dict[str, str], timeout: float = 10.0, kraft: bool = False):
        self.timeout = timeout
        self.kraft = kraft
        self._admin = AdminClient({
            **client_config,
            "socket.timeout.ms": str(int(timeout * 1000)),
            # librdkafka logs connection failures to stderr by default; they become findings instead.
            "log_level": "0",
        })

    def metadata(self, topic: str | None = None) -> ClusterMetadata:
        """Brokers, controller and partition states in one metadata call."""
        try:
            md = self._admin.list_topics(topic=topic, timeout=self.timeout)
        except KafkaException as exc:
            raise StreamctlError(f"Kafka metadata request failed: {_reason(exc)}") from None
        brokers = tuple(
            Broker(id=b.id, host=b.host, port=b.port,
                   is_controller=not self.kraft and b.id == md.controller_id)
            for b in sorted(md.brokers.values(), key=lambda b: b.id)
        )
        partitions = tuple(
            PartitionState(t.topic, p.id, p.leader, tuple(p.replicas), tuple(p.isrs))
            for t in md.topics.values() if t.error is None
            for p in sorted(t.partitions.values(), key=lambda p: p.id)
        )
        controller = None if self.kraft or md.controller_id < 0 else md.controller_id
        return ClusterMetadata(md.cluster_id, brokers, controller, partitions)

    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     config: dict[str, str] | None = None) -> None:
        futures = self._admin.create_topics(
            [NewTopic(name, partitions, replication_factor, config=config or {})],
            operation_timeout=self.timeout, request_timeout=self.timeout,
        )
        try:
            futures[name].result(timeout=self.timeout + 5)
        except KafkaException as exc:
            raise StreamctlError(f"creating topic {name!r} failed: {_reason(exc)}") from None


def _reason(exc: KafkaException) -> str:
    err = exc.args[0] if exc.args else None
    return err.str() if hasattr(err, "str") else str(exc)
