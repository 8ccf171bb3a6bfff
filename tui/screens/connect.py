"""Kafka Connect: every connector with its state and tasks; for the highlighted connector its
tasks and the whole trace of a failed one. Pause, resume, stop, restart and delete the
highlighted connector through the plan dialog (plan first, then confirm; audited)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.filter_table import FilterTable
from streamctl.tui.widgets.literal_table import LiteralTable

COLUMNS = ["connector", "type", "state", "tasks", "failed", "class", "topics", "worker"]
STATE_STYLE = {"RUNNING": "green", "PAUSED": "yellow", "STOPPED": "yellow", "FAILED": "bold red",
               "UNASSIGNED": "magenta", "RESTARTING": "cyan"}
CONNECTOR_TRACE = "connector"  # key of the connector's own trace among its tasks' (task ids)


def state_text(state: str) -> Text:
    return Text(state, style=STATE_STYLE.get(state, "dim"))


@dataclass(frozen=True)
class ConnectorDetail:
    """What the panes below the table show for one connector (computed in the worker)."""

    summary: Text
    tasks: list[tuple[str, list]]  # (task id, cells)
    traces: dict[str, str]  # CONNECTOR_TRACE or a task id -> its whole trace, secrets masked
    failed: bool  # the connector or one of its tasks FAILED


def _row(c):
    """(key, cells, sort values) of one connector."""
    failed = len(c.failed_tasks)
    cells = [c.name, c.type, state_text(c.state), f"{c.running_tasks}/{len(c.tasks)}",
             Text(str(failed), style="bold red") if failed else "", c.connector_class.rsplit(".", 1)[-1],
             ", ".join(c.topics), c.worker_id]
    sort = [c.name, c.type, c.state, c.running_tasks, failed, c.connector_class, ", ".join(c.topics), c.worker_id]
    return c.name, cells, sort


def _detail(c) -> ConnectorDetail:
    from streamctl.connect.secrets import masked_text

    summary = Text.assemble((c.name, "bold"), f" · {c.type} · ", state_text(c.state),
                            f" · worker {c.worker_id or '?'} · {c.connector_class or '?'}")
    if c.group_id:
        summary.append(f" · group {c.group_id}")
    tasks = [(str(t.id), [str(t.id), state_text(t.state), t.worker_id, masked_text(t.first_trace_line or "", c.config)])
             for t in c.tasks]
    traces = {str(t.id): masked_text(t.trace, c.config) for t in c.tasks if t.trace}
    if c.trace:
        traces[CONNECTOR_TRACE] = masked_text(c.trace, c.config)
    return ConnectorDetail(summary, tasks, traces, c.state == "FAILED" or bool(c.failed_tasks))


class ConnectScreen(DataScreen):
    heading = "Kafka Connect"
    BINDINGS = [
        Binding("p", "pause_connector", "Pause", id="connect.pause"),
        Binding("u", "resume_connector", "Resume", id="connect.resume"),
        Binding("x", "stop_connector", "Stop", id="connect.stop"),
        Binding("t", "restart_connector", "Restart", id="connect.restart"),
        Binding("d", "delete_connector", "Delete", id="connect.delete"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.details: dict[str, ConnectorDetail] = {}
        self.configured = True

    def compose_body(self) -> ComposeResult:
        yield FilterTable(COLUMNS, id="connectors", table_id="connector-list")
        yield Static(id="connector-summary")
        tasks = LiteralTable(id="connector-tasks", cursor_type="row", zebra_stripes=True)
        tasks.border_title = "Tasks"
        yield tasks
        with VerticalScroll(id="connector-trace"):
            yield Static(id="trace-text")

    def on_mount(self) -> None:
        self.query_one("#connector-tasks", DataTable).add_columns("task", "state", "worker", "trace")
        super().on_mount()

    def fetch(self):
        cluster = self.source.connect_cluster()
        if cluster is None:
            return None, [], {}
        heading = f"{self.heading} {cluster.version} at {cluster.url}"
        return heading, [_row(c) for c in cluster.connectors], {c.name: _detail(c) for c in cluster.connectors}

    def show(self, data) -> None:
        heading, rows, self.details = data
        self.configured = heading is not None
        self.app.last_connectors = [name for name, _, _ in rows]
        connectors = self.query_one(FilterTable)
        connectors.border_title = heading or self.heading
        connectors.set_rows(rows)
        self._show_detail(connectors.selected_key())

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self.query_one(FilterTable).table:
            self._show_detail(event.row_key.value)
        elif event.data_table.id == "connector-tasks":
            self._show_trace(self._detail_shown(), event.row_key.value)

    def _detail_shown(self) -> ConnectorDetail | None:
        name = self.query_one(FilterTable).selected_key()
        return self.details.get(name) if name is not None else None

    def _show_detail(self, name: str | None) -> None:
        detail = self.details.get(name) if name is not None else None
        summary = self.query_one("#connector-summary", Static)
        tasks = self.query_one("#connector-tasks", DataTable)
        cursor = tasks.cursor_row
        tasks.clear()
        if detail is None:
            summary.update(Text(self._nothing_to_show()))
            self._show_trace(None, None)
            return
        summary.update(detail.summary)
        for key, cells in detail.tasks:
            tasks.add_row(*cells, key=key)
        if detail.tasks:
            tasks.move_cursor(row=min(cursor, len(detail.tasks) - 1))
        self._show_trace(detail, None)

    def _nothing_to_show(self) -> str:
        if not self.configured:
            return f"Kafka Connect is not configured in context {self.app.source.context_name} (a connect: section)"
        return "no connectors" if not self.details else ""

    def _show_trace(self, detail: ConnectorDetail | None, task: str | None) -> None:
        """The highlighted task's trace; else the connector's own, else its first failed task's."""
        pane = self.query_one("#connector-trace", VerticalScroll)
        text = self.query_one("#trace-text", Static)
        traces = detail.traces if detail else {}
        name = self.query_one(FilterTable).selected_key()
        key = task if task in traces else next(iter(sorted(traces, key=_trace_order)), None)
        if key is None:
            pane.border_title = "Trace"
            text.update("no failure trace" if detail else "")
            return
        pane.border_title = f"Trace of {f'connector {name}' if key == CONNECTOR_TRACE else f'task {name}/{key}'}"
        text.update(Text(traces[key]))

    # ---- operations ------------------------------------------------------------------------

    def action_pause_connector(self) -> None:
        self._change_state("pause")

    def action_resume_connector(self) -> None:
        self._change_state("resume")

    def action_stop_connector(self) -> None:
        self._change_state("stop")

    def action_delete_connector(self) -> None:
        self._change_state("delete")

    def action_restart_connector(self) -> None:
        name = self._connector_to_operate()
        if name is not None:
            from streamctl.tui.screens.dialogs.restart_connector import RestartConnectorDialog

            detail = self.details.get(name)
            self.app.open_operation(RestartConnectorDialog(name, only_failed=bool(detail and detail.failed)))

    def _change_state(self, action: str) -> None:
        name = self._connector_to_operate()
        if name is not None:
            self.app.confirm_operation(self.source.connector_state(name, action))

    def _connector_to_operate(self) -> str | None:
        name = self.query_one(FilterTable).selected_key()
        if name is None:
            self.notify("select a connector first", severity="warning")
        return name


def _trace_order(key: str) -> tuple:
    """The connector's own trace first, then the tasks' by id."""
    return (0, 0) if key == CONNECTOR_TRACE else (1, int(key))

