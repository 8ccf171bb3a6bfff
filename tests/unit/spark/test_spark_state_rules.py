"""The stateful-job rules of `check` on the real progress events of the weblog-stats job
(tests/fixtures/spark/progress.jsonl, from tests/fixtures/capture_spark.py), whole or sliced to
the batches that show each condition: the capture restarted the job and produced late records,
so its watermark stood still for two minutes, its state grew then was emptied, and every batch
dropped late rows. No event is made up: a slice is a run of real batches."""

from __future__ import annotations

from dataclasses import replace

from streamctl.backends.spark import read_checkpoint, read_progress_tail
from streamctl.model.health import Severity
from streamctl.model.spark import JobView
from streamctl.spark.health import job_health
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "spark"
CHECKPOINT = read_checkpoint(FIXTURES / "checkpoint-weblog-stats")
PROGRESS = read_progress_tail(FIXTURES / "progress.jsonl")  # the last 20 batches, as check reads them
BY_BATCH = {s.batch_id: s for s in read_progress_tail(FIXTURES / "progress.jsonl", keep=100).samples}
STATE_CODES = {"SPARK_STATE_UNBOUNDED", "SPARK_WATERMARK_STALLED", "SPARK_LATE_ROWS_DROPPED",
               "SPARK_STATE_SNAPSHOT_LAG"}


def state_findings(first: int, last: int, **thresholds) -> dict[str, str]:
    """The state rules' findings on batches first..last of the capture: code -> text."""
    progress = replace(PROGRESS, samples=tuple(BY_BATCH[b] for b in range(first, last + 1)))
    job = JobView(name="weblog-stats", checkpoint_dir=CHECKPOINT.path, observed_at=CHECKPOINT.last_commit_at + 10,
                  checkpoint=CHECKPOINT, process="running", pid=4242, progress=progress)
    findings, _ = job_health(job, Thresholds(**thresholds))
    assert all(f.severity is Severity.WARN for f in findings if f.code in STATE_CODES)
    return {f.code: f.text for f in findings if f.code in STATE_CODES}


def test_the_capture_is_ok_with_the_default_thresholds():
    assert state_findings(min(BY_BATCH), max(BY_BATCH)) == {}
    assert state_findings(PROGRESS.samples[0].batch_id, max(BY_BATCH)) == {}


def test_state_growing_with_nothing_removed_is_unbounded():
    # batches 29-31: 32, 32, 33 rows, none removed (batch 32 then removed 32 rows)
    found = state_findings(29, 31, job_state_growth_batches=3)
    assert found["SPARK_STATE_UNBOUNDED"] == ("job weblog-stats: state of stateStoreSave grew from 32 to 33 rows "
                                              "over the last 3 batches with none removed (no watermark, or one "
                                              "that does not move?)")
    assert "SPARK_STATE_UNBOUNDED" not in state_findings(29, 32, job_state_growth_batches=3)  # 32 removed
    assert "SPARK_STATE_UNBOUNDED" not in state_findings(28, 31, job_state_growth_batches=4)  # 1 removed


def test_a_watermark_unmoved_while_input_arrives_is_stalled():
    # batches 12-19 kept watermark 00:09:35 over 125 s of batches, each with input
    found = state_findings(12, 19, job_watermark_stall_seconds=60)
    assert found["SPARK_WATERMARK_STALLED"].startswith(
        "job weblog-stats: watermark 2026-11-26T00:09:35.000Z has not moved for 125 s (since batch 12)")
    assert "SPARK_WATERMARK_STALLED" not in state_findings(12, 19, job_watermark_stall_seconds=200)
    assert "SPARK_WATERMARK_STALLED" not in state_findings(19, 20, job_watermark_stall_seconds=1)  # it moved


def test_late_rows_dropped_in_the_last_batch_over_the_threshold():
    dropped = BY_BATCH[32].state_operators[0].rows_dropped_by_watermark
    found = state_findings(30, 32, job_late_rows_dropped_warn=dropped - 1)
    assert found["SPARK_LATE_ROWS_DROPPED"] == (f"job weblog-stats: {dropped} late rows dropped by the watermark "
                                                f"in batch 32 (over {dropped - 1})")
    assert "SPARK_LATE_ROWS_DROPPED" not in state_findings(30, 32, job_late_rows_dropped_warn=dropped)


def test_snapshot_lag_from_the_snapshot_upload_metrics():
    # no store had uploaded a snapshot (-1): batch 32's version 33 is 33 versions past none
    found = state_findings(32, 32, job_state_snapshot_lag_warn=32)
    assert "is 33 versions past its latest snapshot (over 32)" in found["SPARK_STATE_SNAPSHOT_LAG"]
    assert "SPARK_STATE_SNAPSHOT_LAG" not in state_findings(32, 32, job_state_snapshot_lag_warn=33)


def test_state_metrics_come_from_the_last_batch():
    job = JobView(name="weblog-stats", checkpoint_dir=CHECKPOINT.path, observed_at=CHECKPOINT.last_commit_at + 10,
                  checkpoint=CHECKPOINT, process="running", pid=4242, progress=PROGRESS)
    _, metrics = job_health(job, Thresholds())
    values = {m.name: m.value for m in metrics}
    [op] = BY_BATCH[32].state_operators
    assert (values["spark_job_state_rows"], values["spark_job_state_memory_bytes"],
            values["spark_job_rows_dropped_by_watermark"]) == \
        (op.rows_total, op.memory_used_bytes, op.rows_dropped_by_watermark)


def test_a_job_without_progress_events_gets_no_state_rule():
    job = JobView(name="other", checkpoint_dir=CHECKPOINT.path, observed_at=CHECKPOINT.last_commit_at + 10,
                  checkpoint=CHECKPOINT, process=None, pid=None, progress=None)
    findings, metrics = job_health(job, Thresholds(job_state_snapshot_lag_warn=1, job_late_rows_dropped_warn=0))
    assert not {f.code for f in findings} & STATE_CODES
    assert "spark_job_state_rows" not in {m.name for m in metrics}
