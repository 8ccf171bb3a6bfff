"""Which topics' key configs a snapshot reuses from check's last runs: only those whose every
partition has a leader and its full ISR (then min.insync.replicas only meets the replica count)."""

from __future__ import annotations

from confluent_kafka.admin import PartitionMetadata, TopicMetadata

from streamctl.backends.kafka.cluster import _isr_full


def topic(*partitions: tuple[int, list[int], list[int]]) -> TopicMetadata:
    """partitions: (leader, replicas, isr) each, as librdkafka's metadata holds them."""
    meta = TopicMetadata()
    for number, (leader, replicas, isr) in enumerate(partitions):
        part = PartitionMetadata()
        part.id, part.leader, part.replicas, part.isrs = number, leader, replicas, isr
        meta.partitions[number] = part
    return meta


def test_a_topic_with_every_isr_full_reuses_its_configs():
    assert _isr_full(topic((1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [3, 1, 2])))


def test_a_shrunk_isr_or_a_missing_leader_reads_them_again():
    assert not _isr_full(topic((1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3])))
    assert not _isr_full(topic((-1, [1, 2, 3], [1, 2, 3])))
