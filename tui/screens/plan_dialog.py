"""The confirm step of every operation: the plan (object by object, before -> after), then
Execute (in a read-only context the plan alone: a dry run). Planning and executing run in thread workers;
the result is audited by the core.

The dialog acts on a worker's result only once the worker has finished: dismissing the
screen cancels its workers, and one cancelled between answering and finishing would be
reported as cancelled although its operation ran.

An execution whose answer was lost is shown as the plan core decided (streamctl.ops.execute):
done with a note that the re-read showed it, not done, or "outcome unknown: re-read before
retrying" (the audit entry says `unknown`); Execute then stays disabled: the change is never
sent twice from here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Label, Static
from textual.worker import Worker, WorkerState

from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import OutcomeUnknown, StreamctlError
from streamctl.tui.widgets.cells import cell
from streamctl.tui.widgets.literal_table import LiteralTable


@dataclass
class _Refused:
    """A worker's StreamctlError, returned rather than raised: an operator's error, not a bug."""

    reason: str
    title: str = "refused"


def _refusing(call: Callable[..., Any], *args: Any) -> Any:
    try:
        return call(*args)
    except OutcomeUnknown as exc:
        return _Refused(str(exc), "outcome unknown")
    except StreamctlError as exc:
        return _Refused(str(exc))


class PlanDialog(ModalScreen[str | None]):
    DEFAULT_CSS = """
    PlanDialog { align: center middle; }
    PlanDialog > Vertical { width: 90%; height: 80%; border: thick $primary; background: $surface; padding: 0 1; }
    PlanDialog DataTable { height: 1fr; }
    PlanDialog #plan-warnings { color: $warning; height: auto; }
    PlanDialog #plan-error { color: $error; height: auto; }
    PlanDialog Horizontal { height: 3; align-horizontal: right; }
    """
    BINDINGS = [("escape", "cancel", "Cancel")]

    def __init__(self, request: OperationRequest, refusal: str | None = None) -> None:
        """`refusal`: why this plan may only be shown (a read-only context): a dry run whose
        Execute stays disabled and is refused if reached anyway."""
        super().__init__()
        self.request = request
        self.refusal = refusal
        self.planned: Any = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"[b]{escape(self.request.title)}[/b]: planning …", id="plan-title")
            yield LiteralTable(id="plan-changes", cursor_type="row", zebra_stripes=True)
            yield Static(id="plan-warnings")
            yield Static(id="plan-error")
            with Horizontal():
                yield Button("Execute", id="execute", variant="error", disabled=True)
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("object", "field", "before", "after", "note")
        self._plan()

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def _plan(self) -> Any:
        return _refusing(self.request.plan)

    @work(thread=True, exclusive=True, exit_on_error=False, group="execute")
    def _execute(self) -> str | _Refused:
        if self.refusal:
            return _Refused(self.refusal)
        done = _refusing(self.request.run, self.planned)
        plan = self.planned[0] if isinstance(self.planned, tuple) else self.planned
        if isinstance(done, str) and getattr(plan, "read_back", None):
            return f"{done} ({plan.read_back})"
        return done

    @on(Worker.StateChanged)
    def _worker_finished(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state == WorkerState.ERROR:
            self._show_error(f"unexpected error: {worker.error!r}")
        elif event.state != WorkerState.SUCCESS:
            return
        elif isinstance(worker.result, _Refused):
            self._show_error(worker.result.reason, worker.result.title)
        elif worker.group == "plan":
            self._show_plan(worker.result)
        elif worker.group == "execute":
            self.dismiss(worker.result)

    def _show_plan(self, planned: Any) -> None:
        self.planned = planned
        plan = planned[0] if isinstance(planned, tuple) else planned
        table = self.query_one(DataTable)
        for c in plan.changes:
            table.add_row(c.object, c.field, cell(c.before), cell(c.after), c.note)
        self.query_one("#plan-title", Label).update(f"[b]{escape(self.request.title)}[/b]: {escape(plan.summary())}")
        self.query_one("#plan-warnings", Static).update(Text("\n".join(f"warning: {w}" for w in plan.warnings)))
        self.query_one("#execute", Button).disabled = not plan.changes or bool(self.refusal)
        if self.refusal:
            self.query_one("#plan-error", Static).update(Text(self.refusal))

    def _show_error(self, text: str, title: str = "refused") -> None:
        self.query_one("#plan-error", Static).update(Text(text))
        self.query_one("#plan-title", Label).update(f"[b]{escape(self.request.title)}[/b]: {escape(title)}")

    @on(Button.Pressed, "#execute")
    def _execute_pressed(self) -> None:
        self.query_one("#execute", Button).disabled = True
        self.query_one("#plan-title", Label).update(f"[b]{escape(self.request.title)}[/b]: executing …")
        self._execute()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

