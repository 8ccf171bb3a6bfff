"""Pilot tests of the Kafka Connect screen and the Overview's Connect card against the session
sandbox's real worker and its demo connector weblog-archive; a failed task's trace from an
answer captured from that worker (tests/fixtures/connect)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from streamctl.backends.connect import ConnectUnreachable, _connector
from streamctl.dashboard.source import make_dashboard
from streamctl.demo.connect_worker import DEMO_CONNECTOR, url
from streamctl.model.connect import ConnectCluster
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.connect import ConnectScreen
from streamctl.tui.screens.overview import OverviewScreen
from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.widgets.health_card import HealthCard
from tests.faults.pilot import banner, card, describe, rows, until
from tests.integration.kafka_helpers import free_address, write_context
from tests.tui.read_only import preview_only
from tests.tui.recorded import RecordedSource

FIXTURES = Path(__file__).parent.parent / "fixtures" / "connect"
OPERATIONS = ("p", "u", "x", "t", "d")  # pause, resume, stop, restart, delete


# ---- the sandbox's worker -----------------------------------------------------------------

@pytest.fixture
def worker(sandbox, monkeypatch, tmp_path) -> str:
    """The worker's REST URL once the demo connector runs its task; audit log under tmp_path."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    base = url(sandbox.state)
    assert base, "the sandbox runs no Connect worker"
    sandbox.wait_until(lambda: _states_or_none(base) == ("RUNNING", ["RUNNING"]), timeout=120,
                       what=f"{DEMO_CONNECTOR} and its task RUNNING")
    return base


def _status(base: str) -> dict:
    response = httpx.get(f"{base}/connectors/{DEMO_CONNECTOR}/status", timeout=10)
    response.raise_for_status()
    return response.json()


def _states(base: str) -> tuple[str, list[str]]:
    status = _status(base)
    return status["connector"]["state"], [t["state"] for t in status["tasks"]]


def _states_or_none(base: str) -> tuple[str, list[str]] | None:
    """None while the worker has no status for it (a moment after it was configured: 404)."""
    try:
        return _states(base)
    except httpx.HTTPStatusError:
        return None


def _audit(tmp_path: Path) -> list[dict]:
    path = tmp_path / "state" / "streamctl" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def app_for(config_path, context: str = "sandbox", read_only: bool = False) -> StreamctlApp:
    return StreamctlApp(make_dashboard(config_path, context, read_only), refresh_interval=2.0)


def demo_row(app) -> list[str] | None:
    return {r[0]: r for r in rows(app, "#connector-list")}.get(DEMO_CONNECTOR)


async def open_demo_connector(app, pilot) -> None:
    """The Connect screen with weblog-archive highlighted (the filter keeps it alone)."""
    await pilot.press("8")
    await until(pilot, lambda: isinstance(app.screen, ConnectScreen) and demo_row(app), 60,
                "weblog-archive listed", lambda: describe(app))
    await pilot.press("slash", *DEMO_CONNECTOR, "enter")
    await until(pilot, lambda: rows(app, "#connector-tasks"), 30, "its tasks", lambda: describe(app))


async def plan_and_execute(app, pilot, key: str, before: str, after: str) -> None:
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, PlanDialog) and rows(app, "#plan-changes"), 30,
                "the plan", lambda: describe(app))
    assert rows(app, "#plan-changes")[0][:4] == [f"connector {DEMO_CONNECTOR}", "state", before, after]
    await pilot.click("#execute")
    await until(pilot, lambda: not isinstance(app.screen, PlanDialog), 60, "the operation to finish",
                lambda: describe(app))
    await until(pilot, lambda: (demo_row(app) or [None] * 3)[2] == after, 30, f"the row showing {after}",
                lambda: describe(app))


async def test_screen_lists_the_demo_connector_and_its_task(sandbox, worker):
    app = app_for(sandbox.config_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_demo_connector(app, pilot)
        name, kind, state, tasks, failed, klass, topics, worker_id = demo_row(app)
        assert (name, kind, state, tasks, failed) == (DEMO_CONNECTOR, "sink", "RUNNING", "1/1", "")
        assert (klass, topics) == ("FileStreamSinkConnector", "weblog-stats")
        status = _status(worker)
        assert worker_id == status["connector"]["worker_id"]
        assert rows(app, "#connector-tasks") == [["0", "RUNNING", status["tasks"][0]["worker_id"], ""]]
        assert banner(app) is None
        labels = [label for label, _, _ in app.palette_entries()]
        assert f"pause connector {DEMO_CONNECTOR}" in labels and "show connect" in labels


async def test_pause_and_resume_through_the_dialog(sandbox, worker, tmp_path):
    app = app_for(sandbox.config_path)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await open_demo_connector(app, pilot)
            await plan_and_execute(app, pilot, "p", "RUNNING", "PAUSED")
            assert _states(worker)[0] == "PAUSED"
            await plan_and_execute(app, pilot, "u", "PAUSED", "RUNNING")
            assert _states(worker)[0] == "RUNNING"
    finally:  # the demo connector runs for whoever comes next
        if _states(worker)[0] != "RUNNING":
            httpx.put(f"{worker}/connectors/{DEMO_CONNECTOR}/resume", timeout=10)
    assert [(r["operation"], r["parameters"]["connector"], r["result"]) for r in _audit(tmp_path)] == [
        ("connect.pause", DEMO_CONNECTOR, "ok"), ("connect.resume", DEMO_CONNECTOR, "ok")]


async def test_read_only_dashboard_previews_every_connector_operation_and_runs_none(sandbox, worker, tmp_path):
    app = app_for(sandbox.config_path, read_only=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_demo_connector(app, pilot)
        opened = [await preview_only(app, pilot, key) for key in OPERATIONS]
        assert opened.count(PlanDialog) == 4  # restart asks its options first
        assert [label for label, kind, _ in app.palette_entries() if kind == "operation"]
    assert _states(worker) == ("RUNNING", ["RUNNING"])
    assert _audit(tmp_path) == []


async def test_overview_card_summarises_connect_and_opens_its_screen(sandbox, worker):
    app = app_for(sandbox.config_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: card(app, "connect") in ("OK", "WARN", "CRIT"), 90, "the Connect card",
                    lambda: describe(app))
        figures = str(app.screen.query_one("#card-connect", HealthCard).content)
        assert re.fullmatch(r"\d+ connectors?\n\d+/\d+ tasks running(\n\d+ tasks? FAILED)?", figures), figures
        await pilot.click("#card-connect")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen), 10, "the Connect screen")
        await pilot.press("1")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen), 10, "the Overview")
        app.screen.query_one("#card-connect", HealthCard).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen), 10, "the Connect screen (Enter)")


async def test_unreachable_worker_shows_a_banner_and_a_critical_card(sandbox, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers,
                           connect={"urls": [f"http://{free_address()}"], "timeout": 2})
    app = app_for(config, context="it")
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: card(app, "connect") == "CRIT", 60, "the CRIT Connect card", lambda: describe(app))
        await pilot.press("8")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen) and banner(app), 30, "the error banner",
                    lambda: describe(app))
        assert "Connect unreachable" in banner(app) and "connection refused" in banner(app)
        assert rows(app, "#connector-list") == []


# ---- recorded answers ------------------------------------------------------------------------

@dataclass
class RecordedConnectSource(RecordedSource):
    """RecordedSource plus a Connect cluster as its worker answered (or an unreachable one)."""

    connect_fixture: str = "connectors_failed_task.json"

    def connect_cluster(self):
        if not self.connect_fixture:
            raise ConnectUnreachable("Connect unreachable: http://127.0.0.1:1: connection refused")
        listing = json.loads((FIXTURES / self.connect_fixture).read_text())
        return ConnectCluster("http://127.0.0.1:52609", "3.9.2", "5e9866f43ab8e7e4", "c",
                              tuple(_connector(n, e) for n, e in sorted(listing.items())))


async def test_a_failed_task_shows_its_first_trace_line_and_its_whole_trace():
    app = StreamctlApp(RecordedConnectSource(), refresh_interval=3600)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("8")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("slash", *"broken-sink", "enter")
        await pilot.pause()
        assert rows(app, "#connector-list")[0][:5] == ["broken-sink", "sink", "RUNNING", "0/1", "1"]
        (task,) = rows(app, "#connector-tasks")
        assert task[:2] == ["0", "FAILED"]
        assert task[3].startswith("org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file")
        pane = app.screen.query_one("#connector-trace")
        trace = str(app.screen.query_one("#trace-text").content)
        assert pane.border_title == "Trace of task broken-sink/0"
        assert trace.startswith(task[3]) and "\tat org.apache.kafka.connect.runtime.WorkerTask.run" in trace


async def test_the_screen_shows_a_banner_while_the_worker_is_unreachable():
    app = StreamctlApp(RecordedConnectSource(connect_fixture=""), refresh_interval=3600)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("8")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert banner(app) == "Connect unreachable: http://127.0.0.1:1: connection refused"
