"""The `streamctl` command line. Command groups load on demand: `check` pays only for its own imports."""

from __future__ import annotations

import atexit
import gc
import importlib.util
import sys

import click

from streamctl import systems
from streamctl.errors import ExitCode, StreamctlError, UsageError, exit_code_for
from streamctl.global_options import add_global_options, root_options
from streamctl.session import Session

# name -> "module:attribute" of a click command; imported only when that command runs.
# streamctl's own commands, then every system's (the registry: streamctl/systems.py).
OWN_COMMANDS = {
    "dashboard": "streamctl.tui.main:dashboard",
    "check": "streamctl.check.command:check_command",
    "contexts": "streamctl.contexts.commands:contexts",
    "sandbox": "streamctl.sandbox.commands:sandbox",
    "audit": "streamctl.ops.commands:audit",
    "completion": "streamctl.completion:completion",
}
COMMANDS = {**OWN_COMMANDS, **systems.commands()}


class LazyGroup(click.Group):
    """click's documented lazy-loading group: subcommands are imported when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, target in COMMANDS.items() if _installed(target))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None or not _installed(target):
            return None
        return add_global_options(systems.load(target))


def _installed(target: str) -> bool:
    return importlib.util.find_spec(target.split(":", maxsplit=1)[0]) is not None


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from streamctl.versions import version_report

        click.echo(version_report())
        ctx.exit()


@click.group(cls=LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@root_options
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show streamctl's version and its client libraries' (librdkafka, kazoo, textual, ...), then exit.")
@click.pass_context
def cli(ctx: click.Context, context: str | None, config: str | None, read_only: bool) -> None:
    """Operations console for Kafka, ZooKeeper, Flume and Spark Structured Streaming."""
    ctx.obj = Session(context, config, read_only)
    if ctx.invoked_subcommand is None:
        assert isinstance(ctx.command, click.Group)  # this group, or a subclass of it
        dashboard = ctx.command.get_command(ctx, "dashboard")
        assert dashboard is not None  # one of COMMANDS
        ctx.invoke(dashboard)


# ---- entry point ----------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    # A command runs for seconds and frees next to nothing in cycles (310 objects in a large
    # cluster's `check`), while the cyclic collector kept rescanning its live objects: ~9% of
    # `check`'s CPU with the default thresholds. Commands run without it; the dashboard, which
    # runs for hours, turns it back on (tui/main.py).
    gc.disable()
    # The interpreter's exit collects every object still alive, which are nearly all of them
    # (modules, the config, the clients): 60-90 ms of a short command's time for nothing the
    # process needs. Frozen objects are left out of that collection; it is done at exit only
    # (atexit), so a caller in the same process (tests) keeps its collector as it was.
    atexit.unregister(gc.freeze)  # registered once, however often main() runs
    atexit.register(gc.freeze)
    try:
        return _run(argv)
    finally:
        gc.enable()  # for a caller in the same process (tests)


def _run(argv: list[str] | None) -> int:
    try:
        code = cli.main(args=argv, prog_name="streamctl", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("streamctl: aborted", err=True)
        return ExitCode.INTERRUPTED
    except click.ClickException as exc:  # usage errors: bad option, missing argument
        click.echo(f"streamctl: error: {exc.format_message()}", err=True)
        return UsageError.exit_code
    except StreamctlError as exc:
        click.echo(f"streamctl: error: {exc}", err=True)
        return exit_code_for(exc)
    except KeyboardInterrupt as exc:
        click.echo("streamctl: interrupted", err=True)
        return exit_code_for(exc)
    return code if isinstance(code, int) else ExitCode.OK  # ctx.exit(n) returns n here


if __name__ == "__main__":
    sys.exit(main())
