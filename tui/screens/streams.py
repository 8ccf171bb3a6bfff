"""Kafka Streams apps: status, instances and threads, inputs, internal topics, lag and when it
drains (rates over the last minute of refreshes); for the highlighted app its topics (input,
repartition, changelog, output) with records and lag, and its instances. Reset an app from
the CLI (`streamctl streams reset APP`): it deletes topics."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from streamctl.model.health import Severity
from streamctl.model.pipeline import eta_text
from streamctl.model.streams import IDLE, STOPPED
from streamctl.pipeline.estimate import DrainEstimator
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.screens.groups import DRAIN_STYLE
from streamctl.tui.widgets.filter_table import FilterTable
from streamctl.tui.widgets.literal_table import LiteralTable

COLUMNS = ["app", "status", "group state", "instances", "threads", "inputs", "internal topics", "lag", "drains"]
STATUS_STYLE = {"RUNNING": "green", "REBALANCING": "cyan", "STOPPED": "bold red", "IDLE": "yellow"}


def _row(app, eta: float | None, severity: Severity):
    """(key, cells, sort values) of one app."""
    inputs = ", ".join(t.name for t in app.by_role("input"))
    internal = len(app.internal_topics)
    cells = [app.app_id, Text(app.status, style=STATUS_STYLE.get(app.status, "dim")), app.group_state,
             str(len(app.instances)) if app.members_read else "?", str(app.threads), inputs, str(internal),
             str(app.lag), Text("-" if eta is None else eta_text(eta), style=DRAIN_STYLE[severity])]
    return app.app_id, cells, [app.app_id, app.status, app.group_state, len(app.instances), app.threads,
                               inputs, internal, app.lag, -1 if eta is None else eta]


def _topic_cells(topic) -> list:
    under = ", ".join(map(str, topic.under_min_isr))
    return [topic.name, topic.role, str(topic.partitions), "-" if topic.records is None else str(topic.records),
            "-" if topic.lag is None else str(topic.lag),
            Text(f"under min ISR: {under}", style="bold red") if under else ""]


def _instances_text(app) -> Text:
    if not app.members_read:
        return Text("instances: not read", style="dim")
    if not app.instances:
        return Text("no running instance", style="yellow")
    return Text("instances: " + "; ".join(f"{i.client}@{i.host} ({i.threads} threads, {i.partitions} partitions)"
                                         for i in app.instances))


class StreamsScreen(DataScreen):
    heading = "Kafka Streams apps"

    def __init__(self) -> None:
        super().__init__()
        self.apps: dict = {}
        self.drains: DrainEstimator | None = None  # made on the first refresh, with the context's thresholds

    def compose_body(self) -> ComposeResult:
        yield FilterTable(COLUMNS, id="streams-apps", table_id="streams-list")
        topics = LiteralTable(id="streams-topics", cursor_type="row", zebra_stripes=True)
        topics.border_title = "Topics"
        yield topics
        yield Static(id="streams-instances")

    def on_mount(self) -> None:
        self.query_one("#streams-topics", DataTable).add_columns("topic", "role", "partitions", "records", "lag", "")
        super().on_mount()

    def fetch(self):
        return time.time(), self.source.streams_apps()

    def show(self, data) -> None:
        at, apps = data
        self.apps = {app.app_id: app for app in apps}
        if self.drains is None:
            self.drains = DrainEstimator(self.source.thresholds)
        rows = []
        for app in apps:
            committed, log_end = app.positions()
            eta, severity = self.drains.observe(app.app_id, at, committed, log_end, app.lag, app.status in (STOPPED, IDLE))
            rows.append(_row(app, eta, severity))
        table = self.query_one(FilterTable)
        table.set_rows(rows)
        self._show_detail(table.selected_key())

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self.query_one(FilterTable).table:
            self._show_detail(event.row_key.value)

    def _show_detail(self, app_id: str | None) -> None:
        app = self.apps.get(app_id) if app_id is not None else None
        topics = self.query_one("#streams-topics", DataTable)
        topics.clear()
        if app is None:
            self.query_one("#streams-instances", Static).update("")
            return
        for topic in app.topics:
            topics.add_row(*_topic_cells(topic), key=topic.name)
        self.query_one("#streams-instances", Static).update(_instances_text(app))
