"""`jobs state`: a checkpoint's state stores (from its files) and, for a job with a progress file,
what its progress events say of them (rows, memory, rows dropped by the watermark, watermark)."""

from __future__ import annotations

import time
from datetime import datetime

from streamctl.model.spark import ProgressSample, ProgressTail
from streamctl.model.spark_state import CheckpointState, OperatorState

PROGRESS_BATCHES = 10  # batches of progress shown
NO_PROGRESS_FILE = ("rows, memory, rows dropped by the watermark and the watermark are not read: they come "
                    "from the job's progress events, and only jobs streamctl launched (or a context job "
                    "with progress_file) write them to a file")


def state_dict(state: CheckpointState, progress: ProgressTail | None, progress_note: str | None,
               now: float | None = None) -> dict:
    """The plain dict `jobs state -o json` prints and the table renders."""
    state_batch = state.state_batch
    samples = progress.samples if progress else ()
    return {
        "path": state.path,
        "stateless": not state.has_state_dir,
        "latest_committed": state.latest_committed,
        "state_batch": state_batch,
        "operators": [_operator(op) for op in state.operators],
        "totals": _totals(state.operators),
        "problems": list(state.problems),
        "progress": _progress(samples[-PROGRESS_BATCHES:], state_batch, now if now is not None else time.time())
        if samples else None,
        "progress_note": progress_note if not samples else None,
    }


def _operator(op: OperatorState) -> dict:
    return {
        "operator_id": op.operator_id, "operator_name": op.operator_name, "store_names": list(op.store_names),
        "num_partitions": op.num_partitions, "partitions": list(op.partitions),
        "latest_version": op.latest_version, "max_snapshot_lag": op.max_snapshot_lag,
        "stores": [{"partition": s.partition, "store_name": s.store_name, "latest_version": s.latest_version,
                    "latest_snapshot": s.latest_snapshot, "snapshot_lag": s.snapshot_lag, "deltas": s.deltas,
                    "delta_bytes": s.delta_bytes, "snapshots": s.snapshots, "snapshot_bytes": s.snapshot_bytes}
                   for s in op.stores],
        "totals": _totals((op,)),
    }


def _totals(operators) -> dict:
    stores = [s for op in operators for s in op.stores]
    return {"stores": len(stores), "deltas": sum(s.deltas for s in stores),
            "delta_bytes": sum(s.delta_bytes for s in stores), "snapshots": sum(s.snapshots for s in stores),
            "snapshot_bytes": sum(s.snapshot_bytes for s in stores)}


def _progress(samples: tuple[ProgressSample, ...], state_batch: int | None, now: float) -> dict:
    last = samples[-1]
    watermark, newest = epoch_seconds(last.watermark), epoch_seconds(last.event_time_max)
    same_batch = next((s for s in samples if s.batch_id == state_batch), None)
    return {
        "batches": [{"batch_id": s.batch_id, "timestamp": s.timestamp, "num_input_rows": s.num_input_rows,
                     "watermark": s.watermark, "event_time_max": s.event_time_max,
                     "operators": [_operator_progress(op) for op in s.state_operators]} for s in samples],
        "state_batch_operators": None if same_batch is None else
        [_operator_progress(op) for op in same_batch.state_operators],
        "watermark": last.watermark,
        "event_time_max": last.event_time_max,
        "watermark_behind_newest_event_seconds": None if watermark is None or newest is None
        else round(newest - watermark, 3),
        "watermark_behind_now_seconds": None if watermark is None else round(now - watermark, 3),
    }


def _operator_progress(op) -> dict:
    return {"operator_name": op.operator_name, "rows_total": op.rows_total, "rows_updated": op.rows_updated,
            "rows_removed": op.rows_removed, "rows_dropped_by_watermark": op.rows_dropped_by_watermark,
            "memory_used_bytes": op.memory_used_bytes, "partitions": op.partitions}


def epoch_seconds(iso: str | None) -> float | None:
    """Seconds since the epoch of a progress event's time ("2026-11-26T00:15:18.000Z")."""
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return None
