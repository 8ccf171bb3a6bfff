"""Shell completion: `streamctl completion bash|zsh|fish` and the completers of names.

click completes commands and options by itself; this adds what it cannot know: the config's
context names (streamctl.global_options, from the file, no network), and, through
`streamctl.kafka.completion`, topic and group names. A completer never fails the shell:
anything it cannot read completes nothing.
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_STREAMCTL_COMPLETE"


def completion_context(ctx: click.Context):
    """The config context the command line being completed selects, or None if it cannot be read."""
    from streamctl.config import load_config
    from streamctl.errors import StreamctlError
    from streamctl.global_options import chosen_config, chosen_context

    try:
        return load_config(chosen_config(ctx)).context(chosen_context(ctx))
    except StreamctlError:
        return None


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
    completion_class = get_completion_class(shell)
    assert completion_class is not None  # shell is one of click's own choices
    click.echo(completion_class(root, {}, "streamctl", COMPLETE_VAR).source())
