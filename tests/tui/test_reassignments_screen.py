"""The Brokers screen's ways to reassignments on recorded data (no services): `d` opens the
Decommission form for the selected broker, `m` the Reassignments screen, which says when
nothing moves."""

from __future__ import annotations

from textual.widgets import DataTable

from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.dialogs.decommission import DecommissionDialog
from streamctl.tui.screens.reassignments import ReassignmentsScreen
from tests.tui.recorded import RecordedSource


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_d_opens_the_decommission_form_of_the_selected_broker():
    app = StreamctlApp(RecordedSource("healthy"), refresh_interval=3600)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("down", "d")
        await settle(pilot)
        assert isinstance(app.screen, DecommissionDialog)
        assert app.screen.broker == sorted(b.id for b in app.source.snapshot.brokers)[1]


async def test_m_opens_reassignments_which_says_nothing_moves():
    app = StreamctlApp(RecordedSource("healthy"), refresh_interval=3600)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ReassignmentsScreen)
        assert str(app.screen.query_one("#reassign-summary").render()) == "no reassignment in progress"
        assert app.screen.query_one(DataTable).row_count == 0
