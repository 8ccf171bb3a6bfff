"""Unit tests for streamctl.kafka.lag (rules and store): statuses from sample sequences, pruning, history, files."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from streamctl.errors import StreamctlError
from streamctl.kafka.lag.rules import GroupStatus, LagStatus
from streamctl.kafka.lag.store import LagStore
from streamctl.kafka.lag.topic_configs import TopicConfigCache
from streamctl.model.kafka import PartitionLag, Topic

T0 = 1_700_000_000.0
MINUTE = 60.0
WINDOW = 300.0


def lag(committed: int | None, log_end: int | None, topic: str = "weblogs", partition: int = 0,
        group: str = "g") -> PartitionLag:
    return PartitionLag(group=group, topic=topic, partition=partition, committed=committed,
                        log_start=0, log_end=log_end)


@pytest.fixture
def store(tmp_path: Path):
    with LagStore(tmp_path / "lag.sqlite") as s:
        yield s


def feed(store: LagStore, offsets: list[tuple[int, int]], start: float = T0,
         step: float = MINUTE) -> float:
    """Record (committed, log_end) for g weblogs/0, one sample per step; the last time."""
    now = start
    for i, (committed, log_end) in enumerate(offsets):
        now = start + i * step
        store.record("ctx", [lag(committed, log_end)], now)
    return now


def judge(store: LagStore, now: float, allowed: int = 0, window: float = WINDOW) -> GroupStatus:
    return store.evaluate("ctx", "g", now, allowed_lag=allowed, window=window)


def count_rows(path: Path, context: str = "ctx") -> int:
    """Samples stored for the context."""
    with LagStore(path) as store:
        return sum(len(samples) for *_, samples in store.samples(context))


# ---------------------------------------------------------------- statuses


def test_unknown_until_two_samples(store):
    assert judge(store, T0).status is LagStatus.UNKNOWN  # no history at all
    now = feed(store, [(100, 500)])
    result = judge(store, now)
    assert result.status is LagStatus.UNKNOWN
    assert result.partitions[0].lag == 400
    now = feed(store, [(100, 500), (200, 500)])
    assert judge(store, now).status is not LagStatus.UNKNOWN


def test_ok_when_lag_within_allowed(store):
    now = feed(store, [(100, 100), (200, 200)])
    result = judge(store, now)
    assert result.status is LagStatus.OK
    assert result.partitions[0].lag == 0


def test_allowed_lag_is_respected(store):
    now = feed(store, [(100, 150)] * 7)  # stood still 6 minutes, lag 50
    assert judge(store, now, allowed=50).status is LagStatus.OK
    assert judge(store, now, allowed=49).status is LagStatus.STOPPED


def test_lagging_while_catching_up(store):
    now = feed(store, [(0, 1000), (300, 1100), (600, 1200), (900, 1300), (1200, 1400),
                       (1300, 1500), (1400, 1550)])
    result = judge(store, now)
    assert result.status is LagStatus.LAGGING
    assert "catching up" in result.detail


def test_lagging_not_judged_before_history_covers_window(store):
    now = feed(store, [(100, 500), (100, 600), (100, 700)])  # 2 minutes of a standing offset
    result = judge(store, now)
    assert result.status is LagStatus.LAGGING
    assert "not judged yet" in result.detail


def test_stopped_when_committed_stands_still_and_lag_grows(store):
    offsets = [(1200, 1200 + 900 * i) for i in range(7)]  # the current offset equals the last
    now = feed(store, offsets)
    result = judge(store, now)
    assert result.status is LagStatus.STOPPED
    assert result.partitions[0].lag == 5400  # against the newest log end, not frozen
    assert result.detail == (
        "weblogs/0 committed offset 1200 unchanged for 360 s while lag 5400 > allowed 0")


def test_stopped_with_an_idle_log_end_but_a_backlog(store):
    now = feed(store, [(100, 900)] * 6)
    assert judge(store, now).status is LagStatus.STOPPED


def test_stalled_when_commits_move_but_lag_never_shrinks(store):
    now = feed(store, [(10 * i, 100 * i) for i in range(1, 8)])
    result = judge(store, now)
    assert result.status is LagStatus.STALLED
    assert "lag never shrank" in result.detail


def test_not_stalled_before_history_covers_window(store):
    now = feed(store, [(10 * i, 100 * i) for i in range(1, 4)])  # 2 minutes of history
    result = judge(store, now)
    assert result.status is LagStatus.LAGGING
    assert "not judged yet" in result.detail


def test_missing_log_end_is_carried_forward(store):
    now = feed(store, [(100, 500), (200, None)])
    result = judge(store, now)
    assert result.status is LagStatus.LAGGING
    assert result.partitions[0].lag == 300


def test_rewound_reports_the_latest_drop(store):
    now = feed(store, [(100, 1000), (200, 1000), (150, 1000), (300, 1000), (250, 1000)])
    result = judge(store, now)
    assert result.status is LagStatus.REWOUND
    assert "from 300 to 250" in result.detail


def test_window_is_respected(store):
    # Lag shrank during the first 5 minutes, then grew with commits moving for the last 5.
    offsets = [(0, 1000), (300, 1100), (600, 1200), (900, 1300), (1000, 1400), (1010, 1500),
               (1020, 1600), (1030, 1700), (1040, 1800), (1050, 1900)]
    now = feed(store, offsets)
    assert judge(store, now, window=WINDOW).status is LagStatus.STALLED
    assert judge(store, now, window=9 * MINUTE).status is LagStatus.LAGGING


def test_sparse_samples_use_all_history_and_say_so(store):
    now = feed(store, [(100, 500), (100, 900)], step=600.0)  # one sample inside the window
    result = judge(store, now)
    assert result.status is LagStatus.STOPPED
    assert "judged all 2" in result.detail


def test_group_is_its_worst_partition(store):
    for i in range(7):
        store.record("ctx", [lag(100 * i, 100 * i, partition=0),
                             lag(5, 50 + 10 * i, partition=1)], T0 + i * MINUTE)
    result = judge(store, T0 + 6 * MINUTE)
    assert [p.status for p in result.partitions] == [LagStatus.OK, LagStatus.STOPPED]
    assert result.status is LagStatus.STOPPED
    assert result.detail.startswith("weblogs/1 committed offset 5 unchanged")


def test_unknown_partition_does_not_hide_ok_ones(store):
    store.record("ctx", [lag(10, 10, partition=0)], T0)
    store.record("ctx", [lag(20, 20, partition=0), lag(5, 5, partition=1)], T0 + MINUTE)
    result = judge(store, T0 + MINUTE)
    assert [p.status for p in result.partitions] == [LagStatus.OK, LagStatus.UNKNOWN]
    assert result.status is LagStatus.OK


def test_uncommitted_partitions_are_ignored(store):
    store.record("ctx", [lag(None, 500)], T0)
    assert store.groups("ctx") == []


# ---------------------------------------------------------------- pruning


def test_deleted_group_expires(tmp_path):
    with LagStore(tmp_path / "lag.sqlite", expire_after=3600) as store:
        store.record("ctx", [lag(1, 1, group="a"), lag(1, 1, group="b")], T0)
        store.record("ctx", [lag(2, 2, group="a")], T0 + 1800)
        assert store.groups("ctx") == ["a", "b"]
        store.record("ctx", [lag(3, 3, group="a")], T0 + 3601)
        assert store.groups("ctx") == ["a"]
        assert store.groups("other") == []


def test_deleted_topic_partitions_expire_and_are_not_judged(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path, expire_after=3600) as store:
        both = [lag(1, 1, topic="x"), lag(1, 9, topic="y"), lag(1, 9, topic="y", partition=1)]
        store.record("ctx", both, T0)
        store.record("ctx", both, T0 + 600)
        store.record("ctx", [lag(2, 2, topic="x")], T0 + 1200)  # topic y deleted
        result = judge(store, T0 + 1200)
        assert [(p.topic, p.status) for p in result.partitions] == [("x", LagStatus.OK)]
        assert count_rows(path) == 7
        store.record("ctx", [lag(3, 3, topic="x")], T0 + 600 + 3601)
        assert count_rows(path) == 4  # only x's samples remain


def test_sample_cap_and_retention(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path, max_samples=5, retention=86400, expire_after=90000) as store:
        feed(store, [(i, i) for i in range(12)])
        assert count_rows(path) == 5
        assert store.lag_seconds_from_history("ctx", "g", "weblogs", 0, 6, T0) is None
        store.record("ctx", [lag(50, 50, partition=1)], T0 + 86400 + 12 * MINUTE)
        assert count_rows(path) == 1  # partition 0's samples are past retention


# ---------------------------------------------------------------- lag in seconds


def test_lag_seconds_interpolates_the_log_end_history(store):
    for end, ts in [(1000, 100.0), (1600, 160.0), (2200, 220.0)]:
        store.record("ctx", [lag(0, end)], ts)

    def seconds(committed: int) -> float | None:
        return store.lag_seconds_from_history("ctx", "g", "weblogs", 0, committed, 250.0)

    assert seconds(1300) == pytest.approx(120.0)  # log end was 1300 at t=130
    assert seconds(1600) == pytest.approx(90.0)  # exactly a sample
    assert seconds(2200) == 0.0  # caught up
    assert seconds(999) is None  # before the history
    assert store.lag_seconds_from_history("ctx", "g", "weblogs", 7, 1300, 250.0) is None


# ---------------------------------------------------------------- the file


def test_two_handles_share_one_file(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path) as first, LagStore(path) as second:
        first.record("ctx", [lag(100, 500)], T0)
        second.record("ctx", [lag(100, 900)], T0 + WINDOW)
        second.record("ctx", [lag(1, 1, group="h")], T0 + WINDOW)
        assert first.groups("ctx") == ["g", "h"]
        assert judge(first, T0 + WINDOW).status is LagStatus.STOPPED


def test_a_writer_waits_for_another_ones_transaction(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path) as store:
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        release = threading.Timer(0.2, other.execute, ("COMMIT",))
        release.start()
        store.record("ctx", [lag(1, 1)], T0)  # blocks until the other commits
        release.join()
        other.close()
        assert store.groups("ctx") == ["g"]


def test_a_lock_held_too_long_is_a_clear_error(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path, timeout=0.05) as store:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StreamctlError, match="locked by another process"):
            store.record("ctx", [lag(1, 1)], T0)
        other.close()


def test_new_file_is_wal_with_a_schema_version(tmp_path):
    path = tmp_path / "state" / "lag.sqlite"  # the directory is created too
    LagStore(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == 4
    with LagStore(path) as store:  # reopening keeps the data and the version
        store.record("ctx", [lag(1, 1)], T0)
    with LagStore(path) as store:
        assert store.groups("ctx") == ["g"]


def test_a_version_1_file_is_upgraded_and_keeps_its_samples(tmp_path):
    path = tmp_path / "lag.sqlite"
    with sqlite3.connect(path) as db:  # the schema streamctl wrote before record_times
        db.execute("""CREATE TABLE samples (
            context TEXT NOT NULL, grp TEXT NOT NULL, topic TEXT NOT NULL, part INTEGER NOT NULL,
            ts REAL NOT NULL, committed INTEGER NOT NULL, log_end INTEGER,
            PRIMARY KEY (context, grp, topic, part, ts)) WITHOUT ROWID""")
        db.execute("INSERT INTO samples VALUES ('ctx', 'g', 'weblogs', 0, ?, 5, 9)", (T0,))
        db.execute("INSERT INTO samples VALUES ('ctx', 'g', 'weblogs', 0, ?, 7, NULL)", (T0 + MINUTE,))
        db.execute("INSERT INTO samples VALUES ('ctx', 'h', 'weblogs', 1, ?, 2, 3)", (T0,))
        db.execute("PRAGMA user_version = 1")
    with LagStore(path) as store:
        assert store.groups("ctx") == ["g", "h"]
        assert store.samples("ctx") == [("g", "weblogs", 0, [(T0, 5, 9), (T0 + MINUTE, 7, None)]),
                                        ("h", "weblogs", 1, [(T0, 2, 3)])]
        assert store.record_times("ctx") == {}
        assert TopicConfigCache(store).read("ctx", 300, T0) == {}
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 4


def test_record_times_are_those_of_the_latest_snapshot(store):
    timed = replace(lag(5, 9), record_time=T0 - 30)
    store.record("ctx", [timed, replace(lag(5, 9, group="h"), record_time=T0 - 30), lag(1, 1, partition=1)], T0)
    store.record("other", [replace(lag(7, 9), record_time=T0 - 5)], T0)
    assert store.record_times("ctx") == {("weblogs", 0, 5): T0 - 30}

    store.record("ctx", [replace(lag(6, 9), record_time=T0 - 20)], T0 + MINUTE)  # committed moved on
    assert store.record_times("ctx") == {("weblogs", 0, 6): T0 - 20}
    assert store.record_times("other") == {("weblogs", 0, 7): T0 - 5}


def test_corrupt_file_is_a_clear_error(tmp_path):
    path = tmp_path / "lag.sqlite"
    path.write_bytes(b"not a database, just some bytes\n" * 64)
    with pytest.raises(StreamctlError) as err:
        LagStore(path)
    assert str(path) in str(err.value)
    assert "delete it" in str(err.value)


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "lag.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StreamctlError, match="schema version 99"):
        LagStore(path)


def test_damaged_pages_are_a_clear_error(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path) as store:
        feed(store, [(i, i) for i in range(5)])
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # everything after the first page
    path.write_bytes(bytes(data))
    with pytest.raises(StreamctlError, match="delete it"), LagStore(path) as store:
        store.groups("ctx")


def test_evaluate_groups_reads_once_and_matches_evaluate_per_group(store):
    now = T0
    for i in range(7):  # "stuck" never moves, "moving" catches up, "other-ctx" lives elsewhere
        now = T0 + i * MINUTE
        store.record("ctx", [lag(100, 500, group="stuck"), lag(100 + 60 * i, 500, group="moving")], now)
        store.record("other", [lag(1, 2, group="other-ctx")], now)
    together = store.evaluate_groups("ctx", ["stuck", "moving", "other-ctx"], now, 0, WINDOW)
    assert together["stuck"] == store.evaluate("ctx", "stuck", now, 0, WINDOW)
    assert together["moving"] == store.evaluate("ctx", "moving", now, 0, WINDOW)
    assert (together["stuck"].status, together["moving"].status) == (LagStatus.STOPPED, LagStatus.LAGGING)
    assert together["other-ctx"].status is LagStatus.UNKNOWN  # not this context's history


@pytest.mark.parametrize("retention, expire_after", [(400, 250), (150, 400)])  # either prunes first
def test_what_record_leaves_known_is_what_the_file_holds(tmp_path, retention, expire_after):
    """record() keeps the history it wrote for the reads after it (evaluate_groups, lag in
    time): they must give what a fresh read of the file gives, through sample caps, retention,
    expiry, partitions that vanish and samples without a log end."""
    path = tmp_path / "lag.sqlite"
    with LagStore(path, max_samples=4, retention=retention, expire_after=expire_after) as store:
        for i in range(12):
            now = T0 + i * MINUTE
            lags = [lag(10 * i, 50 + 20 * i, group="moving"), lag(5, 9 if i % 3 else None, group="stuck"),
                    lag(7 * i, 7 * i + 3, partition=1, group="moving")]
            if i < 4:  # a partition and a group that go, then expire
                lags += [lag(1, 100, topic="gone", group="moving"), lag(1, 100, group="early")]
            store.record("ctx", lags, now)
            groups = ["moving", "stuck", "early", "absent"]
            with LagStore(path) as fresh:
                assert store.evaluate_groups("ctx", groups, now, 0, WINDOW) == \
                    fresh.evaluate_groups("ctx", groups, now, 0, WINDOW)
                for committed in (0, 10 * i - 25, 10 * i):
                    assert store.lag_seconds_from_history("ctx", "moving", "weblogs", 0, committed, now) == \
                        fresh.lag_seconds_from_history("ctx", "moving", "weblogs", 0, committed, now)
        assert store.evaluate("ctx", "early", now, 0, WINDOW).status is LagStatus.UNKNOWN  # expired


def test_rows_another_store_wrote_with_a_larger_cap_are_known_as_written(tmp_path):
    path = tmp_path / "lag.sqlite"
    with LagStore(path, max_samples=3) as small, LagStore(path, max_samples=10) as large:
        for i in range(5):
            large.record("ctx", [lag(i, 10 + 2 * i), lag(i, 10 + 2 * i, partition=1)], T0 + MINUTE * i)
        small.record("ctx", [lag(9, 30)], T0 + 5 * MINUTE)  # partition 1 left as `large` wrote it
        assert small.lag_seconds_from_history("ctx", "g", "weblogs", 1, 11, T0 + 5 * MINUTE) == 270.0


def test_the_reads_after_record_use_what_it_wrote(store):
    store.record("ctx", [lag(100, 200)], T0)
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)  # the private handle: what reaches SQLite
    store.record("ctx", [lag(150, 260)], T0 + MINUTE)
    store.evaluate("ctx", "g", T0 + MINUTE, 0, WINDOW)
    store.lag_seconds_from_history("ctx", "g", "weblogs", 0, 150, T0 + MINUTE)
    assert not [s for s in statements if s.startswith("SELECT") and "FROM series WHERE context" in s
                and "first_ts" not in s]


def test_a_history_read_ahead_is_not_used_once_another_process_wrote(tmp_path):
    """check reads its history beside the snapshot; the dashboard records meanwhile. Its sample
    must not be lost, nor the stale rule judged from the earlier read."""
    path = tmp_path / "lag.sqlite"
    with LagStore(path) as check, LagStore(path) as dashboard:
        check.record("ctx", [lag(100, 200)], T0)
        check.read_ahead("ctx")
        dashboard.record("ctx", [lag(150, 260)], T0 + 10)
        check.record("ctx", [lag(140, 250)], T0 + 9)  # read before the dashboard's: stale
        check.record("ctx", [lag(160, 270)], T0 + 20)
        [(*_, samples)] = check.samples("ctx")
        assert samples == [(T0, 100, 200), (T0 + 10, 150, 260), (T0 + 20, 160, 270)]
        dashboard.read_ahead("ctx")
        check.record("ctx", [lag(170, 280)], T0 + 30)
        assert dashboard.evaluate("ctx", "g", T0 + 30, 0, WINDOW).partitions[0].lag == 110


def test_a_commit_read_after_the_log_end_is_stored_with_the_log_end_at_least_there(tmp_path):
    """Overlapping reads: the consumer committed 317 after the log end read 312."""
    with LagStore(tmp_path / "lag.sqlite") as store:
        store.record("c", [PartitionLag("g", "t", 0, 317, 0, 312)], now=100.0)
        [(*_, samples)] = store.samples("c")
    assert samples == [(100.0, 317, 317)]


def test_a_stale_sample_from_an_overlapping_read_is_not_stored(store, tmp_path):
    """check and the dashboard read at once: a sample dated before the newest, or whose log end
    is below a sample of the last OVERLAP seconds, would make offsets seem to go back."""
    store.record("ctx", [lag(731, 800)], T0 + 14)
    store.record("ctx", [lag(720, 790)], T0 + 12)  # read earlier, recorded later
    store.record("ctx", [lag(735, 795)], T0 + 16)  # its log ends were read before the first's
    store.record("ctx", [lag(740, 810)], T0 + 18)
    [(*_, samples)] = store.samples("ctx")
    assert samples == [(T0 + 14, 731, 800), (T0 + 18, 740, 810)]
    store.record("ctx", [lag(0, 5)], T0 + 18 + 31)  # the topic recreated: its log restarts
    [(*_, samples)] = store.samples("ctx")
    assert samples[-1] == (T0 + 49, 0, 5)


def configured(name: str, min_isr: str, read_at: float | None) -> Topic:
    return Topic(name, False, (), {"min.insync.replicas": min_isr}, read_at)


def test_topic_configs_are_kept_for_their_time_and_replaced_by_fresher(store):
    TopicConfigCache(store).record("ctx", [configured("a", "2", T0), configured("b", "1", T0)], kept={})
    TopicConfigCache(store).record("other", [configured("a", "3", T0)], kept={})
    assert TopicConfigCache(store).read("ctx", 300, T0 + 100) == {"a": ({"min.insync.replicas": "2"}, T0),
                                                          "b": ({"min.insync.replicas": "1"}, T0)}
    assert TopicConfigCache(store).read("ctx", 300, T0 + 301) == {}, "older than max_age: read again"

    kept = TopicConfigCache(store).read("ctx", 300, T0 + 100)
    # a was read again (changed); b reused; c is new; a topic no longer there is forgotten.
    TopicConfigCache(store).record("ctx", [configured("a", "3", T0 + 100), configured("c", "2", T0 + 100)], kept)
    assert TopicConfigCache(store).read("ctx", 300, T0 + 100) == {"a": ({"min.insync.replicas": "3"}, T0 + 100),
                                                          "c": ({"min.insync.replicas": "2"}, T0 + 100)}
    assert TopicConfigCache(store).read("other", 300, T0) == {"a": ({"min.insync.replicas": "3"}, T0)}


def test_reused_topic_configs_are_not_written_again(store, tmp_path):
    TopicConfigCache(store).record("ctx", [configured("a", "2", T0)], kept={})
    kept = TopicConfigCache(store).read("ctx", 300, T0 + 10)
    with sqlite3.connect(tmp_path / "lag.sqlite") as db:
        db.execute("UPDATE topic_configs SET configs = '{}'")  # would be overwritten by a write
    TopicConfigCache(store).record("ctx", [configured("a", "2", T0)], kept)  # all reused: nothing to write
    TopicConfigCache(store).record("ctx", [configured("a", "2", None)], kept)  # not read at all: likewise
    assert TopicConfigCache(store).read("ctx", 300, T0 + 10) == {"a": ({}, T0)}


def test_connections_racing_to_create_the_file_all_open_it(tmp_path):
    # `check --all-contexts` on a fresh state dir: each context's thread opens the new file at
    # once; switching it to WAL used to fail one of them with SQLITE_BUSY ("locked by another
    # process") without waiting (about one race in ten here).
    for attempt in range(40):
        path, start, failures = tmp_path / f"race-{attempt}.sqlite", threading.Barrier(3), []

        def open_it(path=path, start=start, failures=failures):
            start.wait()
            try:
                with LagStore(path) as opened:
                    opened.samples("ctx")
            except StreamctlError as exc:
                failures.append(str(exc))

        threads = [threading.Thread(target=open_it) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == [], failures
