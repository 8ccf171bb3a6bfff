"""Rich rendering of operation plans for the CLI (the dashboard has its own dialogs)."""

from __future__ import annotations

from streamctl.console import new_table, out, print_table


def cell(value) -> str:
    return "-" if value is None else str(value)


def plan_table(plan) -> None:
    table = new_table(plan.summary(), ("object", "field", "before", "after", "note"), right=("before", "after"))
    for c in plan.changes:
        table.add_row(c.object, c.field, cell(c.before), cell(c.after), c.note)
    print_table(table)
    for warning in plan.warnings:
        out.print(f"[yellow]warning:[/] {warning}", highlight=False)
