"""LiteralTable: names shown exactly as written, and a refresh re-renders only what changed
(a changed cell, a moved cursor), never the whole screen of cells."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist

from streamctl.tui.widgets.literal_table import LiteralTable


class TableApp(App):
    def compose(self) -> ComposeResult:
        yield LiteralTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(LiteralTable)
        table.add_columns("group", "lag")
        for i in range(100):
            table.add_row(f"group-{i:03d}", str(i), key=f"g{i}")


@pytest.fixture
def renders(monkeypatch) -> list[tuple[int, int]]:
    """The (row, column) of each cell DataTable itself renders."""
    calls: list[tuple[int, int]] = []
    original = DataTable._render_cell

    def counted(self, row_index, column_index, *args, **kwargs):
        calls.append((row_index, column_index))
        return original(self, row_index, column_index, *args, **kwargs)

    monkeypatch.setattr(DataTable, "_render_cell", counted)
    return calls


def line(table: LiteralTable, row: int) -> str:
    """The text painted for a row (line 0 is the header)."""
    return "".join(segment.text for segment in table.render_line(row + 1))


async def test_markup_in_a_name_is_shown_as_written():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(LiteralTable)
        table.add_row("[/x] [b]group", "0", key="odd")
        table.move_cursor(row=100)
        await pilot.pause()
        assert "[/x] [b]group" in line(table, 100 - table.scroll_offset.y)


async def test_a_changed_cell_is_the_only_cell_rendered_again(renders):
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LiteralTable)
        await pilot.pause()
        renders.clear()

        table.update_cell("g3", table.ordered_columns[1].key, "999")
        await pilot.pause()

        assert [(row, column) for row, column in renders if row >= 0] == [(3, 1)]  # -1: the header
        assert "999" in line(table, 3)


async def test_rows_added_below_the_screen_render_no_visible_cell_again(renders):
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LiteralTable)
        await pilot.pause()
        renders.clear()

        for i in range(100, 160):
            table.add_row(f"group-{i:03d}", str(i), key=f"g{i}")
        await pilot.pause()

        assert [(row, column) for row, column in renders if row >= 0] == []
        assert table.row_count == 160


async def test_moving_the_cursor_renders_the_two_rows_it_leaves_and_enters(renders):
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LiteralTable)
        await pilot.pause()
        cursor_line = table.render_line(1)
        renders.clear()

        table.move_cursor(row=1)
        await pilot.pause()

        assert sorted({row for row, _ in renders if row >= 0}) == [0, 1]
        cursor_color = cursor_line._segments[1].style.bgcolor
        assert table.render_line(2)._segments[1].style.bgcolor == cursor_color
        assert table.render_line(1)._segments[1].style.bgcolor != cursor_color


async def test_a_key_used_again_after_clear_shows_its_new_value():
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LiteralTable)
        await pilot.pause()
        table.clear()
        table.add_row("group-000", "41", key="g0")
        await pilot.pause()
        assert "41" in line(table, 0)


@asynccontextmanager
async def painted_table():
    """A TableApp's table once painted, and the pilot that drives it."""
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        yield app.query_one(LiteralTable), pilot


async def test_cells_updated_together_repaint_once_and_render_only_themselves(renders):
    async with painted_table() as (table, pilot):
        renders.clear()
        repaints = []
        table.refresh = lambda *args, **kwargs: repaints.append(args)  # type: ignore[method-assign]
        lag = table.ordered_columns[1].key

        table.update_cells([("g2", lag, "[b]", False), ("g5", lag, "55", False), ("g90", lag, "91", True)])
        del table.refresh  # DataTable's own again
        table.refresh()
        await pilot.pause()

        assert len(repaints) == 1
        assert sorted((row, column) for row, column in renders if row >= 0) == [(2, 1), (5, 1)]  # g90: off screen
        assert "[b]" in line(table, 2) and "55" in line(table, 5)
        assert table.get_cell("g90", lag).plain == "91"


async def test_updating_cells_of_a_row_not_in_the_table_raises():
    async with painted_table() as (table, _):
        with pytest.raises(CellDoesNotExist):
            table.update_cells([("nope", table.ordered_columns[1].key, "1", False)])


async def test_reordered_rows_are_not_rendered_again_and_carry_their_new_place(renders):
    async with painted_table() as (table, pilot):
        renders.clear()
        keys = [f"g{i}" for i in range(100)]
        keys[1], keys[2] = keys[2], keys[1]

        table.reorder(keys)
        await pilot.pause()

        assert [(row, column) for row, column in renders if row >= 0] == []
        assert "group-002" in line(table, 1) and "group-001" in line(table, 2)
        moved = [segment.style.meta for segment in table.render_line(2) if segment.style and segment.style.meta]
        assert moved and all(meta["row"] == 1 for meta in moved)  # g2, now row 1: where a click lands
        with pytest.raises(ValueError):
            table.reorder(keys[:-1])
