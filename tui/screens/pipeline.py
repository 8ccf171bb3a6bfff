"""The pipeline map: every hop from source to sink (writers into topics, readers out of them)
with its health, rates, backlog, lag, when it drains and a stateful job's event-time lag (now minus
its watermark); rates over the last minute of refreshes. Enter opens the screen of the hop's reader (or writer)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import DataTable

from streamctl.model.pipeline import SCREENS, eta_text
from streamctl.pipeline.health import hop_name
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.filter_table import FilterTable

COLUMNS = ["hop", "health", "in/s", "out/s", "backlog", "lag (s)", "trend", "drains", "event-time lag (s)"]
HEALTH_STYLE = {"OK": "green", "WARN": "yellow", "CRIT": "bold red", "UNKNOWN": "magenta"}


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _row(pipeline, order: int, hop):
    """(key, cells, sort values): the key names the screen Enter opens."""
    node = hop.reader or hop.writer
    reading = hop.reader is not None
    cells = [hop_name(pipeline, hop), Text(hop.severity.value, style=HEALTH_STYLE[hop.severity.value]),
             _rate(hop.rate_in), _rate(hop.rate_out) if reading else "",
             "-" if hop.backlog is None else str(hop.backlog),
             "-" if hop.lag_seconds is None else f"{hop.lag_seconds:.0f}",
             hop.trend if reading else "", eta_text(hop.eta_seconds) if reading else "",
             "" if hop.event_time_lag_seconds is None else f"{hop.event_time_lag_seconds:.0f}"]
    key = f"{SCREENS[node.kind]}|{order}"
    return key, cells, [order, hop.severity.rank, hop.rate_in, hop.rate_out, hop.backlog, hop.lag_seconds,
                        hop.trend, -1 if hop.eta_seconds is None else hop.eta_seconds, hop.event_time_lag_seconds]


class PipelineScreen(DataScreen):
    heading = "Pipeline"

    def compose_body(self) -> ComposeResult:
        yield FilterTable(COLUMNS, id="pipeline")

    def fetch(self):
        pipeline = self.source.pipeline_map()
        return pipeline, [_row(pipeline, i, hop) for i, hop in enumerate(pipeline.hops)]

    def show(self, data) -> None:
        pipeline, rows = data
        table = self.query_one(FilterTable)
        window = f"rates over {pipeline.window_seconds:.0f} s" if pipeline.window_seconds else \
            "rates after the next refresh"
        table.border_title = f"{self.heading} ({window})"
        table.set_rows(rows)
        if pipeline.errors:
            from streamctl.tui.widgets.error_banner import ErrorBanner

            self.query_one(ErrorBanner).show_error(f"partial: {pipeline.errors[0]}")

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        if (key := event.row_key.value) is not None:  # rows are keyed `screen|...`
            self.app.switch_mode(key.split("|")[0])
