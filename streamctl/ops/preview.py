"""The CLI end of every mutation: show the plan, then apply it only with --execute."""

from __future__ import annotations

import json
from collections.abc import Callable

import click

EXECUTE = click.option("--execute", is_flag=True, help="Apply the plan (without it: a dry run).")
DRY_RUN = "dry run: nothing changed; add --execute to apply"


def show(plan, output: str, render: Callable | None = None) -> None:
    """The plan as JSON, or as a table (`render`, or the generic plan table)."""
    if output == "json":
        click.echo(json.dumps(plan.as_dict(), indent=2, default=str))
        return
    if render is None:
        from streamctl.ops.render import plan_table

        render = plan_table
    render(plan)


def finish(plan, execute: bool, run: Callable[[], str | None], nothing: str = "nothing to change") -> None:
    """Apply the plan with `run()` when --execute was given; otherwise say it was a dry run.
    `run` may return the line to print when done (default: the plan's summary)."""
    if not plan.changes:
        click.echo(nothing, err=True)
        return
    if not execute:
        click.echo(DRY_RUN, err=True)
        return
    done = run()
    click.echo(done if isinstance(done, str) else f"done: {plan.summary()}", err=True)
    if plan.read_back:
        click.echo(f"note: {plan.read_back}", err=True)
