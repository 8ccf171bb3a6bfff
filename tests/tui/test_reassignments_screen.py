"""The Brokers screen's ways to reassignments on recorded data (no services): `d` opens the
Decommission form for the selected broker, `a` its add-broker form, `b` the rebalance form, `m`
the Reassignments screen, which says when nothing moves; a topic's `f` its replication factor form."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from streamctl.kafka.reassign.plans import Job
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.dialogs.reassign import ReassignDialog, ReplicationFactorDialog
from streamctl.tui.screens.reassignments import ReassignmentsScreen
from streamctl.tui.screens.topic_detail import TopicDetailScreen
from tests.tui.recorded import RecordedSource


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("key, job", [
    ("d", lambda broker: Job(decommission=broker)),
    ("a", lambda broker: Job(add_broker=broker)),
    ("b", lambda broker: Job(rebalance=True)),
])
async def test_a_brokers_key_opens_its_reassignment_form_for_the_selected_broker(key, job):
    app = StreamctlApp(RecordedSource("healthy"), refresh_interval=3600)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("down", key)
        await settle(pilot)
        assert isinstance(app.screen, ReassignDialog)
        assert app.screen.job == job(sorted(b.id for b in app.source.snapshot.brokers)[1])


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


async def test_f_on_a_topic_opens_the_form_of_its_replication_factor():
    app = StreamctlApp(RecordedSource("healthy"), refresh_interval=3600)
    async with app.run_test(size=(120, 30)) as pilot:
        app.push_screen(TopicDetailScreen("orders"))
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ReplicationFactorDialog)
        assert app.screen.topic == "orders"
