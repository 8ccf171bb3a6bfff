"""FilterTable refreshes: unchanged rows stay untouched, changed cells are updated in place, a
new order of the same rows moves them in place, and a change of rows rebuilds the table; the
cursor stays on its row."""

from __future__ import annotations

from textual.app import App, ComposeResult

from streamctl.tui.widgets.filter_table import ROWS_PER_SLICE, FilterTable


class TableApp(App):
    def compose(self) -> ComposeResult:
        yield FilterTable(["name", "lag"], sort_column=0)


def cells(table: FilterTable, key: str) -> list[str]:
    return [str(cell) for cell in table.table.get_row(key)]


def rows(**lags: int) -> list:
    return [(name, [name, str(lag)], [name, lag]) for name, lag in lags.items()]


async def test_a_refresh_with_one_changed_cell_updates_only_that_cell():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows(rows(alpha=1, beta=2, gamma=3))
        await pilot.pause()
        before = {key.value: row for key, row in table.table.rows.items()}

        table.set_rows(rows(alpha=1, beta=20, gamma=3))
        await pilot.pause()

        assert {key.value: row for key, row in table.table.rows.items()} == before  # same Row objects
        assert [cells(table, k) for k in ("alpha", "beta", "gamma")] == [
            ["alpha", "1"], ["beta", "20"], ["gamma", "3"]]


async def test_new_rows_rebuild_the_table_and_keep_the_cursor_on_its_row():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows(rows(alpha=1, beta=2, gamma=3))
        await pilot.pause()
        table.table.move_cursor(row=2)

        table.set_rows(rows(alpha=1, aardvark=9, beta=2, gamma=3))
        await pilot.pause()

        assert [r.key.value for r in table.table.ordered_rows] == ["aardvark", "alpha", "beta", "gamma"]
        assert table.selected_key() == "gamma"


async def test_a_new_order_of_the_same_rows_moves_them_in_place_and_keeps_the_cursor_on_its_row():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.sort_column, table.descending = 1, True  # by lag, largest first
        table.set_rows(rows(alpha=1, beta=2, gamma=3))
        await pilot.pause()
        table.table.move_cursor(row=2)  # alpha
        before = {key.value: row for key, row in table.table.rows.items()}

        table.set_rows(rows(alpha=5, beta=2, gamma=3))
        await pilot.pause()

        assert [r.key.value for r in table.table.ordered_rows] == ["alpha", "gamma", "beta"]
        assert all(table.table.rows[key] is row for key, row in before.items())  # not added again
        assert cells(table, "alpha") == ["alpha", "5"]
        assert table.selected_key() == "alpha"


async def test_the_filter_still_narrows_rows_after_in_place_updates():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows(rows(alpha=1, beta=2))
        table.set_rows(rows(alpha=5, beta=2))
        await pilot.press("slash", "b", "e")
        await pilot.pause()
        assert [r.key.value for r in table.table.ordered_rows] == ["beta"]
        assert cells(table, "beta") == ["beta", "2"]


async def test_a_wider_value_widens_its_column_and_a_narrower_one_leaves_it():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows(rows(alpha=1, beta=2222))
        await pilot.pause()
        lag = table.table.ordered_columns[1]
        assert lag.content_width == 4
        table.set_rows(rows(alpha=123456, beta=2222))
        await pilot.pause()
        assert lag.content_width == 6
        table.set_rows(rows(alpha=1, beta=2222))
        await pilot.pause()
        assert lag.content_width == 6  # not re-measured cell by cell on every refresh


async def test_names_are_shown_as_written_not_parsed_as_markup():
    """A group named like markup ('[/x]') once crashed the table's render."""
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows([("[/x]", ["[/x]", "[b]1[/b]"], ["[/x]", 1])])
        await pilot.pause()
        assert cells(table, "[/x]") == ["[/x]", "[b]1[/b]"]
        assert "[/x]" in str(table.table.render_line(1))  # rendered, brackets and all


async def until_filled(pilot, table: FilterTable, count: int) -> None:
    for _ in range(100):
        if table.table.row_count == count and not table._filling:
            return
        await pilot.pause(0.02)
    raise AssertionError(f"{table.table.row_count} of {count} rows after 2 s")


async def test_a_big_table_fills_in_slices_and_keeps_the_cursor_on_its_row():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows(rows(**{f"t{i:04d}": i for i in range(250)}))
        assert table.table.row_count == ROWS_PER_SLICE  # the first slice at once, the rest later
        while table.table.row_count == ROWS_PER_SLICE:
            await pilot.pause(0.01)
        added = table.table.row_count
        assert added < 250
        table.set_rows(rows(**{f"t{i:04d}": i + 1 for i in range(250)}))  # new values mid-fill
        assert table.table.row_count == added  # the fill goes on where it was: no start over
        await until_filled(pilot, table, 250)
        assert cells(table, "t0000") == ["t0000", "1"] and cells(table, "t0249") == ["t0249", "250"]

        table.table.move_cursor(row=200)
        table.set_rows(rows(**{f"a{i}": i for i in range(5)}, **{f"t{i:04d}": i for i in range(250)}))

        assert table.selected_key() == "t0200"  # at once: its row was in the first slice
        await until_filled(pilot, table, 255)
        assert [r.key.value for r in table.table.ordered_rows][:6] == ["a0", "a1", "a2", "a3", "a4", "t0000"]
        assert table.selected_key() == "t0200"


async def test_the_filter_matches_any_cell_text():
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(FilterTable)
        table.set_rows([("k1", ["alpha", "lag 7"], ["alpha", 7]), ("k2", ["beta", "lag 12"], ["beta", 12])])
        await pilot.press("slash", "1", "2")
        await pilot.pause()
        assert [r.key.value for r in table.table.ordered_rows] == ["k2"]
