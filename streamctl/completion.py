"""Shell completion: `streamctl completion bash|zsh|fish` and the completers of names.

click completes commands and options by itself; this adds what it cannot know: the config's
context names (read from the file, no network), and, through `streamctl.kafka.completion`,
topic and group names. A completer never fails the shell: anything it cannot read completes
nothing.
"""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem, get_completion_class

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_STREAMCTL_COMPLETE"


def _root_params(ctx: click.Context) -> dict:
    return ctx.find_root().params


def completion_context(ctx: click.Context):
    """The config context the command line being completed selects, or None if it cannot be read."""
    from streamctl.config import load_config
    from streamctl.errors import StreamctlError
    from streamctl.paths import config_file

    params = _root_params(ctx)
    try:
        return load_config(config_file(params.get("config"))).context(params.get("context"))
    except StreamctlError:
        return None


def complete_context(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The names of the config file's contexts."""
    from streamctl.config import load_config
    from streamctl.errors import StreamctlError
    from streamctl.paths import config_file

    try:
        names = load_config(config_file(_root_params(ctx).get("config"))).contexts
    except StreamctlError:
        return []
    return [CompletionItem(name) for name in sorted(names) if name.startswith(incomplete)]


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the shell completion script for SHELL (commands, options, context, topic and group names).

    \b
    Examples:
      eval "$(streamctl completion bash)"              # in ~/.bashrc
      eval "$(streamctl completion zsh)"               # in ~/.zshrc
      streamctl completion fish > ~/.config/fish/completions/streamctl.fish
    """
    root = ctx.find_root().command  # the `streamctl` group, whichever entry point built it
    click.echo(get_completion_class(shell)(root, {}, "streamctl", COMPLETE_VAR).source())
