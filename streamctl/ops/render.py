"""Rich rendering of operation plans for the CLI (the dashboard has its own dialogs)."""

from __future__ import annotations

from rich.table import Table

from streamctl.ui_console import out


def _cell(value) -> str:
    return "-" if value is None else str(value)


def plan_table(plan) -> None:
    table = Table(title=plan.summary(), title_justify="left")
    for column in ("object", "field", "before", "after", "note"):
        table.add_column(column, justify="right" if column in ("before", "after") else "left")
    for c in plan.changes:
        table.add_row(c.object, c.field, _cell(c.before), _cell(c.after), c.note)
    out.print(table)
    for warning in plan.warnings:
        out.print(f"[yellow]warning:[/] {warning}", highlight=False)


def reset_table(plan, resets) -> None:
    table = Table(title=plan.summary(), title_justify="left")
    for column in ("partition", "current", "target", "log start", "log end", "note"):
        table.add_column(column, justify="left" if column in ("partition", "note") else "right")
    for r, change in zip(resets, plan.changes):
        table.add_row(f"{r.topic}/{r.partition}", _cell(r.current), str(r.target), str(r.log_start),
                      str(r.log_end), change.note)
    out.print(table)
    for warning in plan.warnings:
        out.print(f"[yellow]warning:[/] {warning}", highlight=False)
