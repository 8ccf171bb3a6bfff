"""Topics: a filterable, sortable table; Enter opens the topic's partitions and configs."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable

from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.filter_table import FilterTable

COLUMNS = ["topic", "partitions", "rf", "URP", "offline", "under-min-ISR", "messages", "retention"]


def _issue(count: int) -> Text:
    return Text(str(count), style="bold red" if count else "")


def _retention(ms: str | None) -> str:
    if ms is None:
        return "-"
    value = int(ms)
    if value < 0:
        return "forever"
    hours = value / 3_600_000
    return f"{hours / 24:g}d" if hours >= 24 else f"{hours:g}h"


def _row(t):
    """(key, cells, sort values) of one topic, computed in the worker thread."""
    parts = t.partitions
    urp = sum(p.under_replicated for p in parts)
    offline = sum(p.offline for p in parts)
    under_min = sum(p.under_min_isr for p in parts)
    messages = sum(p.messages or 0 for p in parts)
    retention = t.configs.get("retention.ms")
    cells = [t.name, str(len(parts)), str(t.replication_factor), _issue(urp), _issue(offline),
             _issue(under_min), str(messages), _retention(retention)]
    sort = [t.name, len(parts), t.replication_factor, urp, offline, under_min, messages,
            int(retention) if retention else None]
    return t.name, cells, sort


class TopicsScreen(DataScreen):
    heading = "Topics"
    BINDINGS = [
        Binding("c", "create_topic", "Create topic", id="topics.create"),
        Binding("e", "elect_leaders", "Elect leaders", id="topics.elect"),
    ]

    def compose_body(self) -> ComposeResult:
        yield FilterTable(COLUMNS, id="topics")

    def fetch(self):
        snap = self.source.kafka_snapshot(lag_time=False, group_details=False)
        return snap, [_row(t) for t in snap.topics]

    def show(self, data) -> None:
        snap, rows = data
        self.app.last_kafka = snap
        self.query_one(FilterTable).set_rows(rows)

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        from streamctl.tui.screens.topic_detail import TopicDetailScreen

        if (name := event.row_key.value) is not None:  # rows are keyed by topic name
            self.app.push_screen(TopicDetailScreen(name))

    def action_create_topic(self) -> None:
        from streamctl.tui.screens.dialogs.create_topic import CreateTopicDialog

        self.app.open_operation(CreateTopicDialog())

    def action_elect_leaders(self) -> None:
        self.app.elect_leaders()
