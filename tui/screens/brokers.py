"""Brokers: id, address, rack, roles (the active controller in ZooKeeper mode, process.roles in
KRaft), partitions led, status; `d` decommissions the selected broker, `a` gives it its share of
replicas and leaders, `b` rebalances the cluster (each a throttle form, then the plan dialog);
`m` opens the Reassignments screen."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable

from streamctl.errors import StreamctlError
from streamctl.model.kafka import broker_roles
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.literal_table import LiteralTable


class BrokersScreen(DataScreen):
    heading = "Brokers"
    BINDINGS = [
        Binding("m", "app.switch_mode('reassignments')", "Reassignments", id="brokers.reassignments"),
        Binding("d", "decommission", "Decommission", id="brokers.decommission",
                tooltip="Decommission: move every replica off the selected broker"),
        Binding("a", "add_broker", "Give its share", id="brokers.add_broker",
                tooltip="Give its share: move replicas and leaders onto the selected (new or nearly empty) broker"),
        Binding("b", "rebalance", "Rebalance", id="brokers.rebalance",
                tooltip="Rebalance: even out bytes on disk and preferred leaders across the cluster"),
    ]

    def compose_body(self) -> ComposeResult:
        yield LiteralTable(id="brokers", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("id", "host:port", "rack", "roles", "leads", "replicas",
                                              "status")
        super().on_mount()

    def fetch(self):
        snap = self.source.kafka_snapshot(lag_time=False, group_details=False, topic_configs=False)
        try:
            kraft_roles = self.source.kafka_broker_roles([b.id for b in snap.brokers]) if snap.kraft else {}
        except StreamctlError:
            kraft_roles = {}  # shown as unknown; the snapshot itself was read
        return snap, {b.id: broker_roles(b, snap.kraft, kraft_roles) for b in snap.brokers}

    def show(self, data) -> None:
        snap, roles = data
        self.app.last_kafka = snap
        led = Counter(p.leader for p in snap.partitions)
        hosted = Counter(r for p in snap.partitions for r in p.replicas)
        live = {b.id for b in snap.brokers}
        table = self.query_one(DataTable)
        table.clear()
        for b in snap.brokers:
            table.add_row(str(b.id), f"{b.host}:{b.port}", b.rack or "-", ", ".join(roles[b.id]) or "?", str(led[b.id]),
                          str(hosted[b.id]), Text("up", style="green"), key=str(b.id))
        for missing in sorted(set(hosted) - live):
            table.add_row(str(missing), "-", "-", "", "0", str(hosted[missing]),
                          Text("DOWN (holds replicas, not registered)", style="bold red"), key=str(missing))

    def selected_broker(self, doing: str) -> int | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            self.notify(f"no broker to {doing}", severity="warning")
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return int(str(row_key.value))

    def action_decommission(self) -> None:
        from streamctl.tui.screens.dialogs import reassign

        if (broker := self.selected_broker("decommission")) is not None:
            self.app.open_operation(reassign.decommission(broker))

    def action_add_broker(self) -> None:
        from streamctl.tui.screens.dialogs import reassign

        if (broker := self.selected_broker("give its share")) is not None:
            self.app.open_operation(reassign.add_broker(broker))

    def action_rebalance(self) -> None:
        from streamctl.tui.screens.dialogs import reassign

        self.app.open_operation(reassign.rebalance())
