"""`jobs state` on the real weblog-stats job of the session sandbox: its state stores as the
files on disk show them, and the state batch's rows as its progress event counts them.

The job keeps running (the sandbox's Flume load feeds it), so the files are compared as they
stand after the command: every file it counted is still there with the same size (Spark writes
each version's file once, by an atomic rename), and nothing it reported is newer than the disk.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from streamctl.backends.spark import read_checkpoint
from tests.integration.spark_helpers import (
    next_window,
    produce_lines,
    read_stats,
    running_job_settings,
    window_lines,
)

pytestmark = pytest.mark.integration

JOB = "weblog-stats"
WINDOW = 30  # seconds: the job's event-time window
ROWS_TIMEOUT = 600  # seconds for a `--rows` run: a local Spark session on a busy, slow machine


@pytest.fixture(scope="module")
def job(sandbox):
    return running_job_settings(sandbox, JOB)


def job_state(sandbox) -> dict:
    result = sandbox.cli("jobs", "state", JOB, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def progress_events(progress_file: str) -> dict[int, dict]:
    events = {}
    for line in Path(progress_file).read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line being written
        if event.get("event") == "progress":
            events[event["batchId"]] = event
    return events


def test_state_matches_the_files_on_disk_and_the_progress_event_of_its_batch(sandbox, job):
    start = next_window(read_checkpoint(job.checkpoint_dir).next_watermark_ms)
    batch = window_lines(start, 120, seed=11)
    produce_lines(sandbox.bootstrap_servers, "weblogs", batch.lines)

    def paired():
        """A state read whose batch has its progress event, once our open window is in the state."""
        data = job_state(sandbox)
        same = (data["progress"] or {}).get("state_batch_operators")
        return data if same and same[0]["rows_total"] >= len(batch.requests) else None

    data = sandbox.wait_until(paired, timeout=120, what="a state batch holding the new window, with its progress")
    assert not data["stateless"] and data["problems"] == []
    [op] = data["operators"]
    assert op["operator_name"] == "stateStoreSave" and op["store_names"] == ["default"]

    # the files on disk, listed after the command
    state_dir = Path(job.checkpoint_dir) / "state" / str(op["operator_id"])
    assert op["partitions"] == sorted(int(p.name) for p in state_dir.iterdir() if p.name.isdigit())
    for store in op["stores"]:
        files = {int(p.name.split(".")[0]): p.stat().st_size
                 for p in (state_dir / str(store["partition"])).glob("*.delta")}
        assert max(files) >= store["latest_version"]  # the job may have written newer versions since
        counted = {v: size for v, size in files.items() if v <= store["latest_version"]}
        assert (store["deltas"], store["delta_bytes"]) == (len(counted), sum(counted.values()))
    assert data["state_batch"] == op["latest_version"] - 1
    assert data["latest_committed"] is not None and data["state_batch"] >= data["latest_committed"] - 1

    # rows total of the state batch equals numRowsTotal of that batch's progress event
    event = progress_events(job.progress_file)[data["state_batch"]]
    [raw] = event["stateOperators"]
    [same] = data["progress"]["state_batch_operators"]
    assert (same["rows_total"], same["rows_removed"], same["rows_dropped_by_watermark"],
            same["memory_used_bytes"]) == (raw["numRowsTotal"], raw["numRowsRemoved"],
                                           raw["numRowsDroppedByWatermark"], raw["memoryUsedBytes"])
    assert data["progress"]["watermark"] is not None and data["progress"]["watermark_behind_now_seconds"] is not None


def test_a_checkpoint_read_by_path_says_what_it_cannot_read(sandbox, job):
    result = sandbox.cli("jobs", "state", str(job.checkpoint_dir))
    assert result.returncode == 0, result.stderr
    assert "stateStoreSave" in result.stdout and "progress events" in result.stdout


def state_rows(sandbox, *args: str) -> dict:
    result = sandbox.cli("jobs", "state", JOB, "--rows", "--limit", "1000", *args, "-o", "json",
                         timeout=ROWS_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert "started a local Spark session in" in result.stderr
    return json.loads(result.stdout)


def committed_watermarks(checkpoint_dir: str) -> dict[int, int]:
    """Committed batch -> the watermark (ms) its commit hands to the next batch."""
    marks = {}
    for commit in (Path(checkpoint_dir) / "commits").iterdir():
        if commit.name.isdigit():
            lines = commit.read_text().splitlines()
            if len(lines) >= 2:  # a commit file is renamed into place whole; skip one read mid-way
                marks[int(commit.name)] = json.loads(lines[1]).get("nextBatchWatermarkMs", 0)
    return marks


def window_rows(data: dict, window_start: float) -> dict[tuple[str, str], tuple[int, int]]:
    """(status class, path) -> (count, bytes) of one window's state rows."""
    start = datetime.fromtimestamp(window_start, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return {(row["status_class"], row["path"]): (row["count"], row["sum"])
            for row in data["rows"] if row["window.start"] == start}


def test_state_rows_hold_the_counts_the_output_topic_shows_for_a_closed_window(sandbox, job):
    # far enough ahead that no earlier test's lines share the window
    closed_start = next_window(read_checkpoint(job.checkpoint_dir).next_watermark_ms, ahead=300)
    closed = window_lines(closed_start, 80, seed=23)
    produce_lines(sandbox.bootstrap_servers, "weblogs", closed.lines)
    # later event times move the watermark (newest event - 10 s) past the window's end: it closes
    open_start = closed_start + 2 * WINDOW
    still_open = window_lines(open_start, 40, seed=29)
    produce_lines(sandbox.bootstrap_servers, "weblogs", still_open.lines)

    emitted = read_stats(sandbox.bootstrap_servers, "weblog-stats", closed_start, len(closed.lines), timeout=180)
    assert sum(row["requests"] for row in emitted) == len(closed.lines)
    closed_end_ms = int((closed_start + WINDOW) * 1000)
    # the last state holding the window: the first batch whose commit moves the watermark past its end
    # (the next batch evicts the window and emits it)
    marks = sandbox.wait_until(lambda: committed_watermarks(job.checkpoint_dir), what="commits")
    batch = min(b for b, mark in marks.items() if mark >= closed_end_ms)

    data = state_rows(sandbox, "--batch", str(batch))
    assert data["batch_id"] == batch and data["operator_name"] == "stateStoreSave"
    [meta] = data["operators"]  # from Spark's state-metadata source
    assert (meta["operator_name"], meta["store_name"], meta["num_partitions"]) == ("stateStoreSave", "default", 2)
    assert data["key_columns"] == ["window.start", "window.end", "status_class", "path"]
    assert window_rows(data, closed_start) == {(row["status_class"], row["path"]): (row["requests"], row["bytes"])
                                              for row in emitted}

    # the running job's last committed batch (the default) holds the open window, whole
    before = read_checkpoint(job.checkpoint_dir).latest_committed
    latest = state_rows(sandbox)
    assert latest["batch_id"] >= before and latest["total_rows"] == len(latest["rows"]) > 0
    held = window_rows(latest, open_start)
    assert sum(count for count, _bytes in held.values()) == len(still_open.lines)
    assert sum(size for _count, size in held.values()) == sum(still_open.bytes.values())
    assert window_rows(latest, closed_start) == {}  # evicted once closed
