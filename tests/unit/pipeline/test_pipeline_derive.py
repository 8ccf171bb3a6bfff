"""The pipeline map derived from readings captured on the demo (tests/fixtures/capture_pipeline.py):
the graph, each hop's figures, the ETA rules, the findings and the dot/Mermaid output."""

from __future__ import annotations

from dataclasses import replace

import pytest

from streamctl.model.health import Severity
from streamctl.model.kafka import ConsumerGroup, KafkaSnapshot, PartitionLag, PartitionState, Topic
from streamctl.model.pipeline import NEVER, Hop, Node, eta_text
from streamctl.pipeline.derive import Readings, _judged, derive
from streamctl.pipeline.health import pipeline_health
from streamctl.pipeline.render import as_dict, dot, mermaid
from streamctl.thresholds import Thresholds
from tests.fixtures.capture_pipeline import load

DEMO_HOPS = [
    "flume weblogs -> weblogs",
    "weblogs -> weblog-stats via job weblog-stats",
    "weblogs -> weblog-status-counts via streams weblog-statuses",
    "job weblog-stats -> weblog-stats",
    "weblog-stats -> connector weblog-archive",
    "streams weblog-statuses -> weblog-status-counts",
    "weblog-status-counts -> group weblog-status-watch",
]


def demo(scene: str = "demo"):
    return derive(load(scene), Thresholds())


def by_name(pipeline) -> dict:
    return {h["name"]: h for h in as_dict(pipeline)["hops"]}


def test_the_demo_reads_from_source_to_sink_in_flow_order():
    assert [h["name"] for h in as_dict(demo())["hops"]] == DEMO_HOPS


def test_rates_are_log_end_and_commit_growth_over_the_window():
    readings = load("demo")
    before = {(p.topic, p.partition): p.high for p in readings.before.partitions}
    grown = sum(p.high - before[(p.topic, p.partition)] for p in readings.after.partitions if p.topic == "weblogs")
    hops = by_name(demo())
    assert hops["flume weblogs -> weblogs"]["rate_in"] == round(grown / readings.window, 3)
    sink = hops["weblog-stats -> connector weblog-archive"]
    lags = [l for l in readings.after.lags if l.group == "connect-weblog-archive"]
    assert sink["backlog"] == sum(l.lag for l in lags)


def test_every_hop_of_the_running_demo_is_ok_and_drains():
    pipeline = demo()
    assert all(h.severity is Severity.OK for h in pipeline.hops)
    assert all(h.eta_seconds is not None and h.eta_seconds != NEVER for h in pipeline.hops if h.reader)
    assert pipeline_health(pipeline)[0] == []


def test_a_stopped_job_is_critical_never_drains_and_upstream_is_unaffected():
    hops = by_name(demo("job-stopped"))
    job = hops["weblogs -> weblog-stats via job weblog-stats"]
    assert (job["severity"], job["eta"], job["rate_out"], job["trend"]) == ("CRIT", "never", 0.0, "growing")
    assert hops["flume weblogs -> weblogs"]["severity"] == "OK"
    assert hops["weblogs -> weblog-status-counts via streams weblog-statuses"]["severity"] == "OK"
    [finding] = pipeline_health(demo("job-stopped"))[0]
    assert finding.severity is Severity.CRIT and finding.text.startswith(
        "weblogs -> weblog-stats via job weblog-stats: backlog ")
    assert finding.text.endswith("and growing, drains never (stopped)")


def test_a_topic_nothing_known_writes_gets_an_external_writer():
    readings = load("demo")
    pipeline = derive(replace(readings, flume={}), Thresholds())
    assert "external weblogs -> weblogs" in by_name(pipeline)


def test_a_producer_the_context_names_replaces_the_external_writer():
    readings = replace(load("demo"), flume={}, producers={"nginx-shippers": ["weblogs", "no-such-topic"]})
    hops = by_name(derive(readings, Thresholds()))
    assert "producer nginx-shippers -> weblogs" in hops and "external weblogs -> weblogs" not in hops
    assert not any("no-such-topic" in name for name in hops)  # a topic Kafka does not have: no edge


def test_a_groups_declared_outputs_continue_the_flow():
    readings = replace(load("demo"), group_outputs={"weblog-status-watch": ["weblog-stats"]})
    names = [h["name"] for h in as_dict(derive(readings, Thresholds()))["hops"]]
    assert "group weblog-status-watch -> weblog-stats" in names
    # weblog-stats is now fed by the status counts too: one hop further downstream.
    assert names.index("weblog-status-counts -> weblog-stats via group weblog-status-watch") < \
        names.index("weblog-stats -> connector weblog-archive")


def test_the_context_section_reads_and_rejects_bad_shapes(tmp_path):
    from streamctl.config import ConfigError, load_config

    path = tmp_path / "c.yaml"
    path.write_text("contexts:\n  c:\n    kafka: {bootstrap_servers: 'localhost:9092'}\n"
                    "    pipeline: {producers: {nginx: [weblogs]}, group_outputs: {billing: [invoices]}}\n")
    ctx = load_config(path).context("c")
    assert (ctx.pipeline.producers, ctx.pipeline.group_outputs) == ({"nginx": ["weblogs"]}, {"billing": ["invoices"]})
    path.write_text("contexts:\n  c:\n    kafka: {bootstrap_servers: 'localhost:9092'}\n"
                    "    pipeline: {producers: {nginx: weblogs}}\n")
    with pytest.raises(ConfigError, match=r"pipeline\.producers\.nginx"):
        load_config(path).context("c")


def reader_hop(backlog, rate_in, rate_out, state="STABLE"):
    return Hop(None, Node("group", "g", state), "t", rate_in, rate_out, backlog)


@pytest.mark.parametrize("backlog, rate_in, rate_out, state, severity, eta", [
    (0, 10.0, 10.0, "STABLE", Severity.OK, 0.0),  # drained
    (100, 10.0, 10.0, "STABLE", Severity.OK, 10.0),  # steady: 10 s of reading
    (100, 10.0, 0.0, "EMPTY", Severity.CRIT, NEVER),  # stopped
    (100, 10.0, 0.0, "STABLE", Severity.WARN, NEVER),  # alive, no commit between the readings
    (100, 10.0, 4.0, "STABLE", Severity.WARN, NEVER),  # clearly slower than the topic grows
    (100, 0.0, 0.0, "STABLE", Severity.WARN, NEVER),  # nothing arrives, nothing read: stuck
    (10_000, 10.0, 10.0, "STABLE", Severity.WARN, 1000.0),  # over drain_eta_seconds_warn (600)
    (100_000, 0.0, 10.0, "STABLE", Severity.CRIT, 10_000.0),  # over drain_eta_seconds_crit (3600)
    (100, None, None, "STABLE", Severity.OK, None),  # rates unknown
])
def test_eta_rules(backlog, rate_in, rate_out, state, severity, eta):
    judged = _judged(reader_hop(backlog, rate_in, rate_out, state), Thresholds(), arrived=50)
    assert (judged.severity, judged.eta_seconds) == (severity, eta)


@pytest.mark.parametrize("backlog, rate_in, rate_out, severity, eta, note", [
    # Behind by no more than the 120 records that arrived in the 12 s window: a commit is merely due.
    (100, 10.0, 0.0, Severity.OK, None, "no commit yet"),
    (100, 10.0, 4.0, Severity.OK, 25.0, ""),  # one 5 s step of commits caught, not two
    (120, 10.0, 4.0, Severity.OK, 30.0, ""),  # exactly the window's input
    # Behind by more than arrived meanwhile: falling behind, whatever the steps.
    (121, 10.0, 4.0, Severity.WARN, NEVER, "reads slower than the topic grows"),
    (121, 10.0, 0.0, Severity.WARN, NEVER, "committed nothing between the readings"),
])
def test_a_reader_behind_by_less_than_the_window_brought_is_between_commits(backlog, rate_in, rate_out,
                                                                             severity, eta, note):
    judged = _judged(reader_hop(backlog, rate_in, rate_out), Thresholds(), arrived=120)
    assert (judged.severity, judged.eta_seconds, judged.note) == (severity, eta, note)


def test_a_sink_connector_that_committed_nothing_yet_has_an_unknown_backlog():
    from streamctl.model.connect import Connector

    partitions = (PartitionState("t", 0, 1, (1,), (1,), 0, 50),)
    snap = KafkaSnapshot(0.0, "c", (), 1, False, (Topic("t", False, partitions),))
    sink = Connector("archive", "sink", "RUNNING", "w1", {"topics": "t"})
    [hop] = [h for h in derive(Readings(snap, replace(snap, taken_at=12.0), 12.0, connectors=[sink]),
                               Thresholds()).hops if h.reader]
    assert (hop.reader.id, hop.backlog, hop.rate_out, hop.severity) == ("connector:archive", None, None, Severity.OK)


def test_between_commits_counts_what_reached_the_readers_own_partitions():
    """A group reading 1 of a topic's 10 partitions, stuck for eight 12 s windows: the topic
    grew by 1,200 records, its partition by 120, and it is 960 behind. Only the records that
    reached its partition say whether a commit is merely due."""
    def reading(at: float, grown: int) -> KafkaSnapshot:
        partitions = tuple(PartitionState("t", p, 1, (1,), (1,), 0, 940 + grown) for p in range(10))
        return KafkaSnapshot(at, "c", (), 1, False, (Topic("t", False, partitions),),
                             (ConsumerGroup("g", "STABLE"),), (PartitionLag("g", "t", 0, 100, 0, 940 + grown),),
                             offsets_read_at=at)

    before, after = reading(0.0, 0), reading(12.0, 120)
    [hop] = [h for h in derive(Readings(before, after, 12.0), Thresholds()).hops if h.reader]
    assert (hop.rate_in, hop.backlog, hop.rate_out) == (100.0, 960, 0.0)
    assert (hop.severity, hop.eta_seconds, hop.note) == (Severity.WARN, NEVER, "committed nothing between the readings")


@pytest.mark.parametrize("seconds, text", [(None, "unknown"), (NEVER, "never"), (0.0, "drained"),
                                           (42.0, "42 s"), (900.0, "15 min"), (10_800.0, "3.0 h")])
def test_eta_text(seconds, text):
    assert eta_text(seconds) == text


def test_dot_and_mermaid_draw_every_node_and_hop():
    data = as_dict(demo("job-stopped"))
    graph = dot(data)
    assert graph.startswith("digraph pipeline {") and graph.count(" -> ") == len(data["hops"])
    assert '"topic:weblogs" -> "job:weblog-stats" [label="backlog ' in graph and "color=red" in graph
    chart = mermaid(data)
    assert chart.startswith("flowchart LR") and chart.count("-->") == len(data["hops"])
    assert "stroke:red" in chart


def test_screens_estimate_the_eta_over_their_refreshes():
    from streamctl.pipeline.estimate import DrainEstimator

    estimate = DrainEstimator(Thresholds())
    assert estimate.observe("g", 1000.0, 0, 100, 100, stopped=False) == (None, Severity.OK)  # one reading
    # 10 s later: read 200 (20/s), the topic grew by 100 (10/s); 0 behind... then 100 behind at 20/s.
    assert estimate.observe("g", 1010.0, 200, 300, 100, stopped=False) == (5.0, Severity.OK)
    assert estimate.observe("g", 1020.0, 200, 400, 200, stopped=True)[0] == NEVER  # stopped since
    assert estimate.observe("other", 1020.0, 5, 5, 0, stopped=True) == (0.0, Severity.OK)  # caught up
