"""One consumer group: per-partition committed offset, log end, lag; members and assignments."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from streamctl.errors import UsageError
from streamctl.model.kafka import type_label
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.cells import cell
from streamctl.tui.widgets.literal_table import LiteralTable


class GroupDetailScreen(DataScreen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="detail.back"),
        Binding("o", "reset_offsets", "Reset offsets", id="group.reset"),
    ]

    def __init__(self, group: str) -> None:
        super().__init__()
        self.group = group
        self.heading = f"Group {group}"

    def compose_body(self) -> ComposeResult:
        yield Static(id="group-summary")
        lags = LiteralTable(id="lags", cursor_type="row", zebra_stripes=True)
        lags.border_title = "Partitions"
        yield lags
        members = LiteralTable(id="members", cursor_type="row")
        members.border_title = "Members"
        yield members

    def on_mount(self) -> None:
        self.query_one("#lags", DataTable).add_columns("partition", "committed", "log start", "log end",
                                                       "lag", "lag (s)", "from", "next record")
        self.query_one("#members", DataTable).add_columns("client id", "host", "assignment")
        super().on_mount()

    def fetch(self):
        snap = self.source.kafka_snapshot()
        group = snap.group(self.group)
        if group is None:
            raise UsageError(f"group {self.group!r} is not in the cluster any more")
        lags = snap.group_lags(self.group)
        # The record each partition's group will process next (where it lags): the poison pill.
        waiting = {(l.topic, l.partition): l.committed for l in lags if l.lag and l.committed is not None}
        return group, lags, self.source.next_records(waiting) if waiting else {}

    def show(self, data) -> None:
        from streamctl.kafka.records.formats import preview

        group, lags, next_records = data
        self.query_one("#group-summary", Static).update(
            f"[b]{escape(group.id)}[/b] · {type_label(group.type)} group · state {group.state} · "
            f"protocol {group.protocol or '-'} · "
            f"coordinator {group.coordinator} · members {len(group.members)}")
        table = self.query_one("#lags", DataTable)
        table.clear()
        for l in lags:
            table.add_row(f"{l.topic}/{l.partition}", cell(l.committed), cell(l.log_start), cell(l.log_end),
                          cell(l.lag), "-" if l.lag_seconds is None else f"{l.lag_seconds:.1f}",
                          l.lag_seconds_source or "-", _next(next_records.get((l.topic, l.partition)), preview))
        members = self.query_one("#members", DataTable)
        members.clear()
        for m in group.members:
            members.add_row(m.client_id, m.host, ", ".join(f"{t}/{p}" for t, p in m.assignments))

    def action_reset_offsets(self) -> None:
        from streamctl.tui.screens.dialogs.reset_offsets import ResetOffsetsDialog

        self.app.open_operation(ResetOffsetsDialog(self.group))


def _next(record, preview) -> str:
    return "-" if record is None else f"@{record.offset} {preview(record.value, 40)}"
