"""SPARK_STATE_MEMORY on the real progress events of the weblog-stats job
(tests/fixtures/spark/progress.jsonl, from tests/fixtures/capture_spark.py): state memory of the
last batch against the memory the job was started with, and where streamctl learns that memory."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from streamctl.backends.spark import read_checkpoint, read_progress_tail
from streamctl.model.spark import JobView, StartMemory
from streamctl.model.spark_cluster import SparkApp
from streamctl.spark.health import job_health
from streamctl.spark.launcher import DRIVER_MEMORY, JobSpec
from streamctl.spark.memory import UNKNOWN_MEMORY, memory_bytes, start_memory
from streamctl.spark.settings import SparkJob
from streamctl.spark.state_health import state_rules_unevaluated
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "spark"
CHECKPOINT = read_checkpoint(FIXTURES / "checkpoint-weblog-stats")
PROGRESS = read_progress_tail(FIXTURES / "progress.jsonl")
LAST = PROGRESS.samples[-1]
USED = sum(op.memory_used_bytes for op in LAST.state_operators)  # 10624 bytes in batch 32


def job(memory: StartMemory | None, progress=PROGRESS) -> JobView:
    return JobView(name="weblog-stats", checkpoint_dir=CHECKPOINT.path, observed_at=CHECKPOINT.last_commit_at + 10,
                   checkpoint=CHECKPOINT, process="running", pid=4242, progress=progress, memory=memory)


def memory_findings(view: JobView, share: float) -> dict[str, str]:
    findings, _ = job_health(view, Thresholds(job_state_memory_share_warn=share))
    return {f.code: f.text for f in findings if f.code == "SPARK_STATE_MEMORY"}


def spec(master: str, conf: dict[str, str] | None = None) -> JobSpec:
    return JobSpec(name="weblog-stats", script="weblog_stats.py", master=master, bootstrap_servers="127.0.0.1:9092",
                   checkpoint_dir="/cp", progress_file="/p.jsonl", ui_port=4040, log="/driver.log",
                   conf=conf or {})


@pytest.mark.parametrize(("text", "size"), [
    ("768m", 768 << 20), ("4g", 4 << 30), ("4G", 4 << 30), ("512k", 512 << 10), ("2048", 2048 << 20),
    ("1gb", 1 << 30), ("2t", 2 << 40), ("100b", 100), (" 8g ", 8 << 30), ("lots", None), ("1.5g", None), ("", None),
])
def test_memory_text_as_spark_reads_it(text, size):
    assert memory_bytes(text) == size


def test_state_memory_over_its_share_of_the_start_memory():
    memory = StartMemory(64 * 1024, "driver memory 64k (local[2])")
    found = memory_findings(job(memory), share=0.1)  # 10624 bytes > 6553.6
    assert found["SPARK_STATE_MEMORY"] == (
        f"job weblog-stats: state stores use {USED / 1024:.1f} KiB in batch {LAST.batch_id} (all operators), "
        f"{USED / memory.bytes:.0%} of driver memory 64k (local[2]) (over 10%)")
    assert memory_findings(job(memory), share=0.5) == {}
    assert memory_findings(job(StartMemory(USED, "exactly")), share=1.0) == {}  # at the limit is not over it


def test_the_memory_metric_carries_the_limit_when_the_memory_is_known():
    def metric(view):
        _, metrics = job_health(view, Thresholds(job_state_memory_share_warn=0.25))
        return next(m for m in metrics if m.name == "spark_job_state_memory_bytes")

    known = metric(job(StartMemory(768 << 20, "driver memory 768m (local[2])")))
    assert (known.value, known.warn) == (USED, (768 << 20) // 4)
    assert metric(job(None)).warn is None


def test_not_evaluated_and_why_for_a_stateful_job_of_unknown_memory():
    views = [job(None), job(StartMemory(1 << 30, "x")), job(None, progress=None)]
    views[2] = JobView(name="stateless", checkpoint_dir="/cp", observed_at=0.0)
    assert state_rules_unevaluated(views) == {"SPARK_STATE_MEMORY": f"job weblog-stats: {UNKNOWN_MEMORY}"}
    assert memory_findings(job(None), share=0.0001) == {}  # and no finding
    assert state_rules_unevaluated(views[1:]) == {}


def test_where_the_start_memory_comes_from():
    app = SparkApp("app-20261128193000-0001", "weblog-stats", "RUNNING", 2, 1024, "ops", None, None, True)
    assert start_memory("4g", spec("local[2]"), app) == StartMemory(4 << 30, "executor_memory 4g (the context)")
    assert start_memory(None, spec("local[2]"), app) == \
        StartMemory(memory_bytes(DRIVER_MEMORY), f"driver memory {DRIVER_MEMORY} (local[2])")
    cluster = spec("spark://127.0.0.1:7077", {"spark.executor.memory": "512m"})
    assert start_memory(None, cluster, app) == StartMemory(512 << 20, "spark.executor.memory 512m")
    assert start_memory(None, spec("spark://127.0.0.1:7077"), None) == \
        StartMemory(1 << 30, "Spark's default executor memory 1g")
    assert start_memory(None, None, app) == \
        StartMemory(1 << 30, "1024 MiB per executor (application app-20261128193000-0001 on the Master)")
    assert start_memory(None, None, None) is None


def test_the_context_setting_is_checked():
    assert SparkJob(checkpoint_dir="/cp", executor_memory="4g").executor_memory == "4g"
    with pytest.raises(ValidationError):
        SparkJob(checkpoint_dir="/cp", executor_memory="four gigs")

