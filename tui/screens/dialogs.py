"""Operation forms. Each collects input and returns an OperationRequest whose plan and run go
through the same core as the CLI (streamctl.ops)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from streamctl.dashboard.operations import OperationRequest
from streamctl.dashboard.source import DashboardSource
from streamctl.errors import UsageError

FORM_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{ width: 70; height: auto; border: thick $primary; background: $surface; padding: 1 2; }}
{name} Input, {name} Select {{ margin-bottom: 1; }}
{name} Horizontal {{ height: 3; align-horizontal: right; }}
{name} #form-error {{ color: $error; height: auto; }}
"""


class FormDialog(ModalScreen[OperationRequest | None]):
    """Fields, a Plan button and Cancel; `request()` builds the OperationRequest or raises."""

    BINDINGS = [("escape", "cancel", "Cancel")]
    heading = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"[b]{self.heading}[/b]")
            yield from self.fields()
            yield Label("", id="form-error")
            with Horizontal():
                yield Button("Plan", id="plan", variant="primary")
                yield Button("Cancel", id="cancel")

    def fields(self) -> ComposeResult:
        yield from ()

    def request(self) -> OperationRequest:
        raise NotImplementedError

    def value(self, field_id: str) -> str:
        return self.query_one(f"#{field_id}", Input).value.strip()

    @on(Button.Pressed, "#plan")
    @on(Input.Submitted)
    def _plan(self) -> None:
        try:
            self.dismiss(self.request())
        except UsageError as exc:
            self.query_one("#form-error", Label).update(Text(str(exc)))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @property
    def source(self) -> DashboardSource:
        return self.app.source


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{what}: expected a whole number, got {text!r}") from None


class CreateTopicDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="CreateTopicDialog")
    heading = "Create topic"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="name", id="name")
        yield Input(placeholder="partitions", value="3", id="partitions")
        yield Input(placeholder="replication factor", value="3", id="rf")
        yield Input(placeholder="configs: key=value, key=value", id="configs")

    def request(self) -> OperationRequest:
        from streamctl.kafka import topics

        name = self.value("name")
        partitions = _int(self.value("partitions"), "partitions")
        rf = _int(self.value("rf"), "replication factor")
        configs = topics.parse_configs([p for p in self.value("configs").split(",") if p.strip()])
        topics.validate_name(name)
        return self.source.create_topic(name, partitions, rf, configs)


class AddPartitionsDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="AddPartitionsDialog")

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"Add partitions to {topic}"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="total partitions after the change", id="total")

    def request(self) -> OperationRequest:
        total = _int(self.value("total"), "total partitions")
        return self.source.add_partitions(self.topic, total)


class AlterConfigDialog(FormDialog):
    DEFAULT_CSS = FORM_CSS.format(name="AlterConfigDialog")

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"Alter configs of {topic}"

    def fields(self) -> ComposeResult:
        yield Input(placeholder="key=value, key=value (key= reverts to the default)", id="pairs")

    def request(self) -> OperationRequest:
        from streamctl.kafka import topics

        pairs = [p for p in self.value("pairs").split(",") if p.strip()]
        if not pairs:
            raise UsageError("give at least one key=value")
        values = {k: (v if v else None) for k, v in topics.parse_configs(pairs).items()}
        return self.source.alter_config(self.topic, values)


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
        from streamctl.kafka import offsets

        mode = self.query_one("#mode", Select).value
        value = self.value("value") or None
        if mode in NEEDS_VALUE and value is None:
            raise UsageError(f"{mode} needs a value")
        if mode in ("to-offset", "shift-by"):
            _int(value, mode)
        if mode == "to-datetime":
            times.parse_datetime(value)
        if mode == "by-duration":
            times.parse_time(value, "--by-duration")
        selection = self.value("topics")
        all_topics = selection in ("", "all")
        specs = [] if all_topics else offsets.parse_topic_specs(tuple(selection.split()))
        return self.source.reset_offsets(self.group, specs, all_topics, mode, value)


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
