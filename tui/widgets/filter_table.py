"""A DataTable with a `/` filter box and sorting by a column (header click or `s`).

A rebuild adds its rows in slices, one per screen refresh: the first slice fills the visible
part at once, and a 1,000-row table never holds the event loop for the whole fill (DataTable
measures every new cell on the next idle, which costs about 25 ms per 300 rows).
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input
from textual.widgets.data_table import CellDoesNotExist

from streamctl.tui.widgets.literal_table import LiteralTable

ROWS_PER_SLICE = 60


class FilterTable(Vertical):
    """Rows are (key, cells, sort values); the filter matches the key (case-insensitive)."""

    DEFAULT_CSS = """
    FilterTable { height: 1fr; }
    FilterTable Input { display: none; height: 3; }
    FilterTable Input.-shown { display: block; }
    FilterTable DataTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="table.filter"),
        Binding("s", "next_sort", "Sort", id="table.sort"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="table.clear"),
    ]

    def __init__(self, columns: list[str], sort_column: int = 0, descending: bool = False,
                 widths: list[int | None] | None = None, table_id: str | None = None, **kwargs) -> None:
        """`widths`: a fixed width per column (None: as wide as its widest cell)."""
        super().__init__(**kwargs)
        self.columns = columns
        self.widths = widths or [None] * len(columns)
        self.table_id = table_id
        self.sort_column = sort_column
        self.descending = descending
        self.rows: list[tuple[str, list[Any], list[Any]]] = []
        self._shown: dict[str, list[Any]] = {}  # key -> cells as the table holds them, in order
        self._column_keys: list = []
        self._filling = 0  # the rebuild whose slices are still being added (0: none)
        self._rebuilds = 0
        self._selected_when_filled: str | None = None  # the row the cursor returns to

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter (Enter to keep, Esc to clear)", disabled=True)
        yield LiteralTable(id=self.table_id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self._column_keys = [table.add_column(label, width=width) for label, width in zip(self.columns, self.widths)]

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def set_rows(self, rows: list[tuple[str, list[Any], list[Any]]]) -> None:
        self.rows = rows
        self._render_rows()

    def _render_rows(self) -> None:
        needle = self.query_one(Input).value.strip().lower()
        shown = [r for r in self.rows if needle in r[0].lower()]
        shown.sort(key=lambda r: _sortable(r[2][self.sort_column]), reverse=self.descending)
        if not self._filling and [key for key, _, _ in shown] == list(self._shown):
            self._update_changed_cells(shown)
        else:
            self._rebuild(shown)

    def _update_changed_cells(self, shown) -> None:
        """Same rows in the same order: touch only the cells whose value changed (a refresh
        of a steady cluster then allocates and re-renders next to nothing)."""
        table = self.table
        for key, cells, _ in shown:
            before = self._shown[key]
            for column, (old, new) in enumerate(zip(before, cells)):
                if old != new:
                    column_key = self._column_keys[column]
                    # Only a wider value needs the column re-measured: DataTable answers a
                    # narrower one by measuring every cell of the column (per updated cell).
                    wider = _width(new) > table.columns[column_key].content_width
                    table.update_cell(key, column_key, new, update_width=wider)
            self._shown[key] = cells

    def _rebuild(self, shown) -> None:
        selected = self._selected_when_filled if self._filling else self.selected_key()
        self.table.clear()
        self._shown = {}
        self._rebuilds += 1
        self._selected_when_filled = selected
        self._add_slice(shown, self._rebuilds)

    def _add_slice(self, shown, rebuild: int) -> None:
        if rebuild != self._rebuilds:
            return  # a newer rebuild started over
        table = self.table
        start = len(self._shown)
        for key, cells, _ in shown[start:start + ROWS_PER_SLICE]:
            table.add_row(*cells, key=key)
            self._shown[key] = cells
        selected = self._selected_when_filled
        if selected is not None and selected in self._shown and self.selected_key() != selected:
            table.move_cursor(row=list(self._shown).index(selected))
        if len(self._shown) < len(shown):
            self._filling = rebuild
            self.call_after_refresh(self._add_slice, shown, rebuild)
        else:
            self._filling = 0

    def selected_key(self) -> str | None:
        table = self.table
        if table.row_count == 0:
            return None
        try:
            return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except CellDoesNotExist:
            return None

    def action_filter(self) -> None:
        box = self.query_one(Input)
        box.disabled = False
        box.add_class("-shown")
        box.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one(Input)
        box.value = ""
        box.remove_class("-shown")
        box.disabled = True
        self.table.focus()
        self._render_rows()

    def action_next_sort(self) -> None:
        self.sort_column = (self.sort_column + 1) % len(self.columns)
        self.notify(f"sorted by {self.columns[self.sort_column]}", timeout=1.5)
        self._render_rows()

    @on(Input.Changed)
    def _filter_changed(self) -> None:
        self._render_rows()

    @on(Input.Submitted)
    def _filter_kept(self) -> None:
        self.table.focus()

    @on(DataTable.HeaderSelected)
    def _header(self, event: DataTable.HeaderSelected) -> None:
        if event.column_index == self.sort_column:
            self.descending = not self.descending
        self.sort_column = event.column_index
        self._render_rows()


def _width(value: Any) -> int:
    """Terminal cells a table value takes, at most (markup in a str counts as text)."""
    return value.cell_len if isinstance(value, Text) else cell_len(str(value))


def _sortable(value: Any) -> tuple:
    """None sorts first; numbers by value; everything else as text."""
    if value is None:
        return (0, 0, "")
    if isinstance(value, (int, float)):
        return (1, value, "")
    return (2, 0, str(value))
