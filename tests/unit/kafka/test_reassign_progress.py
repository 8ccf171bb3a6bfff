"""The progress math of moving partitions: rate, ETA and percent from two readings."""

from __future__ import annotations

from streamctl.kafka.reassign.progress import Moving, Reading, figures, reading, summary

MOVING = {("t", 0): {"replicas": [2, 3, 4, 1], "adding_replicas": [4, 1], "removing_replicas": [2, 3]},
          ("t", 1): {"replicas": [1, 4], "adding_replicas": [4], "removing_replicas": [1]}}


def sizes(done_t0: int, done_t1: int) -> dict[tuple[int, str, int], int]:
    return {(2, "t", 0): 1000, (3, "t", 0): 990, (4, "t", 0): done_t0, (1, "t", 0): done_t0,
            (1, "t", 1): 500, (4, "t", 1): done_t1}


def test_a_reading_sums_the_adding_replicas_against_the_largest_replica():
    now = reading(MOVING, sizes(100, 50), at=10.0)
    assert now.partitions[("t", 0)] == Moving([2, 3, 4, 1], [4, 1], [2, 3], bytes_done=200, bytes_total=2000)
    assert now.partitions[("t", 1)].bytes_done == 50 and now.partitions[("t", 1)].bytes_total == 500


def test_an_adding_replica_without_a_log_yet_leaves_bytes_done_unknown():
    unread = {k: v for k, v in sizes(100, 50).items() if k != (1, "t", 0)}
    assert reading(MOVING, unread, at=0.0).partitions[("t", 0)].bytes_done is None


def test_two_readings_give_rate_eta_and_percent_per_partition_and_overall():
    before, now = reading(MOVING, sizes(100, 50), at=10.0), reading(MOVING, sizes(300, 150), at=12.0)
    status = figures(before, now)
    first, second = status["partitions"]
    assert (first["partition"], first["rate_bytes_per_s"], first["percent"], first["eta_seconds"]) == \
        ("t/0", 200.0, 30.0, 7.0)  # 400 bytes in 2 s; 1400 left
    assert (second["rate_bytes_per_s"], second["percent"], second["eta_seconds"]) == (50.0, 30.0, 7.0)
    assert status["in_progress"] is True
    assert status["rate_bytes_per_s"] == 250.0 and status["percent"] == 30.0 and status["eta_seconds"] == 7.0
    assert summary(status) == "2 partitions moving, 30%, 250 B/s, ETA 7 s"


def test_one_reading_has_percent_but_no_rate_or_eta():
    status = figures(None, reading(MOVING, sizes(1000, 500), at=5.0))
    assert status["percent"] == 100.0 and status["eta_seconds"] == 0.0  # all copied: nothing left
    assert status["rate_bytes_per_s"] is None
    assert [p["rate_bytes_per_s"] for p in status["partitions"]] == [None, None]


def test_a_shrinking_or_new_partition_has_no_rate():
    before = Reading(1.0, {("t", 0): Moving([1, 2], [2], [1], 900, 1000)})
    now = Reading(2.0, {("t", 0): Moving([1, 2], [2], [1], 100, 1000),  # a segment deleted by retention
                        ("t", 1): Moving([1, 2], [2], [1], 10, 1000)})  # not in the first reading
    status = figures(before, now)
    assert [p["rate_bytes_per_s"] for p in status["partitions"]] == [None, None]
    assert status["rate_bytes_per_s"] is None and status["eta_seconds"] is None and status["percent"] == 5.5


def test_nothing_moving():
    status = figures(None, reading({}, {}, at=0.0))
    assert status == {"in_progress": False, "partitions": [], "rate_bytes_per_s": None, "percent": None,
                      "eta_seconds": None}


def test_the_summary_names_minutes_and_hours():
    status = {"partitions": [{}] * 12, "percent": 40.4, "rate_bytes_per_s": 51200.0, "eta_seconds": 180.0}
    assert summary(status) == "12 partitions moving, 40%, 51.2 kB/s, ETA 3 min"
    assert summary({**status, "eta_seconds": 9000.0, "rate_bytes_per_s": None}).endswith("40%, ETA 2 h")
