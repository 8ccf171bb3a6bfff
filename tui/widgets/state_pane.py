"""The Spark screen's State pane: the selected job's stateful operators (rows, memory, rows dropped
by the watermark as a sparkline over the last batches, snapshot lag) and its watermark against
now and the newest event time. A stateless or unreadable job: one line saying so."""

from __future__ import annotations

from rich.filesize import decimal
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from streamctl.spark.state_summary import OperatorRow, StateSummary
from streamctl.tui.widgets.literal_table import LiteralTable
from streamctl.tui.widgets.sparkline import sparkline

# rows: in the state (numRowsTotal); dropped late: rows the watermark dropped, a batch a bar, the last one's count
COLUMNS = ("op", "operator", "store", "rows", "updated", "removed", "memory", "dropped late", "snapshot lag")


def _figure(value: int | None) -> str:
    return "-" if value is None else str(value)


def _seconds(value: float) -> str:
    value = abs(value)
    if value < 120:
        return f"{value:.0f} s"
    return f"{value / 60:.0f} min" if value < 7200 else f"{value / 3600:.1f} h"


def operator_cells(row: OperatorRow) -> tuple[str, ...]:
    """The table's cells of one operator."""
    dropped = f"{sparkline(row.dropped_by_batch)} {row.dropped_by_batch[-1]}" if row.dropped_by_batch else "-"
    return (_figure(row.operator_id), row.name or "-", ", ".join(row.stores) or "-", _figure(row.rows_total),
            _figure(row.rows_updated), _figure(row.rows_removed),
            "-" if row.memory_used_bytes is None else decimal(row.memory_used_bytes), dropped,
            _figure(row.snapshot_lag))


def headline(summary: StateSummary) -> Text:
    """`state of batch 32 · watermark <time>: 5 s behind now, 3 s behind the newest event`."""
    line = Text.assemble(("state", "bold"))
    if summary.batch_id is not None:
        line.append(f" of batch {summary.batch_id}")
    if summary.watermark_behind_now is None:
        line.append(" · no watermark" if summary.batch_id is not None else "")
    else:
        now = summary.watermark_behind_now
        line.append(f" · watermark {summary.watermark}: {_seconds(now)} {'behind' if now >= 0 else 'ahead of'} now")
        behind = summary.watermark_behind_newest_event
        if behind is not None:
            line.append(f", {_seconds(behind)} behind the newest event" if behind >= 0 else
                        f", {_seconds(behind)} ahead of the newest event (it was late)")
    if summary.note:
        line.append(f" · {summary.note}", style="dim")
    for problem in summary.problems:
        line.append(f"\nproblem: {problem}", style="yellow")
    return line


class StatePane(Vertical):
    DEFAULT_CSS = """
    StatePane {
        height: auto;
        border: round $primary;
    }
    StatePane > Static { padding: 0 1; }
    StatePane > LiteralTable { height: auto; max-height: 6; }
    """

    class Loaded(Message):
        """A job's pane, read in a thread worker (a newer one replaces an unhandled older one)."""

        def __init__(self, summary: StateSummary) -> None:
            self.summary = summary
            super().__init__()

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, StatePane.Loaded)

    def compose(self) -> ComposeResult:
        yield Static(id="job-state-line")
        yield LiteralTable(id="job-state-operators", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.border_title = "State"
        self.query_one(LiteralTable).add_columns(*COLUMNS)

    def show(self, summary: StateSummary | None, note: str = "") -> None:
        """The job's operators, or one line (`note` while none is read yet)."""
        line = self.query_one("#job-state-line", Static)
        table = self.query_one(LiteralTable)
        table.clear()
        if summary is None or (summary.note and not summary.operators):
            line.update(Text(summary.note if summary is not None and summary.note else note, style="dim"))
            table.display = False
            return
        line.update(headline(summary))
        for row in summary.operators:
            table.add_row(*operator_cells(row))
        table.display = True
