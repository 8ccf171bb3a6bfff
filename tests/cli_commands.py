"""The CLI's commands as tests see them, walked from the click tree itself."""

from __future__ import annotations

import click

from streamctl.cli import cli


def mutating_commands() -> set[tuple[str, ...]]:
    """Every CLI command that takes --execute, by its path."""
    found = set()

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), (*path, name))
        elif any(p.name == "execute" for p in command.params):
            found.add(path)

    walk(cli, ())
    return found
