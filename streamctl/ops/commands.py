"""`streamctl audit`: the log of executed mutations, from every system."""

from __future__ import annotations

import json
from datetime import UTC

import click

from streamctl.console import OUTPUT


@click.command("audit")
@click.option("--since", metavar="TIME", help="Only records from this time on: ISO 8601, -1h, -30m, -2d, PT1H.")
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
    from streamctl.times import parse_time

    when = datetime.fromtimestamp(parse_time(since, "--since") / 1000, tz=UTC) if since else None
    records = list(log.read(when))
    if output == "json":
        click.echo(json.dumps(records, indent=2))
        return
    for r in records:
        error = f" ({r['error']})" if r.get("error") else ""
        click.echo(f"{r['time']} {r['user']} [{r['context']}] {r['operation']} {r['result']}: "
                   f"{r['summary']}{error}")
