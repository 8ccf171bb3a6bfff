"""The end-to-end probe's following (streamctl/pipeline/probe.py) on the demo's captured
readings: committed offsets moved past the markers reading by reading, a reader that passes
handing the probe on to the readers of what it writes, one that never passes named."""

from __future__ import annotations

from dataclasses import replace

from streamctl.model.health import Severity
from streamctl.pipeline.collect import Reading
from streamctl.pipeline.derive import derive
from streamctl.pipeline.health import hop_name
from streamctl.pipeline.probe import entry_topics, follow, probe_health
from streamctl.thresholds import Thresholds
from tests.fixtures.capture_pipeline import load

WRITTEN_AT = 1_000.0
JOB, STREAMS, SINK, WATCH = ("job:weblog-stats", "streams:weblog-statuses", "connector:weblog-archive",
                             "group:weblog-status-watch")


def demo():
    readings = load("demo")
    return readings, derive(readings, Thresholds())


def markers(readings) -> dict[tuple[str, int], int]:
    """Each weblogs partition's marker: 10 past its log end in the captured reading."""
    return {(p.topic, p.partition): p.high + 10 for p in readings.after.partitions if p.topic == "weblogs"}


def reading(readings, at: float, ahead: dict[str, int]) -> Reading:
    """The captured reading with each reader's committed offsets `ahead[reader]` past its log
    ends (0: at them, negative: behind), and every log end 100 further on than captured."""
    snapshot = readings.after
    groups = {"connect-weblog-archive": SINK, "weblog-statuses": STREAMS, "weblog-status-watch": WATCH}
    ends = {(p.topic, p.partition): p.high for p in snapshot.partitions}
    lags = tuple(replace(l, committed=ends[(l.topic, l.partition)] + ahead.get(groups.get(l.group), -50))
                 for l in snapshot.lags)
    topics = tuple(replace(t, partitions=tuple(replace(p, high=p.high + 100) if p.high is not None else p
                                               for p in t.partitions)) for t in snapshot.topics)
    jobs = [replace(v, lags=tuple(replace(l, committed=ends[(l.topic, l.partition)] + ahead.get(JOB, -50))
                                  for l in v.lags)) for v in readings.jobs]
    return Reading(WRITTEN_AT + at, replace(snapshot, lags=lags, topics=topics), jobs)


def run(readings, pipeline, script: list[dict[str, int]]):
    """follow() over the scripted readings, one a second; its clock is the readings made."""
    made = []

    def read():
        made.append(len(made) + 1)
        return reading(readings, float(made[-1]), script[made[-1] - 1])

    return follow(pipeline, markers(readings), WRITTEN_AT, len(script), read,
                  {c.name: c.group_id for c in readings.connectors}, sleep=lambda _: None, clock=lambda: len(made))


def seconds(passages) -> dict[str, float | None]:
    return {p.hop.reader.id: p.seconds for p in passages}


def test_the_demo_enters_at_weblogs():
    _, pipeline = demo()
    assert entry_topics(pipeline) == ["weblogs"]


def test_each_reader_is_timed_when_it_passes_and_hands_the_probe_on():
    readings, pipeline = demo()
    passages = run(readings, pipeline, [
        {},  # 1 s: nobody past the markers yet
        {JOB: 10},  # 2 s: the job reached the markers: weblog-stats' log ends now are the sink's
        {JOB: 10, STREAMS: 10, SINK: 50},  # 3 s: the sink is only at the log ends of reading 1 + 50
        {JOB: 10, STREAMS: 10, SINK: 100, WATCH: 100},  # 4 s: both past what their writers had written
    ])
    assert seconds(passages) == {JOB: 2.0, STREAMS: 3.0, SINK: 4.0, WATCH: 4.0}
    findings, metrics = probe_health(pipeline, passages)
    assert findings == []
    assert {m.labels.get("reader"): m.value for m in metrics if m.name == "pipeline_probe_seconds"} == \
        {JOB: 2.0, STREAMS: 3.0, SINK: 4.0, WATCH: 4.0}
    assert [m.value for m in metrics if m.name == "pipeline_probe_end_to_end_seconds"] == [4.0]


def test_a_reader_that_never_passes_is_named_and_what_lies_past_it_not_reached():
    readings, pipeline = demo()
    passages = run(readings, pipeline, [{STREAMS: 10, WATCH: 200}] * 5)  # the job stands still
    assert seconds(passages) == {JOB: None, STREAMS: 1.0, WATCH: 2.0}  # the sink: never reached
    findings, metrics = probe_health(pipeline, passages)
    job_hop = next(p.hop for p in passages if p.hop.reader.id == JOB)
    assert [(f.severity, f.code, f.object) for f in findings] == \
        [(Severity.WARN, "PIPELINE_PROBE_LATE", hop_name(pipeline, job_hop))]
    assert not [m for m in metrics if m.name == "pipeline_probe_end_to_end_seconds"]


def test_a_reader_with_nothing_running_is_not_waited_for():
    """An abandoned group (no members) keeps its committed offsets for days: the probe does not
    wait on it, so it never turns late (the pipeline component names it when it is behind)."""
    readings, pipeline = demo()
    hops = tuple(replace(h, reader=replace(h.reader, state="EMPTY")) if h.reader and h.reader.id == WATCH else h
                 for h in pipeline.hops)
    passages = run(readings, replace(pipeline, hops=hops), [{JOB: 10, STREAMS: 10, SINK: 200}] * 3)
    assert seconds(passages) == {JOB: 1.0, STREAMS: 1.0, SINK: 2.0}
    assert probe_health(pipeline, passages)[0] == []
