"""The Add partitions form: a topic's total partitions after the change."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Input

from streamctl.dashboard.operations import OperationRequest
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog, whole_number


class AddPartitionsDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="AddPartitionsDialog")

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"Add partitions to {topic}"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="total partitions after the change", id="total")

    def request(self) -> OperationRequest:
        total = whole_number(self.value("total"), "total partitions")
        return self.source.add_partitions(self.topic, total)
