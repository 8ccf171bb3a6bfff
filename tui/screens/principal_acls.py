"""What one principal may do: every binding of that principal across resources (`acls list
--principal P`: exactly that principal, User:* bindings not added), one row per resource pattern and host."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from streamctl.kafka.acls.access import Rights
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.literal_table import LiteralTable


class PrincipalAclsScreen(DataScreen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="principal.back")]

    def __init__(self, principal: str) -> None:
        super().__init__()
        self.principal = principal
        self.heading = f"ACLs of {principal}"

    def compose_body(self) -> ComposeResult:
        yield Static(id="principal-note")
        table = LiteralTable(id="principal-acls", cursor_type="row", zebra_stripes=True)
        table.border_title = f"What {self.principal} may do"
        yield table

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("resource", "allowed", "denied", "host")
        super().on_mount()

    def fetch(self) -> tuple[list[Rights], str]:
        view = self.source.kafka_acls(principal=self.principal)
        if view.no_authorizer:
            return [], "no authorizer: every principal may do everything"
        found = list(view.rows)
        return found, f"{len(found)} resource patterns" if found else f"no ACL names {self.principal}"

    def show(self, data: tuple[list[Rights], str]) -> None:
        found, note = data
        self.query_one("#principal-note", Static).update(Text(note))
        table = self.query_one(DataTable)
        table.clear()
        for row in found:
            table.add_row(row.resource, ", ".join(row.allowed) or "-", ", ".join(row.denied) or "-", row.host)
