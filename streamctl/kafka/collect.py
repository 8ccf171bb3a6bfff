"""Kafka: one snapshot, the lag history, the health rules."""

from __future__ import annotations

import time
from concurrent.futures import Future
from functools import partial
from pathlib import Path

from streamctl.backends.kafka.client import Deadline, KafkaError
from streamctl.backends.kafka.isolated import KafkaClientCrashed, isolated_backend
from streamctl.kafka.access_rules import SECURED, access_health
from streamctl.kafka.health import Filters, kafka_health
from streamctl.kafka.history import HistoryRequest, snapshot_with_history
from streamctl.kafka.lag.store import default_path
from streamctl.kafka.streams.apps import find_apps, streams_health
from streamctl.model.health import Finding, Metric, NotEvaluated, Severity

PROBE_TIMEOUT = 1.0  # seconds each broker gets to answer when a read stalled
PROBE_RESERVE = 2.0  # seconds of check's deadline kept back for that probe (and the rules)


SECTION = "kafka section"


def configured(ctx) -> bool:
    return True  # every context has a Kafka section


def collect(ctx, deadline_at: float, lag_store: Path | None = None, now: float | None = None,
            kafka_backend=None, record_history: bool = True, kafka_snapshot: Future | None = None, **_options):
    """`kafka_backend`: a long-lived client to reuse (the dashboard's) instead of a new one.
    `record_history`: False judges the groups from the history without adding this sample.
    `kafka_snapshot`: given the snapshot read (None when none was) for the other collectors."""
    filters = Filters.from_context(ctx)
    # A new client lives in a forked child, which a librdkafka crash ends instead of check.
    backend = kafka_backend or isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
    left = deadline_at - time.monotonic()
    reserve = min(PROBE_RESERVE, left * 0.35)  # kept to find the broker a stalled read waited for
    deadline = Deadline(ctx.kafka.timeout, left - reserve)
    thresholds = ctx.thresholds
    history = HistoryRequest(lag_store or default_path(), ctx.name, thresholds.allowed_lag,
                             thresholds.stall_window_seconds, record=record_history, now=now)
    # The dashboard's client process joins the history itself: that work stays out of its UI.
    in_child = getattr(backend, "call_with_admin", None)
    joined = partial(in_child, snapshot_with_history) if in_child else partial(snapshot_with_history, backend)
    try:
        # The rules judge offsets and lag, never members: the groups are listed, not described.
        # `access`: the ACLs and brokers' security configs, for the access rules; only on a
        # secured connection (a PLAINTEXT client is ANONYMOUS to an authorizer: nothing to judge).
        snap, statuses = _shared(kafka_snapshot, joined, history, deadline=deadline, group_filter=filters.group,
                                 group_members=False, access=secured(ctx))
    except KafkaClientCrashed as exc:  # not read, which says nothing about the cluster
        raise NotEvaluated(str(exc)) from None
    except KafkaError as exc:
        if time.monotonic() >= deadline_at - reserve - 0.1:
            silent = _silent(ctx.kafka.bootstrap_servers.split(","), deadline_at)
            why = "; ".join(b.describe() for b in silent) or "no answer within the deadline"
            raise NotEvaluated(f"{why} ({exc})") from None
        return [Finding(Severity.CRIT, "kafka", "cluster", "KAFKA_UNREACHABLE",
                        f"Kafka unreachable at {ctx.kafka.bootstrap_servers}: {exc}")], \
               [Metric("kafka_up", 0, "1 when the cluster answered", min=0, max=1)]
    findings, metrics = kafka_health(snap, thresholds, ctx.kafka.expected_brokers, filters, statuses)
    streams_findings, streams_metrics = streams_health(find_apps(
        snap, thresholds.allowed_lag, {name: app.outputs for name, app in ctx.kafka.streams.items()}))
    access_findings, rules_not_evaluated = access_health(snap, filters)
    findings, metrics = findings + streams_findings + access_findings, metrics + streams_metrics
    if snap.errors:  # partial: say which broker (if any) did not answer
        findings += _silent_findings(snap, deadline_at)
    metrics.append(Metric("kafka_up", 1, "1 when the cluster answered", min=0, max=1))
    return findings, metrics, rules_not_evaluated


def _shared(kafka_snapshot: Future | None, read, *args, **kwargs):
    """read(*args, **kwargs), its snapshot (or None, if it failed) handed to `kafka_snapshot`."""
    snap = None
    try:
        snap, statuses = read(*args, **kwargs)
        return snap, statuses
    finally:
        if kafka_snapshot is not None:
            kafka_snapshot.set_result(snap)


def secured(ctx) -> bool:
    """Whether the context logs in to Kafka (SASL) or connects over TLS."""
    return ctx.kafka.client_config().get("security.protocol", "PLAINTEXT").upper() in SECURED


def _silent(addresses: list[str], deadline_at: float, known_ids=None) -> list:
    """The brokers among `addresses` that do not answer, asked in the time left before the deadline."""
    from streamctl.backends.kafka.probe import silent_brokers

    timeout = min(PROBE_TIMEOUT, deadline_at - time.monotonic() - 0.4)
    return silent_brokers(addresses, timeout, known_ids) if timeout >= 0.3 else []


def _silent_findings(snap, deadline_at: float) -> list[Finding]:
    registered = {f"{b.host}:{b.port}": b.id for b in snap.brokers}
    return [Finding(Severity.UNKNOWN, "kafka", f"broker {b.broker_id}" if b.broker_id is not None else b.address,
                    "KAFKA_BROKER_SILENT", f"{b.describe()} (still registered)")
            for b in _silent(list(registered), deadline_at, registered)]
