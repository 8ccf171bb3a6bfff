"""SVG snapshots of each screen from recorded (captured) data: layout regressions show as diffs.

Regenerate after an intended change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from streamctl.tui.app import StreamctlApp
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
