"""Pilot tests of the Spark jobs screen against the session sandbox's real weblog-stats job.

The sandbox keeps the job's spec and run record under its XDG state dir, so the app runs with
that state dir (as `streamctl` would on the sandbox's host) and can stop and start the job.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from streamctl.backends.spark import CheckpointError, read_checkpoint
from streamctl.config import load_config
from streamctl.dashboard.source import make_dashboard
from streamctl.spark import launcher
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.jobs import JobsScreen
from streamctl.tui.screens.plan_dialog import PlanDialog
from tests.tui.read_only import preview_only

pytestmark = pytest.mark.integration

JOB = "weblog-stats"


@pytest.fixture
def job(sandbox, monkeypatch):
    """The sandbox context's job settings, once the job committed its first batch."""
    monkeypatch.setenv("XDG_STATE_HOME", str(sandbox.xdg_state))
    settings = load_config(sandbox.config_path).context("sandbox").spark.jobs[JOB]
    sandbox.wait_until(lambda: _committed(settings.checkpoint_dir) is not None, timeout=120,
                       what="the job's first committed batch")
    return settings


def _committed(directory):
    try:
        return read_checkpoint(directory).latest_committed
    except CheckpointError:
        return None


def app_for(sandbox, read_only: bool = False) -> StreamctlApp:
    return StreamctlApp(make_dashboard(sandbox.config_path, "sandbox", read_only), refresh_interval=60)


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def until(app, pilot, predicate, timeout: float = 30.0, what: str = "condition"):
    """Let workers and messages run until `predicate()` holds (the screen refreshes meanwhile)."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await settle(app, pilot)
        await pilot.pause(0.3)
    return value


def rows(app, selector: str) -> list[list[str]]:
    table = app.screen.query_one(selector, DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def job_row(app) -> list[str] | None:
    return {r[0]: r for r in rows(app, "#jobs DataTable")}.get(JOB)


async def open_jobs(app, pilot) -> None:
    await pilot.press("7")
    await settle(app, pilot)
    await pilot.press("slash", *JOB, "enter")  # the filter leaves the job highlighted
    await settle(app, pilot)


def audit_records(sandbox) -> list[dict]:
    path = sandbox.xdg_state / "streamctl" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_jobs_screen_shows_the_running_job_and_its_partitions(sandbox, job):
    app = app_for(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_jobs(app, pilot)
        assert isinstance(app.screen, JobsScreen)
        row = job_row(app)
        assert row is not None and row[1] == "running", row
        assert row[2].isdigit(), "a committed batch"
        assert row[7].isdigit(), "total lag read from Kafka"
        offsets = rows(app, "#job-offsets")
        assert [(r[0], r[1]) for r in offsets] == [("weblogs", "0"), ("weblogs", "1"), ("weblogs", "2")]
        assert all(r[2].isdigit() and r[3].isdigit() and int(r[3]) >= int(r[2]) for r in offsets), offsets


def progress_events(path: str) -> dict[int, dict]:
    events = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except ValueError:  # a line the job is still writing
            continue
        if event.get("event") == "progress":
            events[event["batchId"]] = event
    return events


def state_pane(app) -> tuple[re.Match, list[list[str]]] | None:
    """(the pane's headline matched, its operator rows) once it shows a batch with a watermark."""
    line = str(app.screen.query_one("#job-state-line", Static).render())
    headline = re.match(r"state of batch (\d+) · watermark (\S+): \S+ \S+ (behind|ahead of) now", line)
    operators = rows(app, "#job-state-operators")
    return (headline, operators) if headline and operators else None


async def test_the_state_pane_shows_the_jobs_operator_rows_and_watermark(sandbox, job):
    progress_file = launcher.load_spec(JOB).progress_file
    app = app_for(sandbox)
    async with app.run_test(size=(120, 50)) as pilot:
        await open_jobs(app, pilot)
        deadline = time.monotonic() + 120
        while (shown := state_pane(app)) is None:  # the job's first batches may carry no watermark yet
            assert time.monotonic() < deadline, str(app.screen.query_one("#job-state-line", Static).render())
            await pilot.press("r")
            await settle(app, pilot)  # the refresh, which reads the highlighted job's state
            await pilot.pause(1.0)
        headline, operators = shown
        # The batch the pane shows is in the job's progress file, with the same rows total and watermark.
        event = progress_events(progress_file)[int(headline[1])]
        [operator] = operators
        assert operator[:2] == ["0", "stateStoreSave"], operators
        assert operator[3] == str(event["stateOperators"][0]["numRowsTotal"]), (operator, event["stateOperators"])
        assert headline[2] == event["eventTime"]["watermark"]


async def test_read_only_dashboard_cannot_stop_or_start_a_job(sandbox, job):
    pid = launcher.load_run(JOB).pid
    audited = len(audit_records(sandbox))
    app = app_for(sandbox, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_jobs(app, pilot)
        for key in ("x", "g"):
            assert await preview_only(app, pilot, key) is PlanDialog
        assert isinstance(app.screen, JobsScreen)
    record = launcher.load_run(JOB)
    assert record.pid == pid and record.alive
    assert len(audit_records(sandbox)) == audited


async def test_stop_and_start_through_the_dialog(sandbox, job):
    try:
        await _stop_and_start(sandbox)
    finally:  # leave the shared job running for whoever comes next
        if not launcher.load_run(JOB).alive:
            sandbox.cli("jobs", "start", JOB, "--execute", timeout=240)


async def _stop_and_start(sandbox):
    before = launcher.load_run(JOB)
    app = app_for(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_jobs(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, PlanDialog)
        assert rows(app, "#plan-changes")[0][:4] == [f"job {JOB}", "state", f"running (pid {before.pid})", "stopped"]
        await pilot.click("#execute")
        await until(app, pilot, lambda: not isinstance(app.screen, PlanDialog), what="the stop to finish")
        assert not before.alive
        await until(app, pilot, lambda: (job_row(app) or [None, None])[1] == "stopped", what="the stopped state")
        assert (audit_records(sandbox)[-1]["operation"], audit_records(sandbox)[-1]["result"]) == ("jobs.stop", "ok")

        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, PlanDialog)
        assert rows(app, "#plan-changes")[0][:4] == [f"job {JOB}", "state", "stopped", "running"]
        await pilot.click("#execute")
        await until(app, pilot, lambda: not isinstance(app.screen, PlanDialog), timeout=120,
                    what="the start to finish")
        after = launcher.load_run(JOB)
        assert after.alive and after.pid != before.pid
        await until(app, pilot, lambda: (job_row(app) or [None, None])[1] == "running", what="the running state")
        assert (audit_records(sandbox)[-1]["operation"], audit_records(sandbox)[-1]["result"]) == ("jobs.start", "ok")
