"""A DataTable with a `/` filter box and sorting by a column (header click or `s`).

A refresh updates only the cells that changed, and moves rows into a new order in place (a
table sorted by lag reorders at most refreshes). A rebuild (rows added or gone) adds its rows
in slices, one per screen refresh: the first slice fills the visible part at once, and a
1,000-row table never holds the event loop for the whole fill (DataTable measures every new
cell on the next idle, which costs about 25 ms per 300 rows).
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
    """Rows are (key, cells, sort values); the filter keeps the rows whose key or any cell
    contains its text (case-insensitive)."""

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
        self._filling: list | None = None  # the rows a rebuild is still adding, slice by slice
        self._rebuilds = 0

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter (Enter to keep, Esc to clear)", disabled=True)
        yield LiteralTable(id=self.table_id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self._column_keys = [table.add_column(label, width=width) for label, width in zip(self.columns, self.widths)]

    @property
    def table(self) -> LiteralTable:
        return self.query_one(LiteralTable)

    def set_rows(self, rows: list[tuple[str, list[Any], list[Any]]]) -> None:
        self.rows = rows
        self._render_rows()

    def _render_rows(self) -> None:
        needle = self.query_one(Input).value.strip().lower()
        shown = [r for r in self.rows if _matches(r, needle)] if needle else list(self.rows)
        shown.sort(key=lambda r: _sortable(r[2][self.sort_column]), reverse=self.descending)
        keys = [key for key, _, _ in shown]
        if self._filling is not None and keys == [key for key, _, _ in self._filling]:
            # The fill in progress has these rows in this order: it goes on with the new values.
            self._filling = shown
            self._update_changed_cells(shown[:len(self._shown)])
        elif self._filling is None and keys == list(self._shown):
            self._update_changed_cells(shown)
        elif self._filling is None and len(keys) == len(self._shown) and self._shown.keys() >= set(keys):
            self._reorder(shown, keys)  # the same rows in another order (a sort by a changing value)
        else:
            self._rebuild(shown)

    def _update_changed_cells(self, shown) -> None:
        """Rows already in the table, in its order: touch only the cells whose value changed
        (a refresh of a steady cluster then allocates and re-renders next to nothing), and
        repaint once for all of them."""
        table = self.table
        changes = []
        for key, cells, _ in shown:
            before = self._shown[key]
            if before is cells or before == cells:
                continue
            for column, (old, new) in enumerate(zip(before, cells)):
                if old != new:
                    column_key = self._column_keys[column]
                    # Only a wider value needs the column re-measured: DataTable answers a
                    # narrower one by measuring every cell of the column (per updated cell).
                    changes.append((key, column_key, new, _width(new) > table.columns[column_key].content_width))
            self._shown[key] = cells
        table.update_cells(changes)

    def _reorder(self, shown, keys: list[str]) -> None:
        """Update the changed cells and move the rows into place; the cursor stays on its row."""
        selected = self.selected_key()
        self._update_changed_cells(shown)
        self._shown = {key: self._shown[key] for key in keys}
        self.table.reorder(keys)
        if selected is not None:
            self.table.move_cursor(row=keys.index(selected))

    def _rebuild(self, shown) -> None:
        """Refill the table: at once up to a screen past the selected row (so the cursor stays
        on it and never shows another row meanwhile), the rest a slice per screen refresh."""
        keys = [key for key, _, _ in shown]
        selected = self.selected_key()
        at = keys.index(selected) if selected in keys else -1
        self.table.clear()
        self._shown = {}
        self._rebuilds += 1
        self._filling = shown
        self._add_rows(max(ROWS_PER_SLICE, at + 1 + ROWS_PER_SLICE), self._rebuilds)
        if at >= 0:
            self.table.move_cursor(row=at)

    def _add_rows(self, count: int, rebuild: int) -> None:
        if rebuild != self._rebuilds or self._filling is None:
            return  # a newer rebuild started over
        target, table = self._filling, self.table
        for key, cells, _ in target[len(self._shown):len(self._shown) + count]:
            table.add_row(*cells, key=key)
            self._shown[key] = cells
        if len(self._shown) < len(target):
            self.call_after_refresh(self._add_rows, ROWS_PER_SLICE, rebuild)
        else:
            self._filling = None

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


def _matches(row: tuple[str, list[Any], list[Any]], needle: str) -> bool:
    key, cells, _ = row
    return needle in key.lower() or any(needle in _plain(cell).lower() for cell in cells)


def _plain(value: Any) -> str:
    return value.plain if isinstance(value, Text) else str(value)


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
