"""Read what the pipeline map is derived from: two readings `window` seconds apart of Kafka and
of the Spark jobs' checkpoints, the later one with the Flume agents' definitions and state and
the Connect connectors (the dashboard keeps its readings and pairs them across refreshes).
A system that cannot be read is named in the map's errors; its hops are missing, the rest stand."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from streamctl.model.kafka import KafkaSnapshot
from streamctl.pipeline.derive import Readings

KAFKA_SINK = "org.apache.flume.sink.kafka.KafkaSink"
FLUME_TIMEOUT = 2.0


def read(ctx, window: float, report=lambda _: None) -> Readings:
    """Two readings `window` seconds apart (the CLI and check)."""
    from streamctl.backends.kafka.isolated import isolated_backend

    kafka = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
    before = read_once(ctx, kafka, everything=False)
    report(f"reading again in {window:g} s (rates need two readings)")
    time.sleep(max(0.0, window - (time.time() - before.at)))
    return readings(ctx, before, read_once(ctx, kafka))


@dataclass(frozen=True)
class Reading:
    """One look at every system, at unix time `at`."""

    at: float
    snapshot: KafkaSnapshot
    jobs: list
    flume: dict = field(default_factory=dict)
    connectors: list = field(default_factory=list)
    errors: tuple[str, ...] = ()


def read_once(ctx, kafka, everything: bool = True) -> Reading:
    """Kafka and the Spark jobs' checkpoints; with `everything`, also the Flume agents and the
    Connect connectors (what only the later of two readings needs), all read together."""
    errors: list[str] = []
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="pipeline") as pool:
        jobs = pool.submit(_guarded, errors, "spark", _jobs, ctx, [])
        flume = pool.submit(_guarded, errors, "flume", _flume, ctx, {}) if everything else None
        connectors = pool.submit(_guarded, errors, "connect", _connectors, ctx, []) if everything else None
        snapshot = kafka.snapshot(topic_configs=False, lag_time=everything)
        reading = Reading(snapshot.offsets_read_at or snapshot.taken_at, snapshot, jobs.result(),
                          flume.result() if flume else {}, connectors.result() if connectors else [])
    return replace(reading, errors=tuple(errors + list(snapshot.errors)))


def readings(ctx, before: Reading, after: Reading) -> Readings:
    """What the derivation takes from two readings (the outputs the context declares added)."""
    return Readings(before.snapshot, after.snapshot, after.at - before.at, after.flume, after.jobs,
                    {name: job.outputs for name, job in ctx.spark.jobs.items()}, after.connectors,
                    {name: app.outputs for name, app in ctx.kafka.streams.items()}, before.jobs, after.errors,
                    ctx.pipeline.producers, ctx.pipeline.group_outputs)


def _guarded(errors: list[str], system: str, read_one, ctx, empty):
    """One system's part; a failure is named, never the end of the map."""
    from streamctl.errors import StreamctlError

    try:
        return read_one(ctx)
    except (StreamctlError, OSError) as exc:
        errors.append(f"{system}: {exc}")
        return empty


def _flume(ctx) -> dict[str, tuple[list[str], str | None]]:
    """agent -> (the topics its Kafka sinks write, up/unreachable)."""
    from streamctl.backends.flume import FlumeError, fetch
    from streamctl.flume.definition import read as read_definition

    found: dict[str, tuple[list[str], str | None]] = {}
    for name, agent in ctx.flume.agents.items():
        topics: list[str] = []
        if agent.config_file is not None:
            definition = read_definition(agent.config_file).agents.get(name)
            for sink in definition.of_kind("sinks") if definition else ():
                if sink.get("type") == KAFKA_SINK and (topic := sink.get("kafka.topic") or sink.get("topic")):
                    topics.append(topic)
        try:
            fetch(str(agent.metrics_url), FLUME_TIMEOUT)
            state = "up"
        except FlumeError:
            state = "unreachable"
        found[name] = (topics, state)
    return found


def _jobs(ctx) -> list:
    from streamctl.spark.jobs import entries, observe

    return [observe(item, ctx, ask_rest=False) for item in entries(ctx, context_only=True)]


def _connectors(ctx) -> list:
    from streamctl.connect.collect import backend_for, configured

    return list(backend_for(ctx).cluster().connectors) if configured(ctx) else []
