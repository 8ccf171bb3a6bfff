"""`streamctl contexts`: the config's contexts, kubectl-style (`kubectl config get-contexts`)."""

from __future__ import annotations

import click

from streamctl.errors import StreamctlError
from streamctl.session import Session

OUTPUTS = click.Choice(["table", "json"])
OUTPUT_HELP = "table, or json (a list of objects)."


class Unreachable(StreamctlError):
    """`contexts test`: a system of a context did not answer (exit 1, as any command that could not do its job)."""


@click.group("contexts", invoke_without_command=True)
@click.pass_context
def contexts(ctx: click.Context) -> None:
    """List the config's contexts, show or switch the current one, test that each reaches its systems.

    \b
    Examples:
      streamctl contexts
      streamctl contexts use prod
      streamctl contexts test prod staging
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_contexts)


@contexts.command("list")
@click.option("-o", "--output", type=OUTPUTS, default="table", show_default=True, help=OUTPUT_HELP)
@click.pass_obj
def list_contexts(session: Session, output: str) -> None:
    """Every context: the current one marked, the systems each configures.

    \b
    Examples:
      streamctl contexts list -o json
    """
    from streamctl.check.evaluate import configured_components
    from streamctl.console import emit, simple_table

    config = session.config()
    rows = [{"name": name, "current": name == config.current_context, "systems": configured_components(ctx)}
            for name, ctx in config.contexts.items()]
    emit(output, rows, lambda rows: simple_table(
        str(config.path), ["CURRENT", "NAME", "SYSTEMS"],
        [["*" if r["current"] else "", r["name"], ", ".join(r["systems"])] for r in rows]))


@contexts.command("current")
@click.pass_obj
def current_context(session: Session) -> None:
    """The current-context's name.

    \b
    Examples:
      streamctl contexts current
    """
    click.echo(session.config().context().name)


@contexts.command("use")
@click.argument("name")
@click.pass_obj
def use(session: Session, name: str) -> None:
    """Make NAME the current-context (the file is rewritten atomically, comments kept).

    \b
    Examples:
      streamctl contexts use staging
    """
    from streamctl.config.write import use_context

    use_context(name, session.config_path)
    click.echo(f"current-context: {name}")


@contexts.command("test")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--timeout", type=click.FloatRange(min=0.5), default=15.0, show_default=True,
              help="Deadline in seconds for the whole test; each system also keeps its own timeout.")
@click.option("-o", "--output", type=OUTPUTS, default="table", show_default=True, help=OUTPUT_HELP)
@click.pass_obj
def reach(session: Session, names: tuple[str, ...], timeout: float, output: str) -> None:
    """Reach every system of each context (default: every context) at once: reachable, version,
    mode, latency. Exit 1 naming each system that did not answer.

    \b
    Examples:
      streamctl contexts test
      streamctl contexts test prod staging --timeout 5 -o json
    """
    from dataclasses import asdict

    from streamctl.config.schema import ConfigError, known_contexts
    from streamctl.console import emit, simple_table
    from streamctl.contexts.probe import probe_contexts

    config = session.config()
    unknown = [n for n in names if n not in config.contexts]
    if unknown:
        raise ConfigError(f"no context {', '.join(repr(n) for n in unknown)} in {config.path} "
                          f"({known_contexts(config.contexts)})")
    found = probe_contexts(config, list(dict.fromkeys(names)) or list(config.contexts), timeout)
    emit(output, [asdict(p) for p in found], lambda _: simple_table(
        "contexts test", ["CONTEXT", "SYSTEM", "REACHABLE", "VERSION", "MODE", "LATENCY MS", "ERROR"],
        [[p.context, p.system, "yes" if p.reachable else "NO", p.version, p.mode, p.latency_ms, p.error]
         for p in found], right=("LATENCY MS",)))
    failed = [p for p in found if not p.reachable]
    if failed:
        raise Unreachable("unreachable: " + "; ".join(f"{p.context} {p.system}: {p.error}" for p in failed))
