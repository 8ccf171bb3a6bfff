"""Small real-Kafka helpers shared by integration tests: topics, records, committed offsets."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import yaml
from confluent_kafka import Consumer, Producer, TopicPartition


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def ordered_producer(bootstrap: str, **config) -> Producer:
    """A producer whose records land once each, in the order produced. Without idempotence a
    retried request (a new partition's leader not ready yet) can land after the next one."""
    return Producer({"bootstrap.servers": bootstrap, "log_level": "0", "enable.idempotence": True, **config})


def create_topic_once_settled(sandbox, topic: str, partitions: int, replication: int) -> None:
    """Create `topic` for a test's set-up, asking again only while it does not exist: a broker
    renewing an expired ZooKeeper session answers a create with UNKNOWN_SERVER_ERROR (seen in a
    rehearsal after earlier fault tests), and the next broker or the next try succeeds."""
    from streamctl.backends.kafka.client import KafkaError

    def created() -> bool:
        kafka = sandbox.kafka()
        try:
            kafka.create_topic(topic, partitions, replication)
        except KafkaError:
            try:
                return kafka.metadata(topic).topic(topic) is not None
            except KafkaError:
                return False
        return True

    sandbox.wait_until(created, timeout=60, interval=2, what=f"topic {topic} created")


def produce(bootstrap: str, topic: str, count: int, partitions: int = 1) -> None:
    producer = ordered_producer(bootstrap)
    for i in range(count):
        producer.produce(topic, f"{topic} record {i}".encode(), partition=i % partitions)
    assert producer.flush(30) == 0, "records left unsent"


def commit(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit offsets for a group without joining it (what a consumer that stopped left)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "enable.auto.commit": False, "log_level": "0"})
    try:
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()],
                        asynchronous=False)
    finally:
        consumer.close()


@contextmanager
def live_member(bootstrap: str, topic: str, group: str, client_id: str):
    """A member of `group` polling `topic` in a process of its own (live_member.py says why)."""
    member = subprocess.Popen([sys.executable, "-m", "tests.integration.live_member", bootstrap, topic, group,
                               client_id], cwd=Path(__file__).parents[2])
    try:
        yield member
    finally:
        member.terminate()
        try:
            member.wait(30)
        except subprocess.TimeoutExpired:
            member.kill()
            member.wait()


def write_context(path: Path, bootstrap: str, name: str = "it", **context) -> Path:
    """A config file with one context pointing at `bootstrap`; extra keys merged in."""
    kafka = {"bootstrap_servers": bootstrap, "expected_brokers": 3, **context.pop("kafka", {})}
    data = {"current-context": name, "contexts": {name: {"kafka": kafka, **context}}}
    path.write_text(yaml.safe_dump(data))
    return path


@contextmanager
def black_hole():
    """A loopback port that accepts TCP connections (kernel backlog) and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield f"127.0.0.1:{sock.getsockname()[1]}"


def free_address() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"127.0.0.1:{port}"


def kafka_tool_lag(bootstrap: str, group: str, kraft: bool = False) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(topic, partition) -> (current offset, log end, lag) as Kafka's kafka-consumer-groups.sh
    --describe prints them (its ConsumerGroupCommand, from the fetched jars of that mode's Kafka)."""
    from streamctl.jvm import maven
    from streamctl.jvm.java import run_tool

    result = run_tool("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                      "--bootstrap-server", bootstrap, "--describe", "--group", group,
                      artifact_set=maven.KAFKA_KRAFT if kraft else maven.KAFKA)
    assert result.returncode == 0, result.stderr
    rows = {}
    for line in result.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == group and re.fullmatch(r"\d+", fields[2]):
            rows[(fields[1], int(fields[2]))] = tuple(int(x) for x in fields[3:6])
    return rows
