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

PROBE_TIMEOUT = 1.0  # seconds each broker gets to answer when a read stalled
PROBE_RESERVE = 2.0  # seconds of check's deadline kept back for that probe (and the rules)


def configured(ctx) -> bool:
    return True  # every context has a Kafka section


def collect(ctx, deadline_at: float, lag_store: Path | None = None, now: float | None = None,
            kafka_backend: KafkaBackend | None = None, **_options):
    """`kafka_backend`: a long-lived client to reuse (the dashboard's) instead of a new one."""
    filters = Filters.from_context(ctx)
    backend = kafka_backend or KafkaBackend(ctx.kafka.client_config(), timeout=ctx.kafka.timeout)
    left = deadline_at - time.monotonic()
    reserve = min(PROBE_RESERVE, left * 0.35)  # kept to find the broker a stalled read waited for
    deadline = Deadline(ctx.kafka.timeout, left - reserve)
    try:
        snap = backend.snapshot(deadline=deadline, group_filter=filters.group)
    except KafkaError as exc:
        if time.monotonic() >= deadline_at - reserve - 0.1:
            silent = _silent(ctx.kafka.bootstrap_servers.split(","), deadline_at)
            why = "; ".join(b.describe() for b in silent) or "no answer within the deadline"
            raise NotEvaluated(f"{why} ({exc})") from None
        return [Finding(Severity.CRIT, "kafka", "cluster", "KAFKA_UNREACHABLE",
                        f"Kafka unreachable at {ctx.kafka.bootstrap_servers}: {exc}")], \
               [Metric("kafka_up", 0, "1 when the cluster answered", min=0, max=1)]
    now = now if now is not None else snap.taken_at
    thresholds = ctx.thresholds
    with LagStore(lag_store or default_path()) as store:
        store.record(ctx.name, snap.lags, now)
        statuses = store.evaluate_groups(ctx.name, [g.id for g in snap.groups if filters.group(g.id)], now,
                                         thresholds.allowed_lag, thresholds.stall_window_seconds)
        snap = replace(snap, lags=tuple(
            _with_history_seconds(store, ctx.name, lag, now) for lag in snap.lags))
    findings, metrics = kafka_health(snap, thresholds, ctx.kafka.expected_brokers, filters, statuses)
    if snap.errors:  # partial: say which broker (if any) did not answer
        findings += _silent_findings(snap, deadline_at)
    metrics.append(Metric("kafka_up", 1, "1 when the cluster answered", min=0, max=1))
    return findings, metrics


def _silent(addresses: list[str], deadline_at: float, known_ids=None) -> list:
    """The brokers among `addresses` that do not answer, asked in the time left before the deadline."""
    from streamctl.backends.kafka_probe import silent_brokers

    timeout = min(PROBE_TIMEOUT, deadline_at - time.monotonic() - 0.4)
    return silent_brokers(addresses, timeout, known_ids) if timeout >= 0.3 else []


def _silent_findings(snap, deadline_at: float) -> list[Finding]:
    registered = {f"{b.host}:{b.port}": b.id for b in snap.brokers}
    return [Finding(Severity.UNKNOWN, "kafka", f"broker {b.broker_id}" if b.broker_id is not None else b.address,
                    "KAFKA_BROKER_SILENT", f"{b.describe()} (still registered)")
            for b in _silent(list(registered), deadline_at, registered)]


def _with_history_seconds(store, context: str, lag, now: float):
    """Lag in time from the offset history where the record's timestamp was not read."""
    if not lag.lag or lag.lag_seconds is not None or lag.committed is None:
        return lag
    seconds = store.lag_seconds_from_history(context, lag.group, lag.topic, lag.partition, lag.committed, now)
    return lag if seconds is None else replace(lag, lag_seconds=seconds, lag_seconds_source="history")


