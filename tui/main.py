"""`streamctl` with no subcommand: open the dashboard for the selected context."""

from __future__ import annotations

import gc
import sys

import click

from streamctl.errors import UsageError
from streamctl.session import Session


@click.command("dashboard")
@click.option("--refresh", type=click.FloatRange(min=0.5), default=5.0, show_default=True,
              help="Seconds between refreshes of the visible screen.")
@click.pass_obj
def dashboard(session: Session, refresh: float) -> None:
    """The interactive dashboard (also what `streamctl` alone opens).

    \b
    Examples:
      streamctl dashboard --refresh 5
      streamctl --context prod --read-only dashboard
    """
    from streamctl.dashboard.source import make_dashboard
    from streamctl.tui.app import StreamctlApp

    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise UsageError("the dashboard needs a terminal; for a headless summary run `streamctl check`")
    source = make_dashboard(session.config_path, session.context_name, session.read_only_flag)

    def other_context(name: str):
        return make_dashboard(session.config_path, name, session.read_only_flag)

    quiet_garbage_collector()
    StreamctlApp(source, refresh_interval=refresh, context_factory=other_context).run()


def quiet_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses off the event loop's critical path.

    Everything imported and built before the app starts lives as long as the process: frozen,
    the collector never scans it again. A larger first generation means a collection every
    50,000 container allocations instead of every 700 (a refresh allocates about 100,000), so
    the full collections that scan everything alive (80+ ms on a large cluster) come every few
    hundred refreshes instead of every other one; each young collection stays near 20 ms."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    gc.enable()  # the CLI runs its commands without it (streamctl/cli.py)
