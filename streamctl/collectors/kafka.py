"""Kafka: one snapshot, the lag history, the health rules."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from streamctl.backends.kafka import Deadline, KafkaBackend, KafkaError
from streamctl.evaluate import NotEvaluated
from streamctl.health import Filters, kafka_health
from streamctl.lagstore import LagStore, default_path
from streamctl.model import Finding, Metric, Severity


def configured(ctx) -> bool:
    return True  # every context has a Kafka section


def collect(ctx, deadline_at: float, lag_store: Path | None = None, now: float | None = None):
    filters = Filters.from_context(ctx)
    backend = KafkaBackend(ctx.kafka.client_config(), timeout=ctx.kafka.timeout)
    deadline = Deadline(ctx.kafka.timeout, deadline_at - time.monotonic())
    try:
        snap = backend.snapshot(deadline=deadline, group_filter=filters.group)
    except KafkaError as exc:
        if time.monotonic() >= deadline_at - 0.1:
            raise NotEvaluated(f"no answer within the deadline ({exc})") from None
        return [Finding(Severity.CRIT, "kafka", "cluster", "KAFKA_UNREACHABLE",
                        f"Kafka unreachable at {ctx.kafka.bootstrap_servers}: {exc}")], \
               [Metric("kafka_up", 0, "1 when the cluster answered", min=0, max=1)]
    now = now if now is not None else snap.taken_at
    thresholds = ctx.thresholds
    with LagStore(lag_store or default_path()) as store:
        store.record(ctx.name, snap.lags, now)
        statuses = {g.id: store.evaluate(ctx.name, g.id, now, thresholds.allowed_lag,
                                         thresholds.stall_window_seconds)
                    for g in snap.groups if filters.group(g.id)}
        snap = replace(snap, lags=tuple(
            _with_history_seconds(store, ctx.name, lag, now) for lag in snap.lags))
    findings, metrics = kafka_health(snap, thresholds, ctx.kafka.expected_brokers, filters, statuses)
    metrics.append(Metric("kafka_up", 1, "1 when the cluster answered", min=0, max=1))
    return findings, metrics


def _with_history_seconds(store, context: str, lag, now: float):
    """Lag in time from the offset history where the record's timestamp was not read."""
    if not lag.lag or lag.lag_seconds is not None or lag.committed is None:
        return lag
    seconds = store.lag_seconds_from_history(context, lag.group, lag.topic, lag.partition, lag.committed, now)
    return lag if seconds is None else replace(lag, lag_seconds=seconds, lag_seconds_source="history")


