"""The topic detail's ACL pane: who can do what on this topic (every binding that applies: its
literal name, `*`, matching prefixes, as `acls list --topic` reads them), one row per principal,
host and pattern. Read in its own thread worker: a failed read is one line in the pane and never
blanks the rest of the detail; a cluster without an authorizer is one line too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from streamctl.errors import StreamctlError
from streamctl.kafka.acls.access import Rights
from streamctl.tui.widgets.literal_table import LiteralTable

if TYPE_CHECKING:
    from textual import getters

    from streamctl.tui.app import StreamctlApp

NO_AUTHORIZER = "no authorizer: every principal may do everything on this topic"
COLUMNS = ("principal", "allowed", "denied", "host", "pattern")


class AclsRead(Message):
    """The pane's newest reading: rows (None: not read) and a one-line note."""

    def __init__(self, rows: list[Rights] | None, note: str) -> None:
        self.rows = rows
        self.note = note
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, AclsRead)


class AclPane(Vertical):
    DEFAULT_CSS = """
    AclPane { border: round $primary; height: 1fr; }
    AclPane #acl-note { height: auto; padding: 0 1; }
    AclPane DataTable { height: 1fr; }
    """

    if TYPE_CHECKING:
        app = getters.app(StreamctlApp)

    def __init__(self, topic: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.topic = topic
        self.border_title = "ACLs: who can do what"
        self.shown: list[Rights] = []

    def compose(self) -> ComposeResult:
        yield Static("reading ACLs …", id="acl-note")
        yield LiteralTable(id="acls", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)

    def reload(self) -> None:
        """Read again, unless a read is still running: a read slower than the refresh interval
        (a silent broker) answers first, rather than being cancelled by the next and never shown."""
        if not any(w.node is self and w.group == "acls" and not (w.is_finished or w.is_cancelled)
                   for w in self.app.workers):
            self._read()

    @work(thread=True, exclusive=True, exit_on_error=False, group="acls")
    def _read(self) -> None:
        worker = get_current_worker()
        try:
            view = self.app.source.kafka_acls(topic=self.topic)
            note = NO_AUTHORIZER if view.no_authorizer else "" if view.rows else "no ACL applies to this topic"
            message = AclsRead(list(view.rows), note)
        except StreamctlError as exc:
            message = AclsRead(None, f"ACLs not read: {exc}")
        except Exception as exc:  # noqa: BLE001 - a client library's own error: shown in the pane, never fatal
            message = AclsRead(None, f"ACLs not read: {type(exc).__name__}: {exc}")
        if not worker.is_cancelled:
            self.post_message(message)

    @on(AclsRead)
    def _show(self, message: AclsRead) -> None:
        message.stop()
        self.query_one("#acl-note", Static).update(Text(message.note))
        if message.rows is None:  # not read: the last rows shown stay
            return
        self.shown = message.rows
        table = self.query_one(DataTable)
        table.clear()
        for row in self.shown:
            table.add_row(row.principal, ", ".join(row.allowed) or "-", ", ".join(row.denied) or "-", row.host,
                          row.resource)

    def selected(self) -> Rights | None:
        """The row under the cursor (None when the pane lists nothing)."""
        table = self.query_one(DataTable)
        if not self.shown or not 0 <= table.cursor_row < len(self.shown):
            return None
        return self.shown[table.cursor_row]
