"""What every headless command prints with: the Rich consoles, progress lines, tables that keep
their rows whole, and the table-or-JSON switch (never Textual).

Rich is imported on first use (`out`, `err` and the tables): `-o json` and `check` never pay
for it (~0.2 s of a command's start)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

STATE_STYLE = {"running": "green", "paused": "yellow", "stopped": "dim", "crashed": "bold red"}
KEPT_COLUMNS = 2  # a narrow terminal drops columns from the right, never these first ones
MIN_COLUMN = 8  # cells kept per column before a narrow terminal drops columns

OUTPUT = click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table",
                      show_default=True, help="Output format.")


def __getattr__(name: str):
    """`out` (stdout) and `err` (stderr), Rich consoles made on first use."""
    if name not in ("out", "err"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rich.console import Console

    globals()[name] = console = Console(stderr=name == "err")
    return console


def _err() -> Console:
    return __getattr__("err") if "err" not in globals() else globals()["err"]


def _out() -> Console:
    return __getattr__("out") if "out" not in globals() else globals()["out"]


def emit(output: str, data, render) -> None:
    """JSON to stdout, or the rich renderer for tables."""
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        render(data)


class Reporter:
    """Callable progress sink: updates a spinner on a terminal, prints plain lines otherwise."""

    def __init__(self, status):
        self._status = status

    def __call__(self, message: str) -> None:
        if self._status is not None:
            self._status.update(f"{message} …")
        else:
            _err().print(f"{message} …", highlight=False, soft_wrap=True)

    def done(self, message: str) -> None:
        err = _err()
        err.print(f"[green]✓[/] {message}" if err.is_terminal else message, highlight=False, soft_wrap=True)


@contextmanager
def progress_status(title: str) -> Iterator[Reporter]:
    err = _err()
    if err.is_terminal:
        with err.status(f"{title} …") as status:
            yield Reporter(status)
    else:
        yield Reporter(None)


def new_table(title: str, columns=(), right=()) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, justify="right" if column in right else "left")
    return table


def simple_table(title: str, columns: list[str], rows: list[list], right=()) -> None:
    table = new_table(title, columns, right)
    for row in rows:
        table.add_row(*("-" if v is None or v == "" else str(v) for v in row))
    print_table(table)


def print_table(table: Table, console: Console | None = None) -> None:
    """Print with every row on one line, kubectl-style: piped output gets the full width; a
    terminal too narrow drops columns from the right, then ellipsises what is left."""
    from rich.console import Console

    console = console or _out()
    widths = [_column_width(console, column) for column in table.columns]
    for column, width in zip(table.columns, widths):
        column.no_wrap = True
        column.overflow = "ellipsis"
        column.min_width = min(width, max(MIN_COLUMN, len(str(column.header))))
    if not console.is_terminal:  # Rich caps a print at the console's width: widen a copy
        wide = Console(file=console.file, width=max(console.width, _framed(widths)), no_color=console.no_color,
                       color_system=console.color_system,  # type: ignore[arg-type]  # a name the constructor takes
                       force_terminal=False)
        wide.print(table)
        return
    while len(table.columns) > KEPT_COLUMNS and _framed(c.min_width for c in table.columns) > console.width:
        table.columns.pop()
    # Rich would squeeze some columns to nothing: narrow the widest ones first, to their minimum.
    widths = widths[:len(table.columns)]
    excess = _framed(widths) - console.width
    # min_width is set on every column above (`or 0` only for the type checker)
    while excess > 0 and any(w > (c.min_width or 0) for w, c in zip(widths, table.columns)):
        widest = max(range(len(widths)), key=lambda i: widths[i] - (table.columns[i].min_width or 0))
        widths[widest] -= 1
        excess -= 1
    for column, width in zip(table.columns, widths):
        column.width = width
    console.print(table)


def _column_width(console: Console, column) -> int:
    from rich.text import Text

    cells = [column.header, *column.cells]
    return max(Text.from_markup(c).cell_len if isinstance(c, str) else console.measure(c).maximum for c in cells)


def _framed(widths) -> int:
    """A table's width for these column widths: a border and one space each side per column."""
    widths = list(widths)
    return sum(widths) + 3 * len(widths) + 1
