"""Brokers: id, address, rack, controller (ZooKeeper mode only), partitions led, status."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable

from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.literal_table import LiteralTable


class BrokersScreen(DataScreen):
    heading = "Brokers"

    def compose_body(self) -> ComposeResult:
        yield LiteralTable(id="brokers", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("id", "host:port", "rack", "controller", "leads", "replicas",
                                              "status")
        super().on_mount()

    def fetch(self):
        return self.source.kafka_snapshot(lag_time=False, group_details=False, topic_configs=False)

    def show(self, snap) -> None:
        self.app.last_kafka = snap
        led = Counter(p.leader for p in snap.partitions)
        hosted = Counter(r for p in snap.partitions for r in p.replicas)
        live = {b.id for b in snap.brokers}
        table = self.query_one(DataTable)
        table.clear()
        for b in snap.brokers:
            controller = "yes" if b.is_controller else ("n/a (KRaft)" if snap.kraft else "")
            table.add_row(str(b.id), f"{b.host}:{b.port}", b.rack or "-", controller, str(led[b.id]),
                          str(hosted[b.id]), Text("up", style="green"), key=str(b.id))
        for missing in sorted(set(hosted) - live):
            table.add_row(str(missing), "-", "-", "", "0", str(hosted[missing]),
                          Text("DOWN (holds replicas, not registered)", style="bold red"), key=str(missing))
