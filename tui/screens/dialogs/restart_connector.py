"""The Restart connector form: the connector alone, or with its tasks; everything, or only
what FAILED."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.widgets import Checkbox

from streamctl.dashboard.operations import OperationRequest
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog


class RestartConnectorDialog(FormDialog):
    """Restart: the connector alone, or with its tasks; everything, or only what FAILED."""

    DEFAULT_CSS = FORM_CSS.format(name="RestartConnectorDialog")

    def __init__(self, name: str, only_failed: bool = False) -> None:
        super().__init__()
        self.connector = name
        self.only_failed = only_failed
        self.heading = f"Restart connector {escape(name)}"

    def fields(self) -> ComposeResult:
        yield Checkbox("include its tasks", value=True, id="include-tasks")
        yield Checkbox("only what FAILED", value=self.only_failed, id="only-failed")

    def request(self) -> OperationRequest:
        include_tasks = self.query_one("#include-tasks", Checkbox).value
        only_failed = self.query_one("#only-failed", Checkbox).value
        return self.source.restart_connector(self.connector, include_tasks, only_failed)
