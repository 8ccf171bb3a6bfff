"""Spark state store shapes: what a checkpoint's `state/` folder holds, and what progress events say
of the stateful operators (no I/O, no UI)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StoreFiles:
    """One state store of one partition (`state/<op>/<partition>[/<store name>]/`).

    Version v is the state after batch v-1. Deltas (`.delta`, RocksDB's `.changelog`) hold one
    version's changes, snapshots (`.snapshot`, RocksDB's `.zip`) a whole version: a restart
    replays the deltas after the latest snapshot.
    """

    partition: int
    store_name: str
    latest_version: int | None  # highest version of any delta or snapshot
    latest_snapshot: int | None
    deltas: int
    delta_bytes: int
    snapshots: int
    snapshot_bytes: int

    @property
    def snapshot_lag(self) -> int | None:
        """Versions a restart replays after the latest snapshot (all of them without one)."""
        if self.latest_version is None:
            return None
        return self.latest_version - (self.latest_snapshot or 0)


@dataclass(frozen=True, slots=True)
class OperatorState:
    """One stateful operator (`state/<op>/`): its stores in each partition."""

    operator_id: int
    operator_name: str | None  # from its `_metadata/metadata` (Spark 3.5+), else None
    store_names: tuple[str, ...]  # from the metadata, else the names found on disk
    num_partitions: int | None  # from the metadata
    stores: tuple[StoreFiles, ...]  # by partition, then store name

    @property
    def partitions(self) -> tuple[int, ...]:
        return tuple(sorted({s.partition for s in self.stores}))

    @property
    def latest_version(self) -> int | None:
        return max((s.latest_version for s in self.stores if s.latest_version is not None), default=None)

    @property
    def max_snapshot_lag(self) -> int | None:
        return max((s.snapshot_lag for s in self.stores if s.snapshot_lag is not None), default=None)

    @property
    def total_bytes(self) -> int:
        return sum(s.delta_bytes + s.snapshot_bytes for s in self.stores)


@dataclass(frozen=True, slots=True)
class CheckpointState:
    """A checkpoint's state stores against its last committed batch."""

    path: str
    operators: tuple[OperatorState, ...]  # () for a stateless query
    has_state_dir: bool
    latest_committed: int | None  # from commits/ (backends/spark.py's reader)
    problems: tuple[str, ...] = ()

    @property
    def state_batch(self) -> int | None:
        """The batch whose state is the newest on disk (version - 1)."""
        versions = [op.latest_version for op in self.operators if op.latest_version is not None]
        return max(versions) - 1 if versions else None


@dataclass(frozen=True, slots=True)
class OperatorProgress:
    """One entry of a progress event's `stateOperators`."""

    operator_name: str | None
    rows_total: int
    rows_updated: int
    rows_removed: int
    rows_dropped_by_watermark: int
    memory_used_bytes: int
    partitions: int | None  # numShufflePartitions
    snapshots_uploaded: tuple[tuple[str, int], ...] = ()
    """customMetrics' SnapshotLastUploaded.<partition_N_store> (Spark 4): the version of each store's
    latest snapshot, -1 before its first."""

    def snapshot_lag(self, batch_id: int) -> int | None:
        """Versions after the oldest latest snapshot among the stores (version = batch + 1)."""
        if not self.snapshots_uploaded:
            return None
        return batch_id + 1 - max(0, min(version for _, version in self.snapshots_uploaded))
