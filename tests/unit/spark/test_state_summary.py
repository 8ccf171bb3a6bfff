"""The State pane's rows and the pipeline hop's event-time lag, from the checkpoint and progress
events captured from the real weblog-stats job (tests/fixtures/spark, capture_spark.py) and the
demo's pipeline readings (tests/fixtures/pipeline, capture_pipeline.py)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

from streamctl.backends.spark import read_progress_tail
from streamctl.backends.spark_state import read_state
from streamctl.model.spark import ProgressTail
from streamctl.pipeline.derive import derive
from streamctl.pipeline.render import as_dict
from streamctl.spark.state import epoch_seconds
from streamctl.spark.state_summary import DROPPED_BATCHES, event_time_lag, summarize
from streamctl.thresholds import Thresholds
from streamctl.tui.widgets.state_pane import operator_cells
from tests import repo
from tests.fixtures.capture_pipeline import load

SPARK = repo.FIXTURES / "spark"
EVENTS = [e for e in map(json.loads, (SPARK / "progress.jsonl").read_text().splitlines()) if e["event"] == "progress"]
JOB_HOP_READER = "job:weblog-stats"


def test_the_pane_pairs_the_checkpoints_operator_with_the_last_progress_event():
    state = read_state(str(SPARK / "checkpoint-weblog-stats"))
    progress = read_progress_tail(SPARK / "progress.jsonl")
    last = EVENTS[-1]
    now = epoch_seconds(last["timestamp"]) + 600.0
    summary = summarize("weblog-stats", state, progress, now)
    [row] = summary.operators
    raw = last["stateOperators"][0]
    assert summary.note is None and summary.batch_id == last["batchId"]
    assert (row.operator_id, row.name, row.stores) == (0, "stateStoreSave", ("default",))
    assert (row.rows_total, row.rows_updated, row.rows_removed, row.memory_used_bytes) == \
        (raw["numRowsTotal"], raw["numRowsUpdated"], raw["numRowsRemoved"], raw["memoryUsedBytes"])
    # one bar a batch over the last batches read, the newest last
    assert row.dropped_by_batch == tuple(e["stateOperators"][0]["numRowsDroppedByWatermark"]
                                         for e in EVENTS[-DROPPED_BATCHES:])
    assert row.snapshot_lag == state.operators[0].max_snapshot_lag == last["batchId"] + 1  # no snapshot yet
    watermark, newest = epoch_seconds(last["eventTime"]["watermark"]), epoch_seconds(last["eventTime"]["max"])
    assert summary.watermark == last["eventTime"]["watermark"]
    assert summary.watermark_behind_now == round(now - watermark, 3)
    assert summary.watermark_behind_newest_event == round(newest - watermark, 3)
    cells = operator_cells(row)
    assert cells[3] == str(raw["numRowsTotal"]) and cells[7].endswith(f" {raw['numRowsDroppedByWatermark']}")


def test_a_stateless_checkpoint_or_no_progress_is_one_line(tmp_path):
    copy = tmp_path / "checkpoint"
    shutil.copytree(SPARK / "checkpoint-weblog-stats", copy)
    shutil.rmtree(copy / "state")
    stateless = summarize("q", read_state(str(copy)), None, 0.0)
    assert stateless.note == "stateless: its checkpoint has no state/ folder" and stateless.operators == ()
    unread = summarize("q", None, ProgressTail(), 0.0, "state unread: /x: no such checkpoint directory")
    assert unread.note == "state unread: /x: no such checkpoint directory" and unread.operators == ()


def test_without_progress_events_the_operators_come_from_the_files_alone():
    summary = summarize("q", read_state(str(SPARK / "checkpoint-weblog-stats")), None, 0.0)
    [row] = summary.operators
    assert row.name == "stateStoreSave" and row.rows_total is None and row.dropped_by_batch == ()
    assert summary.watermark is None and "no progress events" in (summary.note or "")


def test_event_time_lag_is_when_observed_minus_the_newest_watermark():
    progress = read_progress_tail(SPARK / "progress.jsonl")
    watermark = epoch_seconds(EVENTS[-1]["eventTime"]["watermark"])
    assert event_time_lag(progress, watermark + 12.5) == 12.5
    assert event_time_lag(None, 0.0) is None
    unset = ProgressTail((replace(progress.samples[-1], watermark="1970-01-01T00:00:00.000Z"),))
    assert event_time_lag(unset, watermark) is None  # Spark's watermark before its first one


def test_the_pipeline_names_the_jobs_event_time_lag_on_its_hop():
    readings = load("demo")
    pipeline = derive(readings, Thresholds())
    [view] = readings.jobs
    expected = round(view.observed_at - epoch_seconds(view.progress.samples[-1].watermark), 3)
    job_hops = [h for h in pipeline.hops if h.reader is not None and h.reader.id == JOB_HOP_READER]
    assert job_hops and all(h.event_time_lag_seconds == expected for h in job_hops)
    assert all(h.event_time_lag_seconds is None for h in pipeline.hops if h not in job_hops)
    named = {h["name"]: h["event_time_lag_seconds"] for h in as_dict(pipeline)["hops"]}
    assert named.pop("weblogs -> weblog-stats via job weblog-stats") == round(expected, 1)
    assert set(named.values()) == {None}
