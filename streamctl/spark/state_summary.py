"""What the dashboard's State pane shows of one job (no I/O, no UI): per stateful operator its rows,
memory, rows dropped by the watermark over the last batches and snapshot lag, and the watermark
against now and the newest event time; and a stateful job's event-time lag for the pipeline map.

The checkpoint's files (`jobs state`'s reading) give the operators' ids, names, stores and snapshot
lag; the newest progress event the rows and memory. Progress events list `stateOperators` in the
order of the operators' ids, so the two are paired by position.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamctl.model.spark import ProgressSample, ProgressTail
from streamctl.model.spark_state import CheckpointState, OperatorProgress, OperatorState
from streamctl.spark.state import epoch_seconds

DROPPED_BATCHES = 12  # batches the dropped-by-watermark sparkline spans


@dataclass(frozen=True, slots=True)
class OperatorRow:
    """One stateful operator as the pane lists it (None: not known)."""

    operator_id: int | None
    name: str | None
    stores: tuple[str, ...]
    rows_total: int | None
    rows_updated: int | None
    rows_removed: int | None
    memory_used_bytes: int | None
    dropped_by_batch: tuple[int, ...]  # rows dropped by the watermark, oldest batch first
    snapshot_lag: int | None  # versions, the most of any partition


@dataclass(frozen=True, slots=True)
class StateSummary:
    """The State pane of one job; `note` alone when there is nothing to list."""

    job: str
    note: str | None = None
    batch_id: int | None = None  # the progress event the rows come from
    operators: tuple[OperatorRow, ...] = ()
    watermark: str | None = None
    watermark_behind_now: float | None = None  # seconds
    watermark_behind_newest_event: float | None = None  # seconds (negative: the newest event was late)
    problems: tuple[str, ...] = ()


def summarize(job: str, state: CheckpointState | None, progress: ProgressTail | None, now: float,
              state_error: str | None = None) -> StateSummary:
    """The pane of `job` from its checkpoint's state (None: unread, `state_error` says why) and
    its progress tail (None or empty: no progress events to read)."""
    samples = progress.samples if progress else ()
    stateful = [s for s in samples if s.state_operators]
    on_disk = state.operators if state is not None else ()
    if state is not None and not state.has_state_dir:
        return StateSummary(job, "stateless: its checkpoint has no state/ folder")
    if not stateful and not on_disk:
        reason = state_error or ("no progress events to read" if not samples else
                                 "stateless: its progress events name no state operator")
        return StateSummary(job, reason)
    last = stateful[-1] if stateful else None
    count = max(len(on_disk), len(last.state_operators) if last else 0)
    rows = tuple(_operator_row(i, on_disk[i] if i < len(on_disk) else None, last, stateful[-DROPPED_BATCHES:])
                 for i in range(count))
    newest = samples[-1] if samples else None
    watermark = epoch_seconds(newest.watermark) if newest else None
    watermark = None if watermark is None or watermark <= 0 else watermark  # the epoch: none set yet
    event_max = epoch_seconds(newest.event_time_max) if newest else None
    problems = tuple(state.problems) if state is not None else ((state_error,) if state_error else ())
    note = None if last else "no progress events to read: rows, memory and the watermark are unknown"
    return StateSummary(job, note, last.batch_id if last else None, rows, newest.watermark if newest else None,
                        None if watermark is None else round(now - watermark, 3),
                        None if watermark is None or event_max is None else round(event_max - watermark, 3),
                        problems)


def _operator_row(index: int, files: OperatorState | None, last: ProgressSample | None,
                  recent: list[ProgressSample]) -> OperatorRow:
    progress = _nth(last, index) if last else None
    dropped = tuple(op.rows_dropped_by_watermark for s in recent if (op := _nth(s, index)) is not None)
    snapshot_lag = files.max_snapshot_lag if files is not None else None
    if snapshot_lag is None and progress is not None and last is not None:
        snapshot_lag = progress.snapshot_lag(last.batch_id)  # Spark 4's SnapshotLastUploaded metrics
    return OperatorRow(
        operator_id=files.operator_id if files else index,
        name=(files.operator_name if files else None) or (progress.operator_name if progress else None),
        stores=files.store_names if files else (),
        rows_total=progress.rows_total if progress else None,
        rows_updated=progress.rows_updated if progress else None,
        rows_removed=progress.rows_removed if progress else None,
        memory_used_bytes=progress.memory_used_bytes if progress else None,
        dropped_by_batch=dropped, snapshot_lag=snapshot_lag)


def _nth(sample: ProgressSample, index: int) -> OperatorProgress | None:
    return sample.state_operators[index] if index < len(sample.state_operators) else None


def event_time_lag(progress: ProgressTail | None, now: float) -> float | None:
    """Seconds from the newest progress event's watermark to `now`; None for a job without one
    (stateless, or no event yet). Spark reports the epoch before the first watermark is set."""
    samples = progress.samples if progress else ()
    watermark = epoch_seconds(samples[-1].watermark) if samples else None
    return None if watermark is None or watermark <= 0 else round(now - watermark, 3)
