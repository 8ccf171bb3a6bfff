"""Spark job health rules on views built from the real captured checkpoint and progress file."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from streamctl.backends.spark import read_checkpoint, read_progress_tail
from streamctl.model.health import Severity
from streamctl.model.spark import JobView, PartitionJobLag, ProgressSample, ProgressTail
from streamctl.spark.health import spark_health
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "spark"
CHECKPOINT = read_checkpoint(FIXTURES / "checkpoint-weblog-stats")
PROGRESS = read_progress_tail(FIXTURES / "progress.jsonl")
T = Thresholds(job_commit_age_warn_seconds=300, job_commit_age_crit_seconds=900,
               job_lag_records_warn=1000, job_lag_records_crit=100_000)


def view(**changes) -> JobView:
    """A healthy running job: the real checkpoint, committed 10 s ago, caught up."""
    base = JobView(
        name="weblog-stats", checkpoint_dir=CHECKPOINT.path, observed_at=CHECKPOINT.last_commit_at + 10,
        checkpoint=CHECKPOINT, lags=(PartitionJobLag("weblogs", 0, 178, 178),), process="running",
        pid=4242, progress=PROGRESS,
    )
    return replace(base, **changes)


def codes(findings) -> dict[str, Severity]:
    return {f.code: f.severity for f in findings}


def test_healthy_job_is_ok_with_metrics():
    findings, metrics = spark_health([view()], T)
    assert codes(findings) == {"SPARK_OK": Severity.OK}
    by_name = {m.name: m for m in metrics}
    assert by_name["spark_job_committed_batch"].value == CHECKPOINT.latest_committed
    assert by_name["spark_job_lag_records"].value == 0
    assert by_name["spark_job_commit_age_seconds"].value == 10
    assert by_name["spark_job_batch_duration_seconds"].value == PROGRESS.samples[-1].batch_duration_ms / 1000
    assert not by_name["spark_job_up"].perfdata and by_name["spark_job_up"].labels == {"job": "weblog-stats"}


def test_stopped_process_is_critical():
    findings, metrics = spark_health([view(process="stopped")], T)
    assert codes(findings) == {"SPARK_JOB_DOWN": Severity.CRIT}
    assert findings[0].text == "job weblog-stats is not running: pid 4242 exited"
    assert {m.name: m.value for m in metrics}["spark_jobs_down"] == 1


def test_unanswering_ui_is_critical_when_no_pid_is_known():
    v = view(process=None, pid=None, rest="unreachable", rest_error="http://h:4040/api/v1/applications: ConnectError")
    findings, _ = spark_health([v], T)
    assert codes(findings) == {"SPARK_JOB_DOWN": Severity.CRIT}
    assert "its UI does not answer" in findings[0].text


def test_unknown_liveness_is_not_a_finding():
    findings, metrics = spark_health([view(process=None, pid=None)], T)
    assert codes(findings) == {"SPARK_OK": Severity.OK}
    assert "spark_job_up" not in {m.name for m in metrics}


@pytest.mark.parametrize("lag, expected", [(999, None), (1001, Severity.WARN), (100_001, Severity.CRIT)])
def test_lag_thresholds(lag, expected):
    findings, _ = spark_health([view(lags=(PartitionJobLag("weblogs", 0, 0, lag),))], T)
    assert codes(findings).get("SPARK_JOB_LAG") == expected


@pytest.mark.parametrize("age, lag, expected", [
    (301, 5, Severity.WARN), (901, 5, Severity.CRIT),
    (901, 0, None),  # an idle input commits nothing: not a problem
    (901, None, Severity.CRIT),  # lag unknown (Kafka unread): age alone decides
])
def test_commit_age_counts_only_while_records_wait(age, lag, expected):
    lags = None if lag is None else (PartitionJobLag("weblogs", 0, 100, 100 + lag),)
    findings, _ = spark_health([view(observed_at=CHECKPOINT.last_commit_at + age, lags=lags)], T)
    assert codes(findings).get("SPARK_JOB_COMMIT_AGE") == expected


def test_unreadable_and_damaged_checkpoints():
    findings, _ = spark_health([view(checkpoint=None, checkpoint_error="/x: no such checkpoint directory")], T)
    assert codes(findings) == {"SPARK_CHECKPOINT_UNREADABLE": Severity.CRIT}
    damaged = replace(CHECKPOINT, problems=("offsets/7: truncated or corrupt JSON", "metadata: missing (no query id)"))
    findings, _ = spark_health([view(checkpoint=damaged)], T)
    assert codes(findings) == {"SPARK_CHECKPOINT_DAMAGED": Severity.WARN}
    assert findings[0].text == "job weblog-stats: checkpoint offsets/7: truncated or corrupt JSON (and 1 more)"


def _samples(processed: float, count: int, every: float = 20.0) -> ProgressTail:
    real = PROGRESS.samples[-1]
    return ProgressTail(tuple(
        replace(real, batch_id=i, num_input_rows=500, input_rows_per_second=100.0,
                processed_rows_per_second=processed,
                timestamp=f"2026-11-25T10:{int(i * every) // 60:02d}:{int(i * every) % 60:02d}.000Z")
        for i in range(count)), "progress")


@pytest.mark.parametrize("progress, expected", [
    (_samples(60.0, 5), Severity.WARN),  # 5 batches over 80 s, each slower than its input
    (_samples(60.0, 4), None),  # too few batches to call it sustained
    (_samples(60.0, 5, every=5.0), None),  # 20 s: not a sustained period
    (_samples(150.0, 5), None),  # keeping up
])
def test_processing_below_input_rate_for_a_sustained_period(progress, expected):
    findings, _ = spark_health([view(progress=progress)], T)
    assert codes(findings).get("SPARK_JOB_FALLING_BEHIND") == expected


def test_real_progress_samples_carry_rates():
    events = [json.loads(l) for l in (FIXTURES / "progress.jsonl").read_text().splitlines()]
    with_rows = [e for e in events if e.get("numInputRows")]
    sample = next(s for s in PROGRESS.samples if s.batch_id == with_rows[-1]["batchId"])
    assert isinstance(sample, ProgressSample)
    assert sample.input_rows_per_second == with_rows[-1]["inputRowsPerSecond"]
    assert sample.processed_rows_per_second == with_rows[-1]["processedRowsPerSecond"]
