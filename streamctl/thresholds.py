"""A context's `thresholds` section: the limits every system's health rules judge by."""

from __future__ import annotations

from pydantic import Field, model_validator

from streamctl.settings_types import SettingsModel


class Thresholds(SettingsModel):
    """Limits for the health rules; every one has a default."""

    lag_records_warn: int = Field(1000, ge=0)
    """Consumer-group lag in records that raises a warning."""
    lag_records_crit: int = Field(100_000, ge=0)
    """Consumer-group lag in records that is critical."""
    lag_seconds_warn: float = Field(60.0, ge=0)
    """Consumer-group lag in seconds that raises a warning."""
    lag_seconds_crit: float = Field(600.0, ge=0)
    """Consumer-group lag in seconds that is critical."""
    allowed_lag: int = Field(0, ge=0)
    """Records a group may lag without counting as lagging at all."""
    stall_window_seconds: float = Field(300.0, gt=0)
    """How long committed offsets may stand still, with lag, before the group is stalled."""
    min_brokers_warn: int | None = Field(None, ge=1)
    """Warn below this many live brokers (default: kafka.expected_brokers)."""
    min_brokers_crit: int | None = Field(None, ge=1)
    """Critical below this many live brokers (default: kafka.expected_brokers)."""
    channel_fill_warn_pct: float = Field(70.0, ge=0, le=100)
    """Flume channel fill percentage that raises a warning."""
    channel_fill_crit_pct: float = Field(90.0, ge=0, le=100)
    """Flume channel fill percentage that is critical."""
    source_idle_seconds: float = Field(300.0, gt=0)
    """Seconds a Flume source may accept no events before it counts as idle."""
    job_commit_age_warn_seconds: float = Field(300.0, ge=0)
    """Age of a Spark job's last committed batch that raises a warning."""
    job_commit_age_crit_seconds: float = Field(900.0, ge=0)
    """Age of a Spark job's last committed batch that is critical."""
    job_lag_records_warn: int = Field(10_000, ge=0)
    """Records between a job's checkpoint and the log end that raise a warning."""
    job_lag_records_crit: int = Field(1_000_000, ge=0)
    """Records between a job's checkpoint and the log end that are critical."""
    job_state_growth_batches: int = Field(10, ge=2, le=20)
    """Batches over which a job's state rows growing with none removed is unbounded state (at most the
    20 progress events read)."""
    job_watermark_stall_seconds: float = Field(600.0, gt=0)
    """Seconds a job's watermark may stand still while input arrives before a warning."""
    job_late_rows_dropped_warn: int = Field(1000, ge=0)
    """Rows dropped by a job's watermark (late data) in its last batch that raise a warning."""
    job_state_snapshot_lag_warn: int = Field(100, ge=1)
    """State versions a job's state store may be ahead of its latest snapshot (replayed on restart)
    before a warning."""
    job_state_memory_share_warn: float = Field(0.5, gt=0, le=1)
    """Share of the memory a job was started with (executor memory; the driver's in local mode) that
    its state stores may use in the last batch, all operators together, before a warning."""
    zk_latency_avg_warn_ms: float = Field(100.0, ge=0)
    """ZooKeeper average request latency (ms) that raises a warning."""
    zk_outstanding_warn: int = Field(10, ge=0)
    """ZooKeeper outstanding requests that raise a warning."""
    connect_unassigned_warn_seconds: float = Field(60.0, ge=0)
    """Seconds a Connect connector or task may stay UNASSIGNED before a warning."""
    quorum_voter_lag_warn: int = Field(1000, ge=0)
    """Records a KRaft controller (a quorum voter) may be behind the quorum leader before a warning."""
    drain_eta_seconds_warn: float = Field(600.0, gt=0)
    """Seconds a pipeline hop may need to drain its backlog before a warning (`streamctl pipeline`)."""
    drain_eta_seconds_crit: float = Field(3600.0, gt=0)
    """... and before it is critical."""
    pipeline_history_max_age_seconds: float = Field(300.0, ge=0)
    """Age up to which `streamctl pipeline` (without --window) takes its earlier reading from the lag
    history that check and the dashboard record, instead of waiting for a second reading (under 15, the
    shortest span it takes rates over: always two readings)."""

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        pairs = [
            ("lag_records_warn", "lag_records_crit"),
            ("lag_seconds_warn", "lag_seconds_crit"),
            ("channel_fill_warn_pct", "channel_fill_crit_pct"),
            ("job_commit_age_warn_seconds", "job_commit_age_crit_seconds"),
            ("job_lag_records_warn", "job_lag_records_crit"),
            ("min_brokers_crit", "min_brokers_warn"),  # fewer brokers is worse
            ("drain_eta_seconds_warn", "drain_eta_seconds_crit"),
        ]
        for low, high in pairs:
            a, b = getattr(self, low), getattr(self, high)
            if a is not None and b is not None and a > b:
                raise ValueError(f"{low} must not exceed {high}")
        return self
