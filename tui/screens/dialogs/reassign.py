"""The Decommission form (`reassign execute --decommission N --throttle RATE`): the throttle for
moving every replica off the selected broker; the plan dialog then shows each move."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Input

from streamctl.dashboard.operations import OperationRequest
from streamctl.kafka.reassign.plans import parse_rate
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog


class DecommissionDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="DecommissionDialog")

    def __init__(self, broker: int) -> None:
        super().__init__()
        self.broker = broker
        self.heading = f"Decommission broker {broker}: move every replica off it"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="replication throttle per broker, bytes/s (e.g. 10MB)", id="throttle")

    def request(self) -> OperationRequest:
        return self.source.decommission(self.broker, parse_rate(self.value("throttle")))
