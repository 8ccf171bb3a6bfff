"""The Groups screen says when its snapshot is partial: a group listing that timed out must not
look like a cluster without groups. Snapshots recorded from the sandbox; the error texts are the
ones backends/kafka/cluster.py writes for those failures."""

from __future__ import annotations

from dataclasses import replace

from streamctl.tui.app import StreamctlApp
from streamctl.tui.widgets.error_banner import ErrorBanner
from tests.tui.recorded import RecordedSource

LISTING_TIMED_OUT = "consumer groups: listing consumer groups timed out"


def groups_app(source: RecordedSource) -> StreamctlApp:
    return StreamctlApp(source, refresh_interval=3600, clock=lambda: "12:00:00")


async def show_groups(pilot) -> ErrorBanner:
    await pilot.press("4")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.screen.query_one(ErrorBanner)


async def test_a_listing_that_timed_out_shows_the_banner_and_a_full_one_clears_it():
    source = RecordedSource()
    whole = source.snapshot
    source.snapshot = replace(whole, groups=(), lags=(), errors=(LISTING_TIMED_OUT,))
    app = groups_app(source)
    async with app.run_test(size=(120, 40)) as pilot:
        banner = await show_groups(pilot)
        assert banner.has_class("-shown") and banner.text == f"partial read: {LISTING_TIMED_OUT}"

        source.snapshot = whole
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not banner.has_class("-shown")
        assert app.screen.query_one("#groups").table.row_count == len(whole.groups) > 0


async def test_missing_topic_configs_leave_the_groups_screen_quiet():
    source = RecordedSource()
    source.snapshot = replace(source.snapshot, errors=("configs of orders: timed out",))
    app = groups_app(source)
    async with app.run_test(size=(120, 40)) as pilot:
        banner = await show_groups(pilot)
        assert not banner.has_class("-shown")
