"""Read what the pipeline map is derived from: two readings `window` seconds apart of Kafka and
of the Spark jobs' checkpoints, the later one with the Flume agents' definitions and state and
the Connect connectors (the dashboard keeps its readings and pairs them across refreshes).
`pipeline` without --window reads once and takes the earlier reading from the lag history that
check and the dashboard record, when it holds a recent one (read_at_once).
A system that cannot be read is named in the map's errors; its hops are missing, the rest stand."""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from streamctl.kafka.history import HistoryRequest, RecordedReading, recorded_reading, snapshot_with_history
from streamctl.model.kafka import KafkaSnapshot, PartitionLag
from streamctl.pipeline.derive import Readings

KAFKA_SINK = "org.apache.flume.sink.kafka.KafkaSink"
FLUME_TIMEOUT = 2.0
# Seconds between two readings at the least when one is the lag history's: commits land in steps
# (the demo's sink every 10 s, its Streams app every 5 s), so a shorter span reads as "committed nothing".
SPAN = 15.0


def read(ctx, window: float, report=lambda _: None) -> Readings:
    """Two readings `window` seconds apart (the CLI and check)."""
    from streamctl.backends.kafka.isolated import isolated_backend

    kafka = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
    before = read_once(ctx, kafka, everything=False)
    report(f"reading again in {window:g} s (rates need two readings)")
    time.sleep(max(0.0, window - (time.time() - before.at)))
    return readings(ctx, before, read_once(ctx, kafka))


def read_at_once(ctx, max_age: float, report=lambda _: None, store: Path | None = None) -> Readings:
    """One reading, recorded in the lag history (`store`, default its XDG file) as check
    records one, paired with the reading history_before() finds there; after a wait for the rest
    of SPAN and a reading again if that one is younger. Without any, a second reading SPAN
    seconds later (recorded too, so that the next run answers at once)."""
    from streamctl.backends.kafka.isolated import isolated_backend
    from streamctl.kafka.lag.store import default_path

    kafka = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
    history = HistoryRequest(store or default_path(), ctx.name, ctx.thresholds.allowed_lag,
                             ctx.thresholds.stall_window_seconds)
    after = read_once(ctx, kafka, history=history)
    recorded = history_before(history.store, ctx.name, after.at, max_age)
    if recorded is None:
        report(f"no reading in the lag history from the last {max_age:g} s: reading again in {SPAN:g} s"
               " (rates need two readings)")
        time.sleep(max(0.0, SPAN - (time.time() - after.at)))
        return readings(ctx, after, read_once(ctx, kafka, history=history))
    if (rest := recorded.at + SPAN - time.time()) > 0:
        report(f"the lag history's newest reading is {SPAN - rest:.0f} s old: reading again in {rest:.0f} s"
               f" (rates need {SPAN:g} s between readings)")
        time.sleep(rest)
        after = read_once(ctx, kafka, history=history)
    before = Reading(recorded.at, recorded_snapshot(recorded, after.snapshot), jobs=[])
    return replace(readings(ctx, before, after), before_source="history")


def history_before(store: Path, context: str, at: float, max_age: float) -> RecordedReading | None:
    """The lag history's reading to pair with one taken at `at` (which it may hold already): the
    newest of the context at least SPAN and at most `max_age` seconds older; else the newest
    younger than SPAN; None when it holds neither (or `max_age` is under SPAN)."""
    if max_age < SPAN:
        return None
    return (recorded_reading(store, context, at - max_age, at - SPAN)
            or recorded_reading(store, context, at - SPAN, math.nextafter(at, 0.0)))


def recorded_snapshot(recorded: RecordedReading, now: KafkaSnapshot) -> KafkaSnapshot:
    """`now`'s cluster as the lag history recorded it: the groups' committed offsets, and the log
    ends of the topics whose every partition it holds (a topic partly held would seem to grow
    slower than it does); the other topics have no earlier log end, hence no rate in."""
    ends = {(topic, partition): log_end for _, topic, partition, _, log_end in recorded.offsets
            if log_end is not None}
    topics = tuple(replace(t, partitions=tuple(replace(p, high=ends[(t.name, p.partition)]) for p in t.partitions))
                   for t in now.topics if t.partitions and all((t.name, p.partition) in ends for p in t.partitions))
    lags = tuple(PartitionLag(group, topic, partition, committed, None, log_end)
                 for group, topic, partition, committed, log_end in recorded.offsets)
    return replace(now, taken_at=recorded.at, offsets_read_at=recorded.at, topics=topics, lags=lags, errors=())


@dataclass(frozen=True)
class Reading:
    """One look at every system, at unix time `at`."""

    at: float
    snapshot: KafkaSnapshot
    jobs: list
    flume: dict = field(default_factory=dict)
    connectors: list = field(default_factory=list)
    errors: tuple[str, ...] = ()


def read_once(ctx, kafka, everything: bool = True, history: HistoryRequest | None = None) -> Reading:
    """Kafka and the Spark jobs' checkpoints; with `everything`, also the Flume agents and the
    Connect connectors (what only the later of two readings needs), all read together. With
    `history`, Kafka's reading is joined with the lag history and recorded in it, as check does."""
    errors: list[str] = []
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="pipeline") as pool:
        jobs = pool.submit(_guarded, errors, "spark", _jobs, ctx, [])
        flume = pool.submit(_guarded, errors, "flume", _flume, ctx, {}) if everything else None
        connectors = pool.submit(_guarded, errors, "connect", _connectors, ctx, []) if everything else None
        snapshot = snapshot_with_history(kafka, history, topic_configs=False, lag_time=everything)[0] \
            if history else kafka.snapshot(topic_configs=False, lag_time=everything)
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
