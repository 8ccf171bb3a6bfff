"""Spark job health rules: JobViews in, findings and metrics out. Pure functions, no I/O.

    job not running (process exited, or its UI/REST API does not answer)     CRIT
    checkpoint directory unreadable                                           CRIT
    checkpoint's file system (HDFS) does not answer                           UNKNOWN
    checkpoint files damaged (corrupt/truncated offsets, commit, metadata)    WARN
    last commit older than job_commit_age_warn/crit_seconds, while records
      wait (lag > 0 or unknown): an idle input commits nothing and is fine    WARN / CRIT
    lag (log end - last committed batch's offsets) over job_lag_records_*     WARN / CRIT
    processing rate below the input rate in each of the last
      FALLING_BEHIND_BATCHES batches with input, over FALLING_BEHIND_SECONDS  WARN
    stateful jobs: unbounded state, stalled watermark, late rows, snapshot lag,
      state memory                                                          WARN (state_health.py)
and, when the context names a standalone Master, the cluster's rules (cluster_health.py).
"""

from __future__ import annotations

from datetime import datetime

from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.spark import JobView
from streamctl.model.spark_cluster import SparkCluster
from streamctl.spark.cluster_health import cluster_health
from streamctl.spark.state_health import state_health

OK, WARN, CRIT = Severity.OK, Severity.WARN, Severity.CRIT
FALLING_BEHIND_BATCHES = 5
FALLING_BEHIND_SECONDS = 60.0


def _level(value: float, warn: float, crit: float) -> Severity:
    return CRIT if value > crit else WARN if value > warn else OK


def spark_health(views: list[JobView], thresholds,
                 cluster: SparkCluster | None = None) -> tuple[list[Finding], list[Metric]]:
    findings: list[Finding] = []
    metrics: list[Metric] = []
    for view in views:
        job_findings, job_metrics = job_health(view, thresholds)
        findings += job_findings
        metrics += job_metrics
    if cluster is not None:
        cluster_findings, cluster_metrics = cluster_health(cluster, views)
        findings += cluster_findings
        metrics += cluster_metrics
    metrics.append(Metric("spark_jobs", len(views), "Spark jobs watched", min=0))
    metrics.append(Metric("spark_jobs_down", sum(v.running is False for v in views),
                          "Spark jobs not running", crit=0, min=0))
    if not any(f.severity is not OK for f in findings):
        on = f" on {len(cluster.alive_workers)} live worker(s)" if cluster is not None else ""
        findings.append(Finding(OK, "spark", "jobs", "SPARK_OK", f"{len(views)} job(s) healthy{on}"))
    return findings, metrics


def job_health(view: JobView, thresholds) -> tuple[list[Finding], list[Metric]]:
    name, obj = view.name, f"job {view.name}"
    labels = {"job": name}
    findings: list[Finding] = []
    metrics: list[Metric] = []

    if view.running is not None:
        metrics.append(Metric("spark_job_up", int(view.running), "1 when the job runs", labels=labels,
                              min=0, max=1, perfdata=False))
    if view.running is False:
        app = view.cluster_app
        if view.process is not None:
            why = f"pid {view.pid} exited"
        elif view.rest is not None:
            why = f"its UI does not answer ({view.rest_error})"
        else:
            assert app is not None  # running is False only from the cluster's app then (model/spark.py)
            why = f"its application {app.id} ended ({app.state})"
        findings.append(Finding(CRIT, "spark", obj, "SPARK_JOB_DOWN", f"job {name} is not running: {why}"))

    if view.checkpoint is None:
        code, severity, what = ("SPARK_CHECKPOINT_UNKNOWN", Severity.UNKNOWN, "not read") \
            if view.checkpoint_unknown else ("SPARK_CHECKPOINT_UNREADABLE", CRIT, "unreadable")
        findings.append(Finding(severity, "spark", obj, code,
                                f"job {name}: checkpoint {what}: {view.checkpoint_error}"))
        return findings, metrics
    cp = view.checkpoint
    if cp.problems:
        more = f" (and {len(cp.problems) - 1} more)" if len(cp.problems) > 1 else ""
        findings.append(Finding(WARN, "spark", obj, "SPARK_CHECKPOINT_DAMAGED",
                                f"job {name}: checkpoint {cp.problems[0]}{more}", value=len(cp.problems)))
    if cp.latest_committed is not None:
        metrics.append(Metric("spark_job_committed_batch", cp.latest_committed, "Latest committed batch id",
                              labels=labels, min=0, perfdata=False))

    lag = view.total_lag
    if lag is not None:
        metrics.append(Metric("spark_job_lag_records", lag, "Records between the last committed batch and the log end",
                              labels=labels, warn=thresholds.job_lag_records_warn,
                              crit=thresholds.job_lag_records_crit, min=0, perfdata=False))
        level = _level(lag, thresholds.job_lag_records_warn, thresholds.job_lag_records_crit)
        if level is not OK:
            findings.append(Finding(level, "spark", obj, "SPARK_JOB_LAG",
                                    f"job {name} lags {lag} records behind the log end", value=lag))

    age = view.commit_age
    if age is not None:
        metrics.append(Metric("spark_job_commit_age_seconds", round(age, 3), "Age of the last committed batch",
                              labels=labels, uom="s", warn=thresholds.job_commit_age_warn_seconds,
                              crit=thresholds.job_commit_age_crit_seconds, min=0, perfdata=False))
        level = _level(age, thresholds.job_commit_age_warn_seconds, thresholds.job_commit_age_crit_seconds)
        if level is not OK and (lag is None or lag > 0):
            findings.append(Finding(level, "spark", obj, "SPARK_JOB_COMMIT_AGE",
                                    f"job {name}: last commit (batch {cp.latest_committed}) {age:.0f} s ago"
                                    + (f" with {lag} records waiting" if lag else ""), value=round(age, 1)))

    findings += _rates(view, metrics, labels)
    findings += state_health(view, thresholds, metrics, labels)
    return findings, metrics


def _rates(view: JobView, metrics: list[Metric], labels: dict) -> list[Finding]:
    samples = view.progress.samples if view.progress else ()
    if not samples:
        return []
    last = samples[-1]
    metrics += [
        Metric("spark_job_input_rows_per_second", round(last.input_rows_per_second, 3),
               "Input rate of the last batch", labels=labels, min=0, perfdata=False),
        Metric("spark_job_processed_rows_per_second", round(last.processed_rows_per_second, 3),
               "Processing rate of the last batch", labels=labels, min=0, perfdata=False),
        Metric("spark_job_batch_duration_seconds", last.batch_duration_ms / 1000.0,
               "Duration of the last batch", labels=labels, uom="s", min=0, perfdata=False),
    ]
    with_input = [s for s in samples if s.num_input_rows > 0][-FALLING_BEHIND_BATCHES:]
    if len(with_input) < FALLING_BEHIND_BATCHES:
        return []
    if not all(s.processed_rows_per_second < s.input_rows_per_second for s in with_input):
        return []
    span = _seconds_between(with_input[0].timestamp, with_input[-1].timestamp)
    if span is None or span < FALLING_BEHIND_SECONDS:
        return []
    return [Finding(WARN, "spark", f"job {view.name}", "SPARK_JOB_FALLING_BEHIND",
                    f"job {view.name} processes {last.processed_rows_per_second:.1f} rows/s, below its input "
                    f"rate {last.input_rows_per_second:.1f} rows/s, for the last {len(with_input)} batches "
                    f"({span:.0f} s)", value=round(last.input_rows_per_second - last.processed_rows_per_second, 3))]


def _seconds_between(first: str, last: str) -> float | None:
    try:
        a = datetime.fromisoformat(first)
        b = datetime.fromisoformat(last)
    except ValueError:
        return None
    return (b - a).total_seconds()
