"""A DataTable that shows text exactly as written.

DataTable parses every str cell as Rich markup: a consumer group, client id or znode named
`[/x]` would crash the render, and `[b]` would vanish. Names and values come from the clusters,
so str cells become plain Text here; parsing nothing is also what keeps a 300-row refresh cheap
on the event loop (markup parsing was most of a table rebuild's cost)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable


def literal(value: Any) -> Any:
    return Text(value, end="") if isinstance(value, str) else value


class LiteralTable(DataTable):
    def add_row(self, *cells: Any, **kwargs: Any):
        return super().add_row(*map(literal, cells), **kwargs)

    def update_cell(self, row_key, column_key, value: Any, **kwargs: Any) -> None:
        super().update_cell(row_key, column_key, literal(value), **kwargs)
