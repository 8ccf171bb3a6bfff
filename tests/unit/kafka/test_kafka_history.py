"""streamctl.kafka.history on a snapshot captured from the sandbox: what it records, what it
judges, and the lag in time it completes from the history; and the dashboard's one sample a minute."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from streamctl.dashboard import source as dashboard
from streamctl.kafka.history import HistoryRequest, join_history, snapshot_with_history
from streamctl.kafka.lag.rules import LagStatus
from streamctl.kafka.lag.store import LagStore
from streamctl.kafka.serialize import snapshot_from_dict
from tests import repo

FIXTURE = repo.FIXTURES / "kafka" / "healthy.json"


@pytest.fixture
def snap():
    return snapshot_from_dict(json.loads(FIXTURE.read_text()))


def request(tmp_path: Path, **fields) -> HistoryRequest:
    return HistoryRequest(tmp_path / "lag.sqlite", "ctx", allowed_lag=0, window=300.0, **fields)


def samples(tmp_path: Path) -> int:
    with LagStore(tmp_path / "lag.sqlite") as store:
        return sum(len(stored) for *_, stored in store.samples("ctx"))


def test_it_records_the_committed_partitions_and_judges_every_group(tmp_path, snap):
    _, statuses = join_history(snap, request(tmp_path))

    assert samples(tmp_path) == sum(lag.committed is not None for lag in snap.lags) > 0
    assert set(statuses) == {g.id for g in snap.groups}
    assert all(s.status is LagStatus.UNKNOWN for s in statuses.values())  # one sample: not judged yet


def test_judge_only_adds_no_sample(tmp_path, snap):
    join_history(snap, request(tmp_path, now=snap.taken_at - 120))
    join_history(snap, request(tmp_path, record=False))

    assert samples(tmp_path) == sum(lag.committed is not None for lag in snap.lags)


def test_lag_in_time_missing_a_record_timestamp_comes_from_the_history(tmp_path, snap):
    behind = next(lag for lag in snap.lags if lag.lag and lag.lag_seconds is not None)

    def key(lag):
        return lag.group, lag.topic, lag.partition

    def changed(source, **fields):
        return replace(source, lags=tuple(replace(lag, **fields) if key(lag) == key(behind) else lag
                                          for lag in source.lags))

    unread = changed(snap, lag_seconds=None, lag_seconds_source=None)
    # A minute ago the log ended where the group's committed offset is now.
    join_history(changed(unread, log_end=behind.committed), request(tmp_path, now=snap.taken_at - 60))

    joined, _ = join_history(unread, request(tmp_path))

    completed = next(lag for lag in joined.lags if key(lag) == key(behind))
    assert completed.lag_seconds_source == "history"
    assert completed.lag_seconds == pytest.approx(60.0)
    kept = [lag for lag in joined.lags if lag.lag_seconds_source == "record"]
    assert kept and all(lag in snap.lags for lag in kept)  # read timestamps are left as they are


class RecordingBackend:
    """Answers the same snapshot every time and keeps the record times it was handed."""

    def __init__(self, snap) -> None:
        self.snap = snap
        self.known: list[dict] = []
        self.known_configs: list[dict] = []

    def snapshot(self, known_record_times=None, known_topic_configs=None, **options):
        self.known.append(known_record_times)
        self.known_configs.append(known_topic_configs)
        return self.snap


def test_record_times_read_once_are_handed_to_the_next_snapshot(tmp_path, snap):
    timed = replace(snap, lags=tuple(
        replace(lag, record_time=snap.taken_at - lag.lag_seconds) if lag.lag_seconds_source == "record" else lag
        for lag in snap.lags))
    backend = RecordingBackend(timed)

    snapshot_with_history(backend, request(tmp_path))
    snapshot_with_history(backend, request(tmp_path))

    expected = {(lag.topic, lag.partition, lag.committed): lag.record_time
                for lag in timed.lags if lag.record_time is not None}
    assert expected and backend.known == [{}, expected]


def test_the_dashboard_samples_the_history_once_a_minute(monkeypatch):
    clock = iter([1000.0, 1030.0, 1059.9, 1060.0, 1061.0, 1200.0])
    monkeypatch.setattr(dashboard.time, "monotonic", lambda: next(clock))
    board = object.__new__(dashboard.Dashboard)  # no context, no client process: the throttle alone
    board._last_sample = float("-inf")

    assert [board._sample_due() for _ in range(6)] == [True, False, False, True, False, True]


def test_samples_are_dated_when_the_offsets_were_read_not_when_the_snapshot_ended(tmp_path, snap):
    """Two overlapping reads (check and the dashboard during a broker restart): the one that
    read the committed offsets first but ended last must not look like a rewind."""
    lag = next(l for l in snap.lags if l.committed is not None and l.log_end is not None)
    others = tuple(l for l in snap.lags if l is not lag)
    t = snap.taken_at
    slow = replace(snap, lags=(replace(lag, committed=lag.committed, log_end=lag.log_end + 20), *others),
                   taken_at=t + 20, offsets_read_at=t + 12)
    quick = replace(snap, lags=(replace(lag, committed=lag.committed + 11, log_end=lag.log_end + 20), *others),
                    taken_at=t + 15, offsets_read_at=t + 14)
    join_history(replace(snap, offsets_read_at=t), request(tmp_path))
    join_history(quick, request(tmp_path))
    _, statuses = join_history(slow, request(tmp_path))
    assert statuses[lag.group].status is not LagStatus.REWOUND, statuses[lag.group].detail


def test_topic_configs_read_once_are_handed_to_the_next_snapshot(tmp_path, snap):
    read_at = time.time() - 10
    configured = replace(snap, topics=tuple(replace(t, configs_read_at=read_at) for t in snap.topics))
    backend = RecordingBackend(configured)

    snapshot_with_history(backend, request(tmp_path))
    snapshot_with_history(backend, request(tmp_path))

    expected = {t.name: (t.configs, read_at) for t in snap.topics}
    assert any(t.configs for t in snap.topics) and backend.known_configs == [{}, expected]
