"""Flume agents: per agent its sources, channels (fill gauge), sinks, rates and failures;
start and stop the highlighted agent through the plan dialog."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable

from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.literal_table import LiteralTable

GAUGE_WIDTH = 10


def gauge(pct: float | None) -> Text:
    if pct is None:
        return Text("-")
    filled = round(min(100.0, max(0.0, pct)) / 100 * GAUGE_WIDTH)
    style = "bold red" if pct >= 90 else "yellow" if pct >= 70 else "green"
    return Text("█" * filled, style=style) + Text("░" * (GAUGE_WIDTH - filled)) + Text(f" {pct:.0f}%")


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}/s"


def failures(new: int | None, totals: dict) -> Text:
    total = int(sum(totals.values())) if totals else 0
    text = Text(str(total))
    if new:
        text.append(f" (+{new})", style="bold red")
    return text


class AgentsScreen(DataScreen):
    heading = "Flume agents"
    BINDINGS = [
        Binding("g", "start_agent", "Start agent", id="agents.start"),
        Binding("x", "stop_agent", "Stop agent", id="agents.stop"),
    ]

    def compose_body(self) -> ComposeResult:
        yield LiteralTable(id="agents", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("agent", "component", "name", "events", "rate", "fill",
                                              "failures", "note")
        super().on_mount()

    def fetch(self):
        rows = []
        for agent in self.source.flume_agents():
            if not agent.up:
                rows.append((agent.name, [agent.name, Text("DOWN", style="bold red"), "-", "-", "-", "-", "-",
                                          agent.error or ""]))
                continue
            for s in agent.sources:
                idle = f"idle {s.idle_seconds:.0f} s" if s.idle_seconds else ""
                rows.append((agent.name, [agent.name, "source", s.name, str(s.accepted), rate(s.accept_rate),
                                          "", failures(s.new_failures, s.failures), idle]))
            for c in agent.channels:
                size = f"{c.size}/{c.capacity}" if c.capacity else str(c.size)
                rows.append((agent.name, [agent.name, "channel", c.name, size, rate(c.put_rate),
                                          gauge(c.fill_pct), failures(c.new_failures, c.failures),
                                          "" if c.healthy else "unhealthy"]))
            for k in agent.sinks:
                rows.append((agent.name, [agent.name, "sink", k.name, str(k.drained), rate(k.drain_rate), "",
                                          failures(k.new_failures, k.failures),
                                          f"from {k.channel}" if k.channel else ""]))
        return rows

    def show(self, rows) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        for index, (agent, cells) in enumerate(rows):
            table.add_row(*cells, key=f"{agent}#{index}")
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))

    def selected_agent(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        return str(table.get_row_at(table.cursor_row)[0])

    def _operate(self, wanted: str) -> None:
        name = self.selected_agent()
        if name is None:
            self.notify("no agent to act on", severity="warning")
            return
        self.app.show_plan(self.source.agent_state(name, wanted))

    def action_start_agent(self) -> None:
        self._operate("running")

    def action_stop_agent(self) -> None:
        self._operate("stopped")
