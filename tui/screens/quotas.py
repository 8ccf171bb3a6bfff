"""Quotas & users: every client quota entity (user, client-id, IP, their defaults) with its
values, and every SCRAM user with its mechanisms and iterations, read as `quotas list` and
`users list` read them. Each pane says on its own when it cannot be read (a principal may
describe quotas and not credentials). Alter a quota, create a user, set a password, delete a
user: forms, then the plan dialog."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from streamctl.errors import StreamctlError
from streamctl.kafka.quotas.render import COLUMNS as QUOTA_COLUMNS
from streamctl.kafka.quotas.render import quota_cells
from streamctl.kafka.users.render import COLUMNS as USER_COLUMNS
from streamctl.kafka.users.render import user_cells
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.cells import cell
from streamctl.tui.widgets.literal_table import LiteralTable

Pane = tuple[list[list[str]], str | None]  # (rows, or the one line saying why they could not be read)


def read_pane(read: Callable[[], list[dict]], cells: Callable[[list[dict]], list[list[Any]]]) -> Pane:
    try:
        return [[cell(v) for v in row] for row in cells(read())], None
    except StreamctlError as exc:
        return [], str(exc)


class QuotasScreen(DataScreen):
    heading = "Quotas & users"
    BINDINGS = [
        Binding("a", "alter_quota", "Alter quota", id="quotas.alter",
                tooltip="Alter quota: set or remove a user's, client-id's or IP's (or a default's)"),
        Binding("n", "create_user", "Create user", id="users.create", tooltip="Create user (SCRAM)"),
        Binding("p", "set_user_password", "Set password", id="users.set_password",
                tooltip="Set password of the selected user"),
        Binding("d", "delete_user", "Delete user", id="users.delete", tooltip="Delete user (or one credential)"),
    ]

    def compose_body(self) -> ComposeResult:
        for pane, title in (("quotas", "Client quotas"), ("users", "SCRAM users")):
            table = LiteralTable(id=pane, cursor_type="row", zebra_stripes=True)
            table.border_title = title
            yield table
            yield Static(id=f"{pane}-error", classes="pane-error")

    def on_mount(self) -> None:
        self.query_one("#quotas", DataTable).add_columns(*QUOTA_COLUMNS)
        self.query_one("#users", DataTable).add_columns(*USER_COLUMNS)
        super().on_mount()

    def fetch(self) -> tuple[Pane, Pane]:
        return (read_pane(self.source.client_quotas, quota_cells),
                read_pane(self.source.scram_users, user_cells))

    def show(self, data: tuple[Pane, Pane]) -> None:
        for pane, (rows, error) in zip(("quotas", "users"), data, strict=True):
            table = self.query_one(f"#{pane}", DataTable)
            selected = self._row_name(table)
            table.clear()
            for i, row in enumerate(rows):
                table.add_row(*row, key=str(i))
                if selected is not None and row[0] == selected:
                    table.move_cursor(row=i)
            self.query_one(f"#{pane}-error", Static).update(Text(error or ""))

    @staticmethod
    def _row_name(table: DataTable) -> str | None:
        """The first cell of the row under the cursor (a user's name in the users pane)."""
        if not table.row_count or not 0 <= table.cursor_row < table.row_count:
            return None
        return str(table.get_row_at(table.cursor_row)[0])

    def selected_user(self) -> str:
        return self._row_name(self.query_one("#users", DataTable)) or ""

    def action_alter_quota(self) -> None:
        from streamctl.tui.screens.dialogs.alter_quota import AlterQuotaDialog

        self.app.open_operation(AlterQuotaDialog())

    def action_create_user(self) -> None:
        from streamctl.tui.screens.dialogs.scram_user import UserPasswordDialog

        self.app.open_operation(UserPasswordDialog(create=True))

    def action_set_user_password(self) -> None:
        from streamctl.tui.screens.dialogs.scram_user import UserPasswordDialog

        self.app.open_operation(UserPasswordDialog(create=False, name=self.selected_user()))

    def action_delete_user(self) -> None:
        from streamctl.tui.screens.dialogs.scram_user import DeleteUserDialog

        self.app.open_operation(DeleteUserDialog(self.selected_user()))
