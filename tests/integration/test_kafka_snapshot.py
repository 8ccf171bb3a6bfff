"""KafkaBackend.snapshot against the real sandbox: watermarks as the Admin API reports them, and
lag in time read from the records at each group's committed offset."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient

from streamctl.backends.kafka.cluster import EARLIEST, LATEST
from tests.integration.kafka_helpers import commit, ordered_producer, produce, unique

pytestmark = pytest.mark.integration


def produce_dated(bootstrap: str, topic: str, stamps_ms: list[int]) -> None:
    producer = ordered_producer(bootstrap)
    for i, stamp in enumerate(stamps_ms):
        producer.produce(topic, f"r{i}".encode(), partition=0, timestamp=stamp)
    assert producer.flush(30) == 0


def test_watermarks_equal_the_admin_api_including_a_moved_log_start(cluster):
    topic = unique("wm")
    cluster.kafka().create_topic(topic, 3, 3)
    produce(cluster.bootstrap_servers, topic, 90, partitions=3)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    deleted = admin.delete_records([TopicPartition(topic, 1, 12)], request_timeout=10)
    for future in deleted.values():
        future.result(timeout=15)

    snap = cluster.kafka().snapshot(groups=False)

    reference = cluster.admin()
    keys = [(topic, p) for p in range(3)]
    earliest = reference.offsets(keys, EARLIEST)
    latest = reference.offsets(keys, LATEST)
    states = {(p.topic, p.partition): p for p in snap.topic_partitions(topic)}
    assert {k: (states[k].low, states[k].high) for k in keys} == {k: (earliest[k], latest[k]) for k in keys}
    assert states[(topic, 1)].low == 12 and states[(topic, 2)].high == 30


def test_lag_in_time_comes_from_each_groups_own_record_on_a_shared_partition(cluster):
    """Two groups behind on the same partition at different offsets: each one's lag in time is
    the age of the record at its own committed offset (one read round per offset)."""
    topic, early, late = unique("lagtime"), unique("early"), unique("late")
    cluster.kafka().create_topic(topic, 1, 3)
    now_ms = int(time.time() * 1000)
    stamps = [now_ms - (1000 - 60 * i) * 1000 for i in range(10)]  # 1000 s ago, 940 s ago, ...
    produce_dated(cluster.bootstrap_servers, topic, stamps)
    commit(cluster.bootstrap_servers, early, {(topic, 0): 2})
    commit(cluster.bootstrap_servers, late, {(topic, 0): 7})

    snap = cluster.kafka().snapshot(group_filter=lambda g: g in (early, late))

    lags = {l.group: l for l in snap.lags}
    for group, offset in ((early, 2), (late, 7)):
        expected = time.time() - stamps[offset] / 1000
        assert lags[group].lag == 10 - offset
        assert lags[group].lag_seconds_source == "record"
        assert lags[group].lag_seconds == pytest.approx(expected, abs=10)
        assert lags[group].record_time == stamps[offset] / 1000


def test_a_record_time_already_known_is_not_read_again(cluster):
    """The lag store hands back the timestamps read by earlier runs: the snapshot uses those
    for the same (topic, partition, offset) and reads only the others."""
    topic, known_group, new_group = unique("known"), unique("known"), unique("new")
    cluster.kafka().create_topic(topic, 1, 3)
    now_ms = int(time.time() * 1000)
    stamps = [now_ms - (600 - 60 * i) * 1000 for i in range(10)]
    produce_dated(cluster.bootstrap_servers, topic, stamps)
    commit(cluster.bootstrap_servers, known_group, {(topic, 0): 3})
    commit(cluster.bootstrap_servers, new_group, {(topic, 0): 6})
    remembered = stamps[3] / 1000 - 5000  # not the record's real time: proves it was not read

    snap = cluster.kafka().snapshot(group_filter=lambda g: g in (known_group, new_group),
                                    known_record_times={(topic, 0, 3): remembered})

    lags = {l.group: l for l in snap.lags}
    assert lags[known_group].record_time == remembered
    assert lags[known_group].lag_seconds == pytest.approx(time.time() - remembered, abs=10)
    assert lags[new_group].record_time == stamps[6] / 1000


def test_groups_listed_not_described_keep_their_state_and_offsets(cluster):
    """check's snapshot (group_members=False) skips DescribeGroups: the groups still come with
    the listing's state and type, and the same committed offsets and lag. Without
    group_offsets, the groups are only named."""
    topic, group = unique("listed"), unique("listed")
    cluster.kafka().create_topic(topic, 2, 3)
    produce(cluster.bootstrap_servers, topic, 20, partitions=2)
    commit(cluster.bootstrap_servers, group, {(topic, 0): 3, (topic, 1): 4})
    kafka = cluster.kafka()

    listed = kafka.snapshot(group_filter=lambda g: g == group, lag_time=False, group_members=False)
    described = kafka.snapshot(group_filter=lambda g: g == group, lag_time=False)
    named = kafka.snapshot(group_filter=lambda g: g == group, lag_time=False, group_members=False,
                           group_offsets=False)

    assert [(g.id, g.state, g.type, g.members) for g in listed.groups] == [(group, "EMPTY", "CLASSIC", ())]
    assert described.groups[0].state == "EMPTY" and described.groups[0].protocol is None
    assert [(l.topic, l.partition, l.committed, l.lag) for l in listed.lags] == \
        [(l.topic, l.partition, l.committed, l.lag) for l in described.lags] == [(topic, 0, 3, 7), (topic, 1, 4, 6)]
    assert named.groups == listed.groups and named.lags == ()  # the Topics screen's view: names only


def test_without_topic_configs_the_partitions_and_lag_are_the_same(cluster):
    """The Groups and Brokers screens skip DescribeConfigs: the topics then carry no configs and
    no min.insync.replicas, and everything else reads the same."""
    topic, group = unique("noconf"), unique("noconf")
    cluster.kafka().create_topic(topic, 2, 3)
    produce(cluster.bootstrap_servers, topic, 20, partitions=2)
    commit(cluster.bootstrap_servers, group, {(topic, 0): 3, (topic, 1): 4})
    kafka = cluster.kafka()

    with_configs = kafka.snapshot(group_filter=lambda g: g == group, lag_time=False)
    without = kafka.snapshot(group_filter=lambda g: g == group, lag_time=False, topic_configs=False)

    assert with_configs.topic(topic).configs["min.insync.replicas"]
    assert without.topic(topic).configs == {} and {p.min_isr for p in without.topic(topic).partitions} == {None}
    assert [(p.partition, p.leader, p.replicas, p.isr, p.low, p.high) for p in without.topic(topic).partitions] == \
        [(p.partition, p.leader, p.replicas, p.isr, p.low, p.high) for p in with_configs.topic(topic).partitions]
    assert [(l.partition, l.committed, l.lag) for l in without.lags] == [(0, 3, 7), (1, 4, 6)]


def test_known_configs_are_reused_while_the_isr_is_full(cluster):
    """check hands the snapshot the key configs it read in the last minutes: a topic whose ISR
    is full keeps them (not described again); a topic it does not know is described."""
    known_topic, new_topic = unique("keptconf"), unique("newconf")
    cluster.kafka().create_topic(known_topic, 2, 3, config={"min.insync.replicas": "2"})
    cluster.kafka().create_topic(new_topic, 2, 3, config={"min.insync.replicas": "2"})
    earlier = time.time() - 60
    # Not what the cluster holds: proves the value was not read again.
    remembered = ({"min.insync.replicas": "3", "cleanup.policy": "delete"}, earlier)

    before = time.time()

    def with_full_isrs():
        """A snapshot whose own metadata shows both new topics led and fully in sync (the reuse's
        condition): a broker's metadata may lag a topic created a moment ago on a loaded host."""
        snap = cluster.kafka().snapshot(groups=False, known_topic_configs={known_topic: remembered})
        partitions = [p for t in (known_topic, new_topic) if snap.topic(t) for p in snap.topic(t).partitions]
        return snap if len(partitions) == 4 and all(p.leader >= 0 and len(p.isr) == 3 for p in partitions) else None

    snap = cluster.wait_until(with_full_isrs, what="both topics led and fully in sync in the snapshot")

    kept, fresh = snap.topic(known_topic), snap.topic(new_topic)
    assert kept.configs == remembered[0] and kept.configs_read_at == earlier
    assert {p.min_isr for p in kept.partitions} == {3}
    assert {p.at_min_isr for p in kept.partitions} == {True}, "3 in the ISR against a min of 3"
    assert fresh.configs["min.insync.replicas"] == "2" and fresh.configs_read_at >= before
    assert {p.min_isr for p in fresh.partitions} == {2}
