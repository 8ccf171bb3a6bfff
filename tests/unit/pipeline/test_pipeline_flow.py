"""The pipeline flow drawn from its sources (streamctl/pipeline/flow.py): on the demo's captured
readings, on a stopped job, and on shapes the demo has not (a diamond, a cycle)."""

from __future__ import annotations

from rich.console import Console

from streamctl.model.health import Severity
from streamctl.model.pipeline import Hop, Node, PipelineMap
from streamctl.pipeline.derive import derive
from streamctl.pipeline.flow import branches, rich_tree, worst_first
from streamctl.thresholds import Thresholds
from tests.fixtures.capture_pipeline import load


def flat(found, depth: int = 0) -> list[tuple[int, str, str]]:
    """(depth, text, screen) for every branch, drawing order."""
    rows = []
    for branch in found:
        rows.append((depth, branch.label.plain, branch.screen))
        rows += flat(branch.children, depth + 1)
    return rows


def test_the_demo_flows_from_the_flume_agent_to_the_sinks():
    rows = flat(branches(derive(load("demo"), Thresholds())))
    shape = [(depth, text.split("  ")[0], screen) for depth, text, screen in rows]
    assert shape == [
        (0, "flume weblogs", "agents"),
        (1, "━▶ weblogs", "topics"),
        (2, "━▶ job weblog-stats", "jobs"),
        (3, "━▶ weblog-stats", "topics"),
        (4, "━▶ connector weblog-archive", "connect"),
        (2, "━▶ streams weblog-statuses", "streams"),
        (3, "━▶ weblog-status-counts", "topics"),
        (4, "━▶ group weblog-status-watch", "groups"),
    ]
    assert rows[1][1].endswith("/s")  # into a topic: its rate
    assert "backlog" in rows[2][1] and "drain" in rows[2][1]  # out of it: backlog and ETA


def test_a_stopped_job_is_drawn_red_with_its_eta_and_the_rest_green():
    found = branches(derive(load("job-stopped"), Thresholds()))
    topic = found[0].children[0]
    job = topic.children[0]
    assert job.label.plain.startswith("━▶ job weblog-stats")
    assert "CRIT · backlog" in job.label.plain and job.label.plain.endswith("drains never")
    assert {span.style for span in job.label.spans} >= {"bold red"}
    assert "bold red" not in {span.style for span in topic.label.spans}
    assert "green" in {span.style for span in topic.label.spans}


def _hop(writer=None, reader=None, topic="t", severity=Severity.OK) -> Hop:
    return Hop(writer, reader, topic, rate_in=1.0, rate_out=1.0 if reader else None, backlog=0 if reader else None,
               eta_seconds=0.0 if reader else None, severity=severity)


def test_a_node_reached_twice_is_drawn_once_then_named_above():
    src, a, b = Node("flume", "src"), Node("job", "a"), Node("streams", "b")
    t1, t2, sink = Node("topic", "t1"), Node("topic", "t2"), Node("connector", "sink")
    pipeline = PipelineMap((src, t1, a, b, t2, sink), (
        _hop(writer=src, topic="t1"), _hop(reader=a, topic="t1"), _hop(reader=b, topic="t1"),
        _hop(writer=a, topic="t2"), _hop(writer=b, topic="t2"), _hop(reader=sink, topic="t2")), 10.0)
    rows = [(depth, text.split("  ")[0]) for depth, text, _ in flat(branches(pipeline))]
    assert rows == [(0, "flume src"), (1, "━▶ t1"), (2, "━▶ job a"), (3, "━▶ t2"), (4, "━▶ connector sink"),
                    (2, "━▶ streams b"), (3, "━▶ t2 (above)")]


def test_a_cycle_is_drawn_once_without_a_source():
    app, topic = Node("streams", "loop"), Node("topic", "t")
    pipeline = PipelineMap((topic, app), (_hop(reader=app, topic="t"), _hop(writer=app, topic="t")), 10.0)
    rows = [(depth, text.split("  ")[0]) for depth, text, _ in flat(branches(pipeline))]
    assert rows == [(0, "streams loop"), (1, "━▶ t"), (2, "━▶ streams loop (above)")]


def test_the_rich_tree_prints_the_flow_as_text():
    console = Console(width=120, color_system=None, record=True)
    console.print(rich_tree(derive(load("demo"), Thresholds())))
    text = console.export_text()
    assert text.splitlines()[0] == "flume weblogs"
    assert "└── ━▶ weblogs" in text and "━▶ connector weblog-archive" in text


def test_the_overview_draws_the_worst_sources_first_within_its_limit():
    sources = [Node("flume", f"agent-{i}") for i in range(4)]
    readers = [Node("group", f"g{i}", "STABLE") for i in range(4)]
    nodes = (*sources, *readers, *(Node("topic", f"t{i}") for i in range(4)))
    hops = tuple(h for i in range(4) for h in (
        _hop(writer=sources[i], topic=f"t{i}"),
        _hop(reader=readers[i], topic=f"t{i}", severity=Severity.CRIT if i == 2 else Severity.OK)))
    kept, left_out = worst_first(branches(PipelineMap(nodes, hops, 10.0)), limit=7)
    assert [b.label.plain for b in kept] == ["flume agent-2", "flume agent-0"]  # 3 nodes each
    assert left_out == 6
    kept, left_out = worst_first(branches(PipelineMap(nodes, hops, 10.0)), limit=1)
    assert [b.label.plain for b in kept] == ["flume agent-2"] and left_out == 9  # the worst, whole, always
