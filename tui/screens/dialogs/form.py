"""Operation forms' common shape: fields, a Plan button and Cancel. Each form collects input
and returns an OperationRequest from the dashboard source, whose plan and run go through the
same core as the CLI (streamctl.ops)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from streamctl.dashboard.operations import OperationRequest
from streamctl.dashboard.source import DashboardSource
from streamctl.errors import UsageError

if TYPE_CHECKING:
    from streamctl.tui.app import StreamctlApp

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
        return cast("StreamctlApp", self.app).source


def whole_number(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{what}: expected a whole number, got {text!r}") from None
