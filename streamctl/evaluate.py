"""Run each component's collector against one global deadline and gather an Evaluation.

Collectors run in daemon threads: one slow or broken backend cannot hold up the others,
and a component that has not answered by the deadline is reported as not evaluated
(UNKNOWN) rather than waited for.

An unreachable Kafka (its metadata call fails or times out within the per-call timeout) is
CRIT: the cluster is down as far as its clients can tell. A component that could not be
evaluated within `check --timeout` is UNKNOWN.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from streamctl.model import Evaluation, Finding, Metric, Severity

Collector = Callable[..., tuple[list[Finding], list[Metric]]]


class NotEvaluated(Exception):
    """The component could not be judged (deadline reached): UNKNOWN, with this reason."""


def collect_kafka(ctx, deadline_at: float, lag_store: Path | None = None, now: float | None = None):
    from streamctl.backends.kafka import Deadline, KafkaBackend, KafkaError
    from streamctl.health import Filters, kafka_health
    from streamctl.lagstore import LagStore, default_path

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


COLLECTORS: dict[str, Collector] = {"kafka": collect_kafka}


def evaluate(ctx, components: list[str], timeout: float, **options) -> Evaluation:
    """Every component's findings, or why it was not evaluated, within `timeout` seconds."""
    deadline_at = time.monotonic() + timeout
    results: dict[str, object] = {}

    def run(name: str) -> None:
        try:
            results[name] = COLLECTORS[name](ctx, deadline_at, **options)
        except NotEvaluated as exc:
            results[name] = exc
        except Exception as exc:  # a bug or an unexpected client error: UNKNOWN, named
            results[name] = NotEvaluated(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(name,), daemon=True, name=f"check-{name}")
               for name in components]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline_at - time.monotonic()))
    evaluation = Evaluation()
    for name in components:
        result = results.get(name)
        if result is None:
            evaluation.unevaluated[name] = f"no answer within {timeout:g} s"
        elif isinstance(result, NotEvaluated):
            evaluation.unevaluated[name] = str(result)
        else:
            findings, metrics = result
            evaluation.findings += findings
            evaluation.metrics += metrics
            evaluation.evaluated.append(name)
    return evaluation
