"""Lag in time: the timestamp of the record at each lagging partition's committed offset, read
through ONE assign-only consumer for every partition (never a consumer per partition)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import replace

from confluent_kafka import Consumer, TopicPartition

from streamctl.backends.kafka.client import Deadline, KafkaError, new_client, socket_timeout_ms
from streamctl.model.kafka import PartitionLag


def probe_consumer(client_config: dict[str, str], timeout: float) -> Consumer:
    """One consumer per snapshot for the offset and record reads: assign() only, it never
    joins its (random) group or commits."""
    return new_client(Consumer, {
        **client_config,
        "group.id": f"streamctl-probe-{uuid.uuid4().hex[:8]}",
        "enable.auto.commit": "false",
        "enable.partition.eof": "false",
        # Log-end offsets as the Admin API and Kafka's tools report them (not the LSO).
        "isolation.level": "read_uncommitted",
        # A committed offset deleted by retention reads from the oldest record left.
        "auto.offset.reset": "earliest",
        "fetch.max.bytes": str(4 * 1024 * 1024),
        "max.partition.fetch.bytes": str(64 * 1024),
        # One record per partition is all it needs: no prefetch queue (librdkafka keeps up
        # to 64 MB per client by default, which would stay in the process's heap).
        "queued.min.messages": "1",
        "queued.max.messages.kbytes": "1024",
        # Ask for data without lingering: a partition's first fetch answers immediately,
        # and a partition that already delivered never holds back the others.
        "fetch.wait.max.ms": "5",
        "fetch.queue.backoff.ms": "0",
        "socket.timeout.ms": socket_timeout_ms(timeout),
        "log_level": "0",
    })


def with_lag_seconds(probe: Consumer, lags: list[PartitionLag], deadline: Deadline, errors: list[str],
                     known: Mapping[tuple[str, int, int], float]) -> list[PartitionLag]:
    """For lagging partitions: now - timestamp of the record at the committed offset (`known`
    timestamps are not read again)."""
    lagging = {(l.topic, l.partition, l.committed) for l in lags if l.lag and l.committed is not None}
    # Below the log start the read answers the oldest record left, not the one once known.
    below_start = {(l.topic, l.partition, l.committed) for l in lags if l.below_log_start}
    stamps = {key: known[key] for key in lagging - below_start if key in known}
    if unread := lagging - stamps.keys():
        try:
            stamps.update(record_timestamps(probe, unread, deadline))
        except KafkaError as exc:
            errors.append(f"lag in time: {exc}")
    now = time.time()
    out = []
    for l in lags:
        ts = stamps.get((l.topic, l.partition, l.committed)) if l.committed is not None else None
        if ts is not None and l.lag:
            l = replace(l, lag_seconds=max(0.0, now - ts), lag_seconds_source="record", record_time=ts)
        out.append(l)
    return out


def record_timestamps(probe: Consumer, wanted: set[tuple[str, int, int]], deadline: Deadline) -> dict:
    """Timestamps (seconds) of the records at the given offsets, through the probe consumer.

    A compacted or deleted offset yields the next record that exists: an upper bound on
    the record's age would need the missing record, so lag in time is then a lower bound.
    """
    pending: dict[tuple[str, int], list[int]] = {}
    for topic, partition, committed in sorted(wanted):
        pending.setdefault((topic, partition), []).append(committed)
    stamps: dict[tuple[str, int, int], float] = {}
    ends = time.monotonic() + deadline.left("reading record timestamps")
    # A partition several groups read at different offsets takes one round per offset.
    while pending and ends - time.monotonic() > 0.05:
        round_offsets = {tp: offsets.pop(0) for tp, offsets in pending.items()}
        pending = {tp: offsets for tp, offsets in pending.items() if offsets}
        stamps.update(_read_round(probe, round_offsets, ends))
    return stamps


def _read_round(probe: Consumer, offsets: dict[tuple[str, int], int], ends: float) -> dict:
    stamps = {}
    try:
        probe.assign([TopicPartition(t, p, o) for (t, p), o in offsets.items()])
        missing = set(offsets)
        while missing and (left := ends - time.monotonic()) > 0.05:
            # poll() wakes with the first record to arrive; consume(n, timeout) would wait out
            # its whole timeout whenever fewer than n records came (1 s a round).
            first = probe.poll(min(1.0, left))
            if first is None:
                continue
            for message in (first, *probe.consume(num_messages=500, timeout=0)):
                key = (message.topic(), message.partition())
                if message.error() or key not in missing:
                    continue
                missing.discard(key)
                _, ts = message.timestamp()
                if ts > 0:
                    stamps[(key[0], key[1], offsets[key])] = ts / 1000.0
    finally:
        probe.unassign()
    return stamps
