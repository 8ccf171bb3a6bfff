"""SVG snapshots of each screen from recorded (captured) data: layout regressions show as diffs.

Regenerate after an intended change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from streamctl.tui.app import StreamctlApp
from streamctl.tui.widgets.error_banner import ErrorBanner
from tests.tui.recorded import RecordedSource

SIZE = (100, 30)


def app(fixture: str = "healthy", **kwargs) -> StreamctlApp:
    return StreamctlApp(RecordedSource(fixture, **kwargs), refresh_interval=3600, clock=lambda: "12:00:00")


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_overview(snap_compare):
    assert snap_compare(app("broker-down"), terminal_size=SIZE, run_before=settle)


def test_brokers(snap_compare):
    async def run_before(pilot):
        await pilot.press("2")
        await settle(pilot)

    assert snap_compare(app("broker-down"), terminal_size=SIZE, run_before=run_before)


def test_topics(snap_compare):
    async def run_before(pilot):
        await pilot.press("3")
        await settle(pilot)

    assert snap_compare(app("broker-down"), terminal_size=SIZE, run_before=run_before)


def test_topic_detail_highlights_out_of_sync_replicas(snap_compare):
    async def run_before(pilot):
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("slash", *"orders", "enter", "enter")
        await settle(pilot)

    assert snap_compare(app("broker-down"), terminal_size=SIZE, run_before=run_before)


def test_groups(snap_compare):
    async def run_before(pilot):
        await pilot.press("4")
        await settle(pilot)

    assert snap_compare(app("retention-deleted", statuses={"billing": "STALLED"}), terminal_size=SIZE,
                        run_before=run_before)


def test_reset_offsets_form(snap_compare):
    async def run_before(pilot):
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("o")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare):
    async def run_before(pilot):
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)


def test_80x24_read_only(snap_compare):
    async def run_before(pilot):
        await pilot.press("3")
        await settle(pilot)

    assert snap_compare(app(read_only=True), terminal_size=(80, 24), run_before=run_before)


def test_streams_app_stopped(snap_compare):
    async def run_before(pilot):
        await pilot.press("9")
        await settle(pilot)

    assert snap_compare(app("streams-stopped"), terminal_size=SIZE, run_before=run_before)


def test_pipeline_with_the_spark_job_stopped(snap_compare):
    async def run_before(pilot):
        await pilot.press("0")
        await settle(pilot)

    assert snap_compare(app(pipeline_scene="job-stopped"), terminal_size=(120, 30), run_before=run_before)


async def test_enter_on_a_hop_opens_its_readers_screen():
    dashboard = app(pipeline_scene="job-stopped")
    async with dashboard.run_test(size=(120, 30)) as pilot:
        await pilot.press("0")
        await settle(pilot)
        await pilot.press("slash", *"via job", "enter", "enter")
        await settle(pilot)
        assert dashboard.current_mode == "jobs"


def _flow_node(dashboard, starts: str):
    from streamctl.tui.widgets.pipeline_flow import PipelineFlow

    flow = dashboard.screen.query_one(PipelineFlow)
    found = [n for n in _walk(flow.root) if n.label.plain.startswith(starts)]
    return flow, found[0] if found else None


def _walk(node):
    for child in node.children:
        yield child
        yield from _walk(child)


async def test_the_overview_flow_colours_a_stopped_job_and_enter_opens_jobs():
    dashboard = app(pipeline_scene="job-stopped")
    async with dashboard.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await settle(pilot)
        flow, job = _flow_node(dashboard, "━▶ job weblog-stats")
        assert job is not None and "CRIT" in job.label.plain and "drains never" in job.label.plain
        assert flow.border_subtitle == "rates over 15 s"
        flow.focus()
        flow.move_cursor(job)
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert dashboard.current_mode == "jobs"


async def test_an_unreadable_flow_says_so_and_the_cards_stand():
    from streamctl.errors import StreamctlError

    class Unreadable(RecordedSource):
        def pipeline_map(self):
            raise StreamctlError("Kafka: no broker answered in 5 s")

    dashboard = StreamctlApp(Unreadable("healthy"), refresh_interval=3600, clock=lambda: "12:00:00")
    async with dashboard.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await settle(pilot)
        flow, _ = _flow_node(dashboard, "")
        assert [n.label.plain for n in flow.root.children] == ["pipeline unread: Kafka: no broker answered in 5 s"]
        assert dashboard.screen.query_one("#card-kafka").border_subtitle == "WARN"  # billing lags, as recorded
        assert not dashboard.screen.query_one(ErrorBanner).display
