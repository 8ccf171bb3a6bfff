"""What every headless command prints with: the Rich consoles, progress lines, tables that keep
their rows whole, and the table-or-JSON switch (never Textual)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Iterator

import click
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

out = Console()
err = Console(stderr=True)

STATE_STYLE = {"running": "green", "paused": "yellow", "stopped": "dim", "crashed": "bold red"}
KEPT_COLUMNS = 2  # a narrow terminal drops columns from the right, never these first ones

OUTPUT = click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table",
                      show_default=True, help="Output format.")


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
            err.print(f"{message} …", highlight=False, soft_wrap=True)

    def done(self, message: str) -> None:
        err.print(f"[green]✓[/] {message}" if err.is_terminal else message, highlight=False, soft_wrap=True)


@contextmanager
def progress_status(title: str) -> Iterator[Reporter]:
    if err.is_terminal:
        with err.status(f"{title} …") as status:
            yield Reporter(status)
    else:
        yield Reporter(None)


def new_table(title: str, columns=(), right=()) -> Table:
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
    console = console or out
    for column in table.columns:
        column.no_wrap = True
        column.overflow = "ellipsis"
    if not console.is_terminal:
        console.print(table, width=max(console.width, _natural_width(console, table)))
        return
    while len(table.columns) > KEPT_COLUMNS and _natural_width(console, table, minimum=True) > console.width:
        table.columns.pop()
    console.print(table)


def _natural_width(console: Console, table: Table, minimum: bool = False) -> int:
    wide = console.options.update(width=10_000)
    measured = Measurement.get(console, wide, table)
    if not minimum:
        return measured.maximum
    # Each column at its header's width or 8 cells, whichever is larger; ellipsis does the rest.
    edges = len(table.columns) * 3 + 1
    return edges + sum(max(8, len(str(c.header))) for c in table.columns)
