"""`check` findings per pipeline hop, worst first, each naming the hop; and the opt-in check
component `pipeline` (`check --component pipeline`: it waits between two Kafka readings)."""

from __future__ import annotations

import time

from streamctl.model.health import Finding, Metric, NotEvaluated, Severity
from streamctl.model.pipeline import NEVER, Hop, PipelineMap, eta_text

WINDOW = 15.0  # seconds between check's two readings: a third of the time left, at most this


SECTION = "kafka section"


def configured(ctx) -> bool:
    return True  # it reads the Kafka section every context has (and what else it configures)


def collect(ctx, deadline_at: float, **_options):
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.pipeline.collect import read
    from streamctl.pipeline.derive import derive

    window = min(WINDOW, (deadline_at - time.monotonic()) / 3)
    if window < 1.0:
        raise NotEvaluated("no time left for two readings before the deadline")
    try:
        pipeline = derive(read(ctx, window), ctx.thresholds)
    except KafkaError as exc:
        raise NotEvaluated(f"Kafka not read: {exc}") from None
    return pipeline_health(pipeline)


def hop_name(pipeline: PipelineMap, hop: Hop) -> str:
    """`weblogs -> weblog-stats via job weblog-stats`, or `weblogs -> group billing`."""
    if hop.writer is not None:
        return f"{hop.writer.label} -> {hop.topic}"
    reader = hop.node
    downstream = sorted(h.topic for h in pipeline.hops if h.writer is not None and h.writer.id == reader.id)
    return f"{hop.topic} -> {', '.join(downstream)} via {reader.label}" if downstream \
        else f"{hop.topic} -> {reader.label}"


def describe(hop: Hop) -> str:
    """`backlog 420 records, lag 42 s and growing, drains never (reads nothing)`"""
    text = f"backlog {hop.backlog} records" if hop.backlog is not None else "backlog unknown"
    if hop.lag_seconds is not None:
        text += f", lag {hop.lag_seconds:.0f} s"
    if hop.trend != "unknown":
        text += f" and {hop.trend}"
    return f"{text}, drains {eta_text(hop.eta_seconds)}" + (f" ({hop.note})" if hop.note else "")


def pipeline_health(pipeline: PipelineMap) -> tuple[list[Finding], list[Metric]]:
    findings, metrics = [], []
    readers = sorted((h for h in pipeline.hops if h.reader is not None), key=lambda h: (-h.severity.rank, h.topic))
    for hop in readers:
        name = hop_name(pipeline, hop)
        labels = {"topic": hop.topic, "reader": hop.node.id}  # a reader hop: its node is the reader
        if hop.eta_seconds is not None:
            metrics.append(Metric("pipeline_drain_eta_seconds", -1 if hop.eta_seconds == NEVER else round(hop.eta_seconds, 1),
                                  "Seconds for a reader to drain its backlog (-1: never)", labels=labels, uom="s",
                                  perfdata=False))
        if hop.backlog is not None:
            metrics.append(Metric("pipeline_backlog_records", hop.backlog, "Records a reader is behind",
                                  labels=labels, min=0, perfdata=False))
        if hop.severity is not Severity.OK:
            findings.append(Finding(hop.severity, "pipeline", name, "PIPELINE_HOP_DRAIN",
                                    f"{name}: {describe(hop)}",
                                    value=None if hop.eta_seconds in (None, NEVER) else hop.eta_seconds))
    if pipeline.errors:
        findings.append(Finding(Severity.UNKNOWN, "pipeline", "pipeline", "PIPELINE_PARTIAL",
                                f"part of the pipeline unread: {pipeline.errors[0]}"))
    return findings, metrics
