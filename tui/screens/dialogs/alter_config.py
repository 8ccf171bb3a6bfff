"""The Alter configs form: a topic's key=value pairs (key= reverts to the default)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Input

from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import UsageError
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog


class AlterConfigDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="AlterConfigDialog")

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"Alter configs of {topic}"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="key=value, key=value (key= reverts to the default)", id="pairs")

    def request(self) -> OperationRequest:
        from streamctl.kafka.topics import plans as topics

        pairs = [p for p in self.value("pairs").split(",") if p.strip()]
        if not pairs:
            raise UsageError("give at least one key=value")
        values = {k: (v or None) for k, v in topics.parse_configs(pairs).items()}
        return self.source.alter_config(self.topic, values)
