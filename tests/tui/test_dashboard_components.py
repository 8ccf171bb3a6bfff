"""Pilot tests of the ZooKeeper and Flume screens against the real sandbox."""

from __future__ import annotations

import itertools

import pytest
from textual.widgets import DataTable, Tree

from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.widgets.error_banner import ErrorBanner
from tests.faults.pilot import banner
from tests.tui.read_only import preview_only
from tests.tui.recorded import RecordedSource

pytestmark = pytest.mark.integration


@pytest.fixture
def dashboard_env(sandbox, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(sandbox.xdg_state))  # the sandbox's own state dir


def app_for(sandbox, read_only: bool = False) -> StreamctlApp:
    ticks = itertools.count()
    return StreamctlApp(make_dashboard(sandbox.config_path, "sandbox", read_only), refresh_interval=60,
                        clock=lambda: f"tick {next(ticks)}")


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


def rows(app, selector: str) -> list[list[str]]:
    table = app.screen.query_one(selector, DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_agents_screen_shows_the_demo_agent(sandbox, dashboard_env):
    app = app_for(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("6")
        await settle(app, pilot)
        table = rows(app, "#agents")
        components = {(r[0], r[1]) for r in table}
        assert {("weblogs", "source"), ("weblogs", "channel"), ("weblogs", "sink")} <= components, table
        channel = next(r for r in table if r[1] == "channel")
        assert "%" in channel[5], "the channel row carries a fill gauge"


async def test_agents_read_only_previews_but_cannot_start_or_stop(sandbox, dashboard_env):
    app = app_for(sandbox, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("6")
        await settle(app, pilot)
        for key in ("x", "g"):
            assert await preview_only(app, pilot, key) is PlanDialog
    assert sandbox.sandbox.service("flume-weblogs")[1].alive


async def test_zookeeper_screen_and_its_own_error_banner(sandbox, dashboard_env):
    app = app_for(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("5")
        await settle(app, pilot)
        ensemble = rows(app, "#ensemble")
        assert ensemble[0][0] == sandbox.state.zookeeper_hosts and ensemble[0][1] == "standalone"
        tree = app.screen.query_one(Tree)
        assert "brokers" in {str(child.label) for child in tree.root.children}
        await pilot.press("3")
        await settle(app, pilot)
        sandbox.sandbox.stop_service("zookeeper")
        try:
            await pilot.press("5")
            await pilot.press("r")
            await settle(app, pilot)
            assert app.screen.query_one(ErrorBanner).has_class("-shown")
            await pilot.press("3")
            before = app.screen.sub_title
            # A broker whose request threads wait on the stopped ZooKeeper (topic configs) can
            # time out one metadata request; Topics must come back with data within a few tries.
            errors = []
            for _ in range(4):
                await pilot.press("r")
                await settle(app, pilot)
                banner = app.screen.query_one(ErrorBanner)
                if not banner.has_class("-shown"):
                    break
                errors.append(banner.text)
            assert not banner.has_class("-shown"), errors
            assert app.screen.sub_title != before, "Topics refreshed while ZooKeeper is down"
            assert app.is_running
        finally:
            sandbox.sandbox.start_service("zookeeper")
            sandbox.wait_until(lambda: {1, 2, 3} <= {b.id for b in sandbox.kafka().metadata().brokers}
                               and not any(p.under_replicated for p in sandbox.kafka().metadata().partitions),
                               timeout=90, what="the cluster healthy again after ZooKeeper")


class NoZooKeeperSource(RecordedSource):
    """A context without a zookeeper section, as every KRaft-mode context is."""

    def zookeeper(self):
        return None

    def zk_ensemble(self) -> list:
        return []


async def test_the_zookeeper_screen_without_zookeeper_says_why_and_the_app_lives_on():
    app = StreamctlApp(NoZooKeeperSource("healthy"), refresh_interval=3600)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "no zookeeper section in this context" in (banner(app) or "")
        await pilot.press("down", "enter", "2")  # the tree's empty root, then another screen
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running and app.current_mode == "brokers"
