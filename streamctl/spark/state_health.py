"""Spark stateful-job rules, from the progress events of a job's progress file (no I/O):

    state rows grew over the last job_state_growth_batches batches, none removed      WARN
    watermark unmoved for job_watermark_stall_seconds while input arrives            WARN
    rows dropped by the watermark in the last batch over job_late_rows_dropped_warn  WARN
    a state store's latest snapshot over job_state_snapshot_lag_warn versions behind  WARN
      (Spark 4's SnapshotLastUploaded metrics)
    state memory of the last batch (all operators) over job_state_memory_share_warn
      of the memory the job was started with (spark/memory.py: where that is known)  WARN
      (not evaluated, and why, when that memory is unknown: state_rules_unevaluated)

A job without a progress file, or without stateful operators, gets none of them.
"""

from __future__ import annotations

from streamctl.model.health import Finding, Metric, Severity
from streamctl.model.spark import JobView, ProgressSample
from streamctl.spark.memory import UNKNOWN_MEMORY
from streamctl.spark.state import epoch_seconds

WARN = Severity.WARN


def state_health(view: JobView, thresholds, metrics: list[Metric], labels: dict) -> list[Finding]:
    samples = [s for s in (view.progress.samples if view.progress else ()) if s.state_operators]
    if not samples:
        return []
    last = samples[-1]
    memory_limit = view.memory.bytes * thresholds.job_state_memory_share_warn if view.memory else None
    metrics += [
        Metric("spark_job_state_rows", sum(op.rows_total for op in last.state_operators),
               "State rows of the last batch (all stateful operators)", labels=labels, min=0, perfdata=False),
        Metric("spark_job_state_memory_bytes", _memory_used(last), "State store memory of the last batch",
               labels=labels, uom="B", warn=None if memory_limit is None else round(memory_limit),
               min=0, perfdata=False),
        Metric("spark_job_rows_dropped_by_watermark", _dropped(last), "Late rows dropped in the last batch",
               labels=labels, warn=thresholds.job_late_rows_dropped_warn, min=0, perfdata=False),
    ]
    obj = f"job {view.name}"
    findings = [Finding(WARN, "spark", obj, code, f"job {view.name}: {message}", value=value)
                for code, message, value in (
                    _unbounded(samples, thresholds.job_state_growth_batches),
                    _watermark_stalled(samples, thresholds.job_watermark_stall_seconds),
                    _late_rows(last, thresholds.job_late_rows_dropped_warn),
                    _snapshot_lag(last, thresholds.job_state_snapshot_lag_warn),
                    _memory(view, last, thresholds.job_state_memory_share_warn),
                ) if code]
    return findings


def state_rules_unevaluated(views: list[JobView]) -> dict[str, str]:
    """Why the memory rule could not judge a stateful job (by rule code; none when it judged all)."""
    unknown = [view.name for view in views if view.memory is None and view.progress
               and any(s.state_operators for s in view.progress.samples)]
    if not unknown:
        return {}
    return {"SPARK_STATE_MEMORY": f"job {', '.join(unknown)}: {UNKNOWN_MEMORY}"}


NOTHING: tuple[str, str, float | None] = ("", "", None)


def _memory_used(sample: ProgressSample) -> int:
    return sum(op.memory_used_bytes for op in sample.state_operators)


def _dropped(sample: ProgressSample) -> int:
    return sum(op.rows_dropped_by_watermark for op in sample.state_operators)


def _unbounded(samples: list[ProgressSample], batches: int) -> tuple[str, str, float | None]:
    window = samples[-batches:]
    if len(window) < batches:
        return NOTHING
    for index, op in enumerate(window[-1].state_operators):
        rows = [s.state_operators[index].rows_total for s in window if len(s.state_operators) > index]
        removed = sum(s.state_operators[index].rows_removed for s in window[1:] if len(s.state_operators) > index)
        if len(rows) == batches and rows[-1] > rows[0] and removed == 0:
            name = op.operator_name or f"operator {index}"
            message = (f"state of {name} grew from {rows[0]} to {rows[-1]} rows over the last {batches} "
                       "batches with none removed (no watermark, or one that does not move?)")
            return "SPARK_STATE_UNBOUNDED", message, rows[-1]
    return NOTHING


def _watermark_stalled(samples: list[ProgressSample], limit: float) -> tuple[str, str, float | None]:
    last = samples[-1]
    if last.watermark is None or last.num_input_rows <= 0:
        return NOTHING
    since = last
    for sample in reversed(samples):
        if sample.watermark != last.watermark:
            break
        since = sample
    start, end = epoch_seconds(since.timestamp), epoch_seconds(last.timestamp)
    if start is None or end is None or end - start <= limit:
        return NOTHING
    message = (f"watermark {last.watermark} has not moved for {end - start:.0f} s (since batch {since.batch_id}) "
               f"while input arrives ({last.num_input_rows} rows in batch {last.batch_id})")
    return "SPARK_WATERMARK_STALLED", message, round(end - start, 1)


def _late_rows(last: ProgressSample, limit: int) -> tuple[str, str, float | None]:
    dropped = _dropped(last)
    if dropped <= limit:
        return NOTHING
    message = f"{dropped} late rows dropped by the watermark in batch {last.batch_id} (over {limit})"
    return "SPARK_LATE_ROWS_DROPPED", message, dropped


def _snapshot_lag(last: ProgressSample, limit: int) -> tuple[str, str, float | None]:
    lags = [(op.snapshot_lag(last.batch_id), op.operator_name) for op in last.state_operators]
    worst = max(((lag, name) for lag, name in lags if lag is not None), default=None, key=lambda pair: pair[0])
    if worst is None or worst[0] <= limit:
        return NOTHING
    message = (f"a state store of {worst[1] or 'a stateful operator'} is {worst[0]} versions past its latest "
               f"snapshot (over {limit}): a restart replays them all")
    return "SPARK_STATE_SNAPSHOT_LAG", message, worst[0]


def _memory(view: JobView, last: ProgressSample, share: float) -> tuple[str, str, float | None]:
    if view.memory is None:
        return NOTHING
    used = _memory_used(last)
    if used <= view.memory.bytes * share:
        return NOTHING
    message = (f"state stores use {_mib(used)} in batch {last.batch_id} (all operators), "
               f"{used / view.memory.bytes:.0%} of {view.memory.source} (over {share:.0%})")
    return "SPARK_STATE_MEMORY", message, used


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{size / 1024:.1f} KiB"
