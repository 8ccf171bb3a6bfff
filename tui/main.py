"""`streamctl` with no subcommand: open the dashboard for the selected context."""

from __future__ import annotations

import sys

import click

from streamctl.commands.common import Session
from streamctl.errors import UsageError


@click.command("dashboard")
@click.option("--refresh", type=click.FloatRange(min=0.5), default=5.0, show_default=True,
              help="Seconds between refreshes of the visible screen.")
@click.pass_obj
def dashboard(session: Session, refresh: float) -> None:
    """The interactive dashboard (also what `streamctl` alone opens)."""
    from streamctl.dashboard import make_dashboard
    from streamctl.tui.app import StreamctlApp

    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise UsageError("the dashboard needs a terminal; for a headless summary run `streamctl check`")
    source = make_dashboard(session.config_path, session.context_name, session.read_only_flag)

    def other_context(name: str):
        return make_dashboard(session.config_path, name, session.read_only_flag)

    StreamctlApp(source, refresh_interval=refresh, context_factory=other_context).run()
