"""`streamctl audit`: the log of executed mutations, from every system."""

from __future__ import annotations

import json

import click

from streamctl.console import OUTPUT
from streamctl.errors import UsageError


@click.command("audit")
@click.option("--since", metavar="ISO8601", help="Only records from this time on.")
@OUTPUT
def audit(since, output):
    """Print the audit log of executed mutations.

    \b
    Examples:
      streamctl audit --since -1h
      streamctl audit -o json
    """
    from datetime import datetime

    from streamctl.ops import audit as log

    when = None
    if since:
        try:
            when = datetime.fromisoformat(since.replace("Z", "+00:00"))
            when = when if when.tzinfo else when.astimezone()
        except (ValueError, OverflowError, OSError):  # not ISO 8601, or outside years 1-9999 in UTC
            raise UsageError(f"--since {since!r}: expected ISO 8601") from None
    records = list(log.read(when))
    if output == "json":
        click.echo(json.dumps(records, indent=2))
        return
    for r in records:
        error = f" ({r['error']})" if r.get("error") else ""
        click.echo(f"{r['time']} {r['user']} [{r['context']}] {r['operation']} {r['result']}: "
                   f"{r['summary']}{error}")
