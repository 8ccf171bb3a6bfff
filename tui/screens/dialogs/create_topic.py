"""The Create topic form: name, partitions, replication factor, configs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Input

from streamctl.dashboard.operations import OperationRequest
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog, whole_number


class CreateTopicDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="CreateTopicDialog")
    heading = "Create topic"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="name", id="name")
        yield Input(placeholder="partitions", value="3", id="partitions")
        yield Input(placeholder="replication factor", value="3", id="rf")
        yield Input(placeholder="configs: key=value, key=value", id="configs")

    def request(self) -> OperationRequest:
        from streamctl.kafka.topics import plans as topics

        name = self.value("name")
        partitions = whole_number(self.value("partitions"), "partitions")
        rf = whole_number(self.value("rf"), "replication factor")
        configs = topics.parse_configs([p for p in self.value("configs").split(",") if p.strip()])
        topics.validate_name(name)
        return self.source.create_topic(name, partitions, rf, configs)
