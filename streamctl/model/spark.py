"""Spark job shapes: checkpoint state, progress samples, per-partition lag and the job view (no I/O, no UI)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from streamctl.model.spark_cluster import SparkApp
from streamctl.model.spark_state import OperatorProgress

# Checkpoint locations read through a remote store (backends/checkpoint_store.py): the context
# keeps them as written, the rest are local paths.
REMOTE_CHECKPOINT_SCHEMES = ("hdfs", "webhdfs", "s3", "s3a")


@dataclass(frozen=True)
class BatchOffsets:
    """One `offsets/<N>` file: where batch N ends in every source."""

    batch_id: int
    version: str
    watermark_ms: int | None
    timestamp_ms: int | None
    sources: tuple[object, ...]  # per source: its JSON value ({"topic": {"0": 12}}), None for "-"

    def kafka_offsets(self) -> dict[tuple[str, int], int]:
        """(topic, partition) -> next offset to read, over every Kafka-shaped source."""
        return _kafka_offsets(self.sources)


@dataclass(frozen=True)
class CheckpointStatus:
    path: str
    query_id: str | None
    latest_planned: int | None  # highest offsets/<N>
    latest_committed: int | None  # highest commits/<N>
    planned: BatchOffsets | None  # offsets of latest_planned
    committed: BatchOffsets | None  # offsets of latest_committed (what lag is measured from)
    last_commit_at: float | None  # mtime of commits/<latest_committed> (unix seconds)
    next_watermark_ms: int | None  # from commits/<latest_committed>
    initial_sources: tuple[object, ...] = ()  # sources/<i>/0: where the query first started
    problems: tuple[str, ...] = ()

    @property
    def in_flight(self) -> int | None:
        """The batch with offsets written but no commit yet (None when all are committed)."""
        if self.latest_planned is None:
            return None
        if self.latest_committed is None or self.latest_planned > self.latest_committed:
            return self.latest_planned
        return None

    def committed_offsets(self) -> dict[tuple[str, int], int]:
        return self.committed.kafka_offsets() if self.committed else {}


@dataclass(frozen=True)
class PartitionJobLag:
    topic: str
    partition: int
    committed: int | None  # next offset the job reads (from the latest committed batch)
    log_end: int | None

    @property
    def lag(self) -> int | None:
        if self.committed is None or self.log_end is None:
            return None
        return max(0, self.log_end - self.committed)


@dataclass(frozen=True)
class ProgressSample:
    batch_id: int
    timestamp: str
    num_input_rows: int
    input_rows_per_second: float
    processed_rows_per_second: float
    batch_duration_ms: int
    watermark: str | None = None
    query_id: str | None = None
    event_time_max: str | None = None  # eventTime.max: the newest event time of the batch's input
    state_operators: tuple[OperatorProgress, ...] = ()


@dataclass(frozen=True)
class ProgressTail:
    samples: tuple[ProgressSample, ...] = ()  # oldest first
    last_event: str | None = None  # started | progress | idle | terminated
    modified_at: float | None = None
    skipped_lines: int = 0  # unparseable lines in the tail (a torn last line, noise)


@dataclass(frozen=True)
class StartMemory:
    """The memory a job's state stores live in (streamctl/spark/memory.py says where it is known from)."""

    bytes: int
    source: str  # e.g. "driver memory 768m (local[2])"


@dataclass(frozen=True)
class JobView:
    """Everything streamctl knows about one job at one moment (checks, status, dashboard)."""

    name: str
    checkpoint_dir: str
    observed_at: float
    checkpoint: CheckpointStatus | None = None
    checkpoint_error: str | None = None
    checkpoint_unknown: bool = False  # its file system (HDFS) did not answer: nothing known of it
    lags: tuple[PartitionJobLag, ...] | None = None  # None: Kafka not read
    lag_error: str | None = None
    process: str | None = None  # "running" | "stopped" | None (not launched by streamctl here)
    pid: int | None = None
    master: str | None = None
    ui_url: str | None = None
    rest: str | None = None  # "up" | "unreachable" | None (no UI URL known)
    rest_error: str | None = None
    app_id: str | None = None
    progress: ProgressTail | None = None
    cluster_app: SparkApp | None = None  # its application on the standalone Master, if found there
    memory: StartMemory | None = None  # what its executors (the driver, in local mode) were started with

    @property
    def running(self) -> bool | None:
        """Process state if streamctl launched it, else a REST API that answers, else the
        cluster's (an application the Master still lists as active: a busy driver's REST API may
        not answer in time), else a REST API that did not answer, else unknown."""
        if self.process is not None:
            return self.process == "running"
        if self.rest == "up":
            return True
        if self.cluster_app is not None:
            return self.cluster_app.active
        if self.rest is not None:
            return False
        return None

    @property
    def total_lag(self) -> int | None:
        if self.lags is None or any(l.lag is None for l in self.lags):
            return None
        return sum(l.lag or 0 for l in self.lags)  # none is None (above)

    @property
    def commit_age(self) -> float | None:
        at = self.checkpoint.last_commit_at if self.checkpoint else None
        return None if at is None else max(0.0, self.observed_at - at)


def is_id(name: str) -> bool:
    """A batch id or partition number: ASCII digits only ('²'.isdigit() is true too)."""
    return name.isascii() and name.isdigit()


def _kafka_offsets(sources: Iterable[object]) -> dict[tuple[str, int], int]:
    offsets: dict[tuple[str, int], int] = {}
    for source in sources:
        if not isinstance(source, dict):
            continue
        for topic, partitions in source.items():
            if not isinstance(partitions, dict):
                continue
            for partition, offset in partitions.items():
                if is_id(str(partition).removeprefix("-")) and isinstance(offset, int):
                    offsets[(topic, int(partition))] = offset
    return offsets
