"""Pilot helpers of the dashboard tests against a real sandbox: the app the CLI's own factory
builds, waiting for its workers, reading its tables, asking for an offset reset's plan."""

from __future__ import annotations

from textual.widgets import DataTable

from streamctl.dashboard.source import make_dashboard
from streamctl.tui.app import StreamctlApp
from streamctl.tui.screens.plan_dialog import PlanDialog
from streamctl.tui.widgets.filter_table import FilterTable
from tests.faults.pilot import until


def app_for(config, read_only: bool = False) -> StreamctlApp:
    return StreamctlApp(make_dashboard(config, "it", read_only), refresh_interval=60)


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def open_reset_plan(app, pilot, group: str) -> None:
    """Groups screen, filter to `group`, open the reset dialog and ask for its plan."""
    await pilot.press("4")
    await settle(app, pilot)
    await pilot.press("slash", *group, "enter")
    await until(pilot, lambda: app.screen.query_one(FilterTable).selected_key() == group, 30,
                f"{group} selected in the filtered table")
    await pilot.press("o")
    await until(pilot, lambda: app.screen.query("#plan"), 30, "the reset form")
    await pilot.click("#plan")
    await until(pilot, lambda: isinstance(app.screen, PlanDialog) and rows(app, "#plan-changes"), 60,
                "the reset plan")
    await settle(app, pilot)


def rows(app, selector: str = "DataTable") -> list[list[str]]:
    table = app.screen.query_one(selector, DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def plan_rows(app, pilot) -> list[list[str]]:
    """Press an open form's Plan; the plan dialog's rows once planned."""
    await pilot.click("#plan")
    await until(pilot, lambda: isinstance(app.screen, PlanDialog) and rows(app, "#plan-changes"), 60, "the plan")
    await settle(app, pilot)
    return rows(app, "#plan-changes")


async def execute_plan(app, pilot) -> None:
    """Press the plan dialog's Execute; back once the operation is done."""
    await pilot.click("#execute")
    await until(pilot, lambda: not isinstance(app.screen, PlanDialog), 60, "the operation done")
    await settle(app, pilot)
