"""The Reset offsets form: a consumer group's reset mode, its value, and the topics."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Input, Select

from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import UsageError
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog, whole_number

RESET_MODES = [("to earliest", "to-earliest"), ("to latest", "to-latest"), ("to offset N", "to-offset"),
               ("to datetime (ISO 8601)", "to-datetime"), ("by duration (1h, 30m, PT1H)", "by-duration"),
               ("shift by N", "shift-by"), ("from file (CSV)", "from-file"), ("to current", "to-current")]
NEEDS_VALUE = {"to-offset", "to-datetime", "by-duration", "shift-by", "from-file"}


class ResetOffsetsDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="ResetOffsetsDialog")

    def __init__(self, group: str) -> None:
        super().__init__()
        self.group = group
        self.heading = f"Reset offsets of {group}"

    def fields(self) -> ComposeResult:
        yield Select(RESET_MODES, value="to-latest", allow_blank=False, id="mode")
        yield Input(placeholder="value (offset, datetime, duration, shift or CSV path)", id="value")
        yield Input(placeholder="topics: all, or TOPIC[:P,P] separated by spaces", value="all", id="topics")

    def request(self) -> OperationRequest:
        from streamctl import times
        from streamctl.kafka.groups import offsets

        mode = self.query_one("#mode", Select).value
        if not isinstance(mode, str):
            raise UsageError("choose how to reset")
        value = self.value("value") or None
        if value is None:
            if mode in NEEDS_VALUE:
                raise UsageError(f"{mode} needs a value")
        elif mode in ("to-offset", "shift-by"):
            whole_number(value, mode)
        elif mode == "to-datetime":
            times.parse_datetime(value)
        elif mode == "by-duration":
            times.parse_time(value, "--by-duration")
        selection = self.value("topics")
        all_topics = selection in ("", "all")
        specs = [] if all_topics else offsets.parse_topic_specs(tuple(selection.split()))
        return self.source.reset_offsets(self.group, specs, all_topics, mode, value)
