"""A Kafka snapshot joined with the lag history: its offsets recorded, its groups judged
(Burrow-style, streamctl.kafka.lag.rules), and lag in time filled in from the history where the
record at the committed offset was not read.

Plain data in and out, so the dashboard runs it in its Kafka client process next to the
snapshot (backends/kafka/process.py): on a large cluster this is ~100 ms of Python work a
refresh, which would otherwise hold the dashboard's GIL while the screen draws.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from streamctl.kafka.lag.rules import GroupStatus
from streamctl.kafka.lag.store import LagStore
from streamctl.kafka.lag.topic_configs import TopicConfigCache
from streamctl.model.kafka import KafkaSnapshot, PartitionLag

# Seconds a topic's key configs are reused while its ISR is full (backends/kafka/cluster.py): describing
# 300 topics costs the brokers 0.2-0.4 s a run, most of check's wait on a large cluster.
CONFIGS_KEPT = 300.0


@dataclass(frozen=True)
class HistoryRequest:
    store: Path  # the lag history's SQLite file
    context: str
    allowed_lag: int
    window: float  # seconds: the stall window
    record: bool = True  # False: judge only, add no sample
    now: float | None = None  # None: when the snapshot was taken


def snapshot_with_history(backend, request: HistoryRequest,
                          **snapshot_options) -> tuple[KafkaSnapshot, dict[str, GroupStatus]]:
    """backend.snapshot(**snapshot_options), joined with the history as join_history does; the
    record timestamps the history already holds are not read again, nor the configs of topics
    with a full ISR read in the last CONFIGS_KEPT seconds. One open of the store
    serves both (it holds no lock while the snapshot is read); the groups it holds are checked
    for when the group listing misses them. The history is read while the brokers answer."""
    with LagStore(request.store) as store:
        config_cache = TopicConfigCache(store)
        configs = config_cache.read(request.context, CONFIGS_KEPT, time.time())
        known = {"known_record_times": store.record_times(request.context),
                 "known_groups": store.groups(request.context), "known_topic_configs": configs}
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="history") as pool:
            read_ahead = pool.submit(store.read_ahead, request.context)
            snap = backend.snapshot(**known, **snapshot_options)
            read_ahead.result()
        config_cache.record(request.context, snap.topics, kept=configs)
        return _join(store, snap, request)


def known_groups(store: Path, context: str) -> list[str]:
    """The groups the lag history holds for the context (none before check or the dashboard
    first ran), for reads that do not join the history."""
    if not store.exists():
        return []
    with LagStore(store) as opened:
        return opened.groups(context)


def join_history(snap: KafkaSnapshot, request: HistoryRequest) -> tuple[KafkaSnapshot, dict[str, GroupStatus]]:
    """The snapshot (lag in time completed from the history) and the status of each of its groups."""
    with LagStore(request.store) as store:
        return _join(store, snap, request)


def _join(store: LagStore, snap: KafkaSnapshot, request: HistoryRequest) -> tuple[KafkaSnapshot, dict[str, GroupStatus]]:
    now = request.now if request.now is not None else (snap.offsets_read_at or snap.taken_at)
    if request.record:
        store.record(request.context, snap.lags, now)
    statuses = store.evaluate_groups(request.context, [g.id for g in snap.groups], now,
                                     request.allowed_lag, request.window)
    lags = tuple(_with_history_seconds(store, request.context, lag, now) for lag in snap.lags)
    return replace(snap, lags=lags), statuses


def _with_history_seconds(store: LagStore, context: str, lag: PartitionLag, now: float) -> PartitionLag:
    """Lag in time from the offset history where the record's timestamp was not read."""
    if not lag.lag or lag.lag_seconds is not None or lag.committed is None:
        return lag
    seconds = store.lag_seconds_from_history(context, lag.group, lag.topic, lag.partition, lag.committed, now)
    return lag if seconds is None else replace(lag, lag_seconds=seconds, lag_seconds_source="history")


@dataclass(frozen=True)
class RecordedReading:
    """One reading the lag history holds: when (unix seconds), and per partition a group had
    committed offsets on, (group, topic, partition, committed offset, log end)."""

    at: float
    offsets: tuple[tuple[str, str, int, int, int | None], ...]


def recorded_reading(store: Path, context: str, oldest: float, newest: float) -> RecordedReading | None:
    """The newest reading of `context` the history holds dated within [oldest, newest]; None
    when it holds none (check and the dashboard record one a run or refresh). Every
    partition recorded at one time is of one snapshot: a run records its snapshot at once."""
    if not store.exists():
        return None
    with LagStore(store) as opened:
        samples = opened.samples(context)
    times = {ts for *_, series in samples for ts, _, _ in series if oldest <= ts <= newest}
    if not times:
        return None
    at = max(times)
    return RecordedReading(at, tuple((group, topic, partition, committed, log_end)
                                     for group, topic, partition, series in samples
                                     for ts, committed, log_end in series if ts == at))
