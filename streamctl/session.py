"""What every command shares: the session (global options), output switches, emitters."""

from __future__ import annotations

import json
from pathlib import Path

import click

OUTPUT = click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table",
                      show_default=True, help="Output format.")


class Session:
    """What the global options select, resolved lazily (a bad config only fails commands that read it)."""

    def __init__(self, context: str | None, config: str | None, read_only: bool):
        self.context_name = context
        self.config_arg = config
        self.read_only_flag = read_only

    @property
    def config_path(self) -> Path:
        from streamctl import paths

        return paths.config_file(self.config_arg)

    def context(self):
        from streamctl.config import load_config

        return load_config(self.config_path).context(self.context_name)


def emit(output: str, data, render) -> None:
    """JSON to stdout, or the rich renderer for tables."""
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        render(data)
