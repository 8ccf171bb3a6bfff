"""A DataTable that shows text exactly as written, and re-renders only the cells that changed.

DataTable parses every str cell as Rich markup: a consumer group, client id or znode named
`[/x]` would crash the render, and `[b]` would vanish. Names and values come from the clusters,
so str cells become plain Text here; parsing nothing is also what keeps a 300-row refresh cheap
on the event loop (markup parsing was most of a table rebuild's cost).

DataTable keys its rendered cells on a table-wide update count, so one changed cell, or rows
added below the screen, re-render every visible cell (25-35 ms for a full screen). Here a
rendered cell is kept for as long as its value, width and styles stay the same; a row that
moves (a zebra stripe of the same shade) only has its place written into its segments."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import count
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, CellKey, ColumnKey, RowKey

# A few screens of cells, in every style a cell takes (cursor, hover, zebra stripe).
CACHED_CELLS = 4000


def literal(value: Any) -> Any:
    return Text(value, end="") if isinstance(value, str) else value


class LiteralTable(DataTable):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._edits = count(1)
        self._versions: dict[Any, int] = {}  # row key or (row key, column key) -> edit number
        self._rendered: LRUCache = LRUCache(CACHED_CELLS)

    def add_row(self, *cells: Any, **kwargs: Any):
        row_key = super().add_row(*map(literal, cells), **kwargs)
        self._versions[row_key] = next(self._edits)  # a key used again is a new row
        return row_key

    def update_cell(self, row_key, column_key, value: Any, **kwargs: Any) -> None:
        super().update_cell(row_key, column_key, literal(value), **kwargs)
        self._versions[row_key, column_key] = next(self._edits)

    def update_cells(self, changes: Iterable[tuple[Any, Any, Any, bool]]) -> None:
        """(row key, column key, value, update width) for each changed cell, then one repaint.

        DataTable.update_cell repaints the table per cell (its region worked out each time):
        1,700 changed cells of a 1,000-group refresh cost ~60 ms on the event loop that way,
        most of it for rows off the screen. Keys of rows or columns not in the table raise
        CellDoesNotExist, as update_cell does."""
        changed = False
        for row_key, column_key, value, update_width in changes:
            row_key = RowKey(row_key) if isinstance(row_key, str) else row_key
            column_key = ColumnKey(column_key) if isinstance(column_key, str) else column_key
            if row_key not in self._row_locations or column_key not in self._column_locations:
                raise CellDoesNotExist(f"No cell exists for row_key={row_key!r}, column_key={column_key!r}.")
            self._data[row_key][column_key] = literal(value)
            self._versions[row_key, column_key] = next(self._edits)
            if update_width:
                self._updated_cells.add(CellKey(row_key, column_key))
                self._require_update_dimensions = True
            changed = True
        if changed:
            self._update_count += 1
            self.refresh()

    def reorder(self, keys: Iterable[Any]) -> None:
        """Show the table's rows in this order (every row key once), as DataTable.sort places
        them, without clearing and adding them again: a row that keeps its place keeps its
        rendered cells, and nothing is measured again."""
        locations = {RowKey(key) if isinstance(key, str) else key: index for index, key in enumerate(keys)}
        if len(locations) != len(self._data) or any(key not in self._data for key in locations):
            raise ValueError("reorder: the keys must be the table's rows, each once")
        self._row_locations = type(self._row_locations)(locations)  # the mapping sort() builds
        self._update_count += 1
        self.refresh()

    def remove_row(self, row_key) -> None:
        super().remove_row(row_key)
        self._versions.pop(row_key, None)

    def clear(self, columns: bool = False):
        self._versions.clear()
        self._rendered.clear()
        return super().clear(columns)

    def _render_cell(self, row_index: int, column_index: int, base_style, width: int,
                     cursor: bool = False, hover: bool = False):
        if row_index < 0 or column_index < 0 or row_index < self.fixed_rows or column_index < self.fixed_columns:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:  # within the bounds checked above: never
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        height = self.rows[row_key].height
        if self.rows[row_key].auto_height or height < 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        styles = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        # The rendered segments carry their place (row and column index, for clicks): a cell
        # rendered at another place (its row moved, reorder()) is given its new one.
        key = (row_key, column_key, self._versions.get(row_key), self._versions.get((row_key, column_key)),
               width, height, base_style, styles)
        place = (row_index, column_index)
        cached = self._rendered.get(key)
        if cached is None:
            lines = super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        elif cached[0] != place:
            lines = _placed(cached[1], place)
        else:
            return cached[1]
        self._rendered[key] = (place, lines)
        return lines


def _placed(lines: list[list[Segment]], place: tuple[int, int]) -> list[list[Segment]]:
    """Rendered lines with the meta of another place (styles otherwise the same)."""
    meta = Style.from_meta({"row": place[0], "column": place[1]})
    return [[Segment(text, style + meta if style else meta, control) for text, style, control in line]
            for line in lines]
