"""The global options (--context, --config, --read-only), accepted as kubectl takes them: before
the subcommand or after it, at any depth (`streamctl topics list --context prod -o json`).

The root group defines them and creates the Session; every command and group under it gets the
same options, whose values update that Session (the last one given wins). A command that defines
one of these names itself keeps its own meaning (`topics create --config KEY=VALUE`,
`connect create --config FILE`): there the global one goes before the subcommand, or in
$STREAMCTL_CONFIG. docs/cli.md states the rule.
"""

from __future__ import annotations

import click

from streamctl.session import Session

CONTEXT_HELP = "Config context to use (default: current-context)."
CONFIG_HELP = "Config file (default: $STREAMCTL_CONFIG or the XDG config dir)."
READ_ONLY_HELP = "Refuse every mutation (plans are still shown)."
_MARK = "_streamctl_global_options"
_SEEN = {"config_arg": "streamctl.config", "context_name": "streamctl.context"}  # ctx.meta: given after a subcommand


def chosen_config(ctx: click.Context) -> str | None:
    """The --config of the command line so far (also while completing, when no Session exists)."""
    session = ctx.find_object(Session)  # none while completing: no command callback runs
    return session.config_arg if session else ctx.meta.get(_SEEN["config_arg"], ctx.find_root().params.get("config"))


def chosen_context(ctx: click.Context) -> str | None:
    """The --context of the command line so far, like chosen_config."""
    session = ctx.find_object(Session)
    return session.context_name if session else ctx.meta.get(_SEEN["context_name"],
                                                             ctx.find_root().params.get("context"))


def _complete_contexts(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Context names of the config file chosen so far, for shell completion."""
    from streamctl.config import load_config
    from streamctl.errors import StreamctlError

    try:
        names = load_config(chosen_config(ctx)).contexts
    except StreamctlError:
        return []
    return [name for name in sorted(names) if name.startswith(incomplete)]


def root_options(function):
    """The options as the root group declares them: their values make the Session."""
    function = click.option("--read-only", is_flag=True, help=READ_ONLY_HELP)(function)
    function = click.option("--config", "config", metavar="PATH", type=click.Path(dir_okay=False),
                            help=CONFIG_HELP)(function)
    return click.option("--context", "context", metavar="NAME", help=CONTEXT_HELP,
                        shell_complete=_complete_contexts)(function)


def _set(attribute: str):
    def callback(ctx: click.Context, param: click.Parameter, value):
        session = ctx.find_object(Session)
        if value not in (None, False):
            if session is not None:
                setattr(session, attribute, value)
            if attribute in _SEEN:
                ctx.meta[_SEEN[attribute]] = value
        return value

    return callback


def _options() -> list[click.Option]:
    """Fresh copies for one command (click keeps per-command parameter objects)."""
    return [
        click.Option(["--context", "global_context"], metavar="NAME", expose_value=False,
                     help=CONTEXT_HELP, callback=_set("context_name"), shell_complete=_complete_contexts),
        click.Option(["--config", "global_config"], metavar="PATH", expose_value=False,
                     type=click.Path(dir_okay=False), help=CONFIG_HELP, callback=_set("config_arg")),
        click.Option(["--read-only", "global_read_only"], is_flag=True, expose_value=False,
                     help=READ_ONLY_HELP, callback=_set("read_only_flag")),
    ]


def add_global_options(command: click.Command) -> click.Command:
    """Give `command`, and every command under it, the global options it does not define itself."""
    if getattr(command, _MARK, False):
        return command
    taken = {opt for param in command.params for opt in param.opts + param.secondary_opts}
    command.params.extend(o for o in _options() if not taken.intersection(o.opts))
    setattr(command, _MARK, True)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_global_options(sub)
    return command
