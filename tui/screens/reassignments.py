"""Reassignments: each partition being moved between brokers (replicas, adding, removing), a
progress bar, bytes copied, and the rate and ETA between this screen's successive refreshes;
"no reassignment in progress" otherwise. `c` cancels the moves in flight through the plan dialog."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from streamctl.kafka.reassign.progress import Reading, figures, human_bytes, summary
from streamctl.times import short_duration
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.literal_table import LiteralTable

BAR_WIDTH = 20


def bar(percent: float | None) -> Text:
    if percent is None:
        return Text("-")
    filled = round(min(100.0, max(0.0, percent)) / 100 * BAR_WIDTH)
    return Text("━" * filled, style="cyan") + Text("━" * (BAR_WIDTH - filled), style="grey37") + \
        Text(f" {percent:3.0f}%")


class ReassignmentsScreen(DataScreen):
    heading = "Reassignments"
    BINDINGS = [
        Binding("c", "cancel_reassignment", "Cancel moves", id="reassignments.cancel"),
    ]
    previous: Reading | None = None  # the last refresh's reading (the rate's start)

    def compose_body(self) -> ComposeResult:
        yield Static(id="reassign-summary")
        yield LiteralTable(id="reassignments", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("partition", "replicas", "adding", "removing", "progress",
                                              "bytes done / total", "rate", "ETA")
        super().on_mount()

    def fetch(self) -> dict:
        now = self.source.reassignment()
        before, self.previous = self.previous, now  # fetch runs in one exclusive worker at a time
        return figures(before, now)

    def show(self, status: dict) -> None:
        self.query_one("#reassign-summary", Static).update(
            Text(summary(status) if status["in_progress"] else "no reassignment in progress"))
        table = self.query_one(DataTable)
        table.clear()
        for p in status["partitions"]:
            done = "-" if p["bytes_done"] is None else f"{human_bytes(p['bytes_done'])} / {human_bytes(p['bytes_total'])}"
            table.add_row(p["partition"], _ids(p["replicas"]), _ids(p["adding"]), _ids(p["removing"]), bar(p["percent"]),
                          done, "-" if p["rate_bytes_per_s"] is None else f"{human_bytes(p['rate_bytes_per_s'])}/s",
                          "-" if p["eta_seconds"] is None else short_duration(p["eta_seconds"]), key=p["partition"])

    def action_cancel_reassignment(self) -> None:
        self.app.show_plan(self.source.cancel_reassignment())


def _ids(brokers: list[int]) -> str:
    return ",".join(str(b) for b in brokers)
