"""Overview: a health card per component and the current findings, worst first."""

from __future__ import annotations

import sys

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable

from streamctl.check import component_states
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.health_card import HealthCard
from streamctl.tui.widgets.literal_table import LiteralTable

COMPONENTS = ("kafka", "zookeeper", "flume", "spark")
SEVERITY_STYLE = {"CRIT": "bold red", "WARN": "yellow", "UNKNOWN": "magenta", "OK": "green"}
# Metrics shown on each card: (metric name, label)
FIGURES = {
    "kafka": [("kafka_brokers", "brokers"), ("kafka_under_replicated_partitions", "URP"),
              ("kafka_offline_partitions", "offline"), ("kafka_max_group_lag_records", "max lag")],
    "zookeeper": [("zookeeper_servers_serving", "serving"), ("zookeeper_servers", "servers"),
                  ("zookeeper_latency_avg_ms", "avg ms"), ("zookeeper_kafka_brokers", "kafka brokers")],
    "flume": [("flume_agents_up", "agents up"), ("flume_max_channel_fill_pct", "max fill %")],
    "spark": [("spark_jobs", "jobs"), ("spark_jobs_down", "down")],
}


class OverviewScreen(DataScreen):
    heading = "Overview"

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="cards"):
            for component in COMPONENTS:
                yield HealthCard(component, id=f"card-{component}")
        table = LiteralTable(id="findings", cursor_type="row", zebra_stripes=True)
        table.border_title = "Findings"
        yield table

    def on_mount(self) -> None:
        table = self.query_one("#findings", DataTable)
        for label, width in (("severity", 8), ("component", 9), ("object", 22), ("finding", 200)):
            table.add_column(label, width=width)
        for card in self.query(HealthCard):
            card.show("loading", "…")
        super().on_mount()
        if self.app.trace:
            self.call_after_refresh(self.app.trace.write, "overview_first_frame")

    def fetch(self):
        return self.source.health()

    def show(self, evaluation) -> None:
        states = component_states(evaluation)
        for component in COMPONENTS:
            card = self.query_one(f"#card-{component}", HealthCard)
            if component not in states:
                card.show("not configured", "")
                continue
            reason = evaluation.unevaluated.get(component)
            card.show(states[component].value, reason or _figures(component, evaluation.metrics))
        table = self.query_one("#findings", DataTable)
        table.clear()
        for f in evaluation.problems():
            table.add_row(Text(f.severity.value, style=SEVERITY_STYLE[f.severity.value]), f.component,
                          f.object, f.text)
        for component, why in evaluation.unevaluated.items():
            table.add_row(Text("UNKNOWN", style="magenta"), component, "-", f"not evaluated: {why}")
        if table.row_count == 0:
            table.add_row(Text("OK", style="green"), "all", "-", "no problems found")
        if self.app.trace:
            self.call_after_refresh(self.app.trace.write, "overview_painted",
                                    pyspark_imported="pyspark" in sys.modules)


def _figures(component: str, metrics) -> str:
    values = {m.name: m.value for m in metrics if not m.labels}
    parts = [f"{label} {_number(values[name])}" for name, label in FIGURES.get(component, []) if name in values]
    return "\n".join(parts) or "evaluated"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
