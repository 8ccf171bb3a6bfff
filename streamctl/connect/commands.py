"""`streamctl connect`: Kafka Connect connectors and tasks (reads, and operations as plans)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import UsageError
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


@click.group()
def connect() -> None:
    """Kafka Connect: list, status, describe, plugins, offsets (operations: create, update, pause,
    resume, stop, restart, delete, offsets reset)."""


def _render(name: str):
    """A table renderer of streamctl.connect.render, imported only for table output (Rich)."""
    def render(data) -> None:
        from streamctl.connect import render as tables

        getattr(tables, name)(data)
    return render


@contextmanager
def _connect(session: Session, operation: str | None = None, execute: bool = False):
    """The context and a client for its Connect cluster; an operation's execution refused in
    read-only mode (its dry run is not)."""
    from streamctl.connect.collect import backend_for

    ctx = session.context()
    if operation:  # refused before anything is read
        from streamctl.ops import require_writable

        require_writable(operation, ctx, session.read_only_flag, execute)
    if ctx.connect is None:
        raise UsageError(f"context '{ctx.name}' has no connect: section (the workers' REST URLs)")
    with backend_for(ctx) as backend:
        yield ctx, backend


@connect.command("list")
@OUTPUT
@click.pass_obj
def connect_list(session: Session, output: str) -> None:
    """Every connector with type, state and tasks (one REST call for all of them).

    \b
    Examples:
      streamctl connect list
      streamctl connect list -o json
    """
    from streamctl.connect import serialize

    with _connect(session) as (_, backend):
        cluster = backend.cluster()
    emit(output, serialize.cluster_summary(cluster), _render("connectors_table"))


@connect.command("status")
@click.argument("name")
@click.option("--trace", is_flag=True, help="Failed tasks' whole stack traces (default: the first line).")
@OUTPUT
@click.pass_obj
def connect_status(session: Session, name: str, trace: bool, output: str) -> None:
    """A connector's state and its tasks with their workers.

    \b
    Example:
      streamctl connect status weblog-archive --trace
    """
    from streamctl.connect import serialize
    from streamctl.connect.plans import existing

    with _connect(session) as (_, backend):
        connector = existing(backend, name)
    emit(output, serialize.connector_status(connector, trace), _render("status_view"))


@connect.command("describe")
@click.argument("name")
@OUTPUT
@click.pass_obj
def connect_describe(session: Session, name: str, output: str) -> None:
    """A connector's config (secrets masked).

    \b
    Example:
      streamctl connect describe weblog-archive -o json
    """
    from streamctl.connect import serialize
    from streamctl.connect.plans import existing

    with _connect(session) as (_, backend):
        connector = existing(backend, name)
    emit(output, serialize.connector_config(connector), _render("config_table"))


@connect.command("plugins")
@OUTPUT
@click.pass_obj
def connect_plugins(session: Session, output: str) -> None:
    """Connector plugins installed on the workers.

    \b
    Example:
      streamctl connect plugins -o json
    """

    with _connect(session) as (_, backend):
        plugins = backend.plugins()
    emit(output, [{"class": p.class_name, "type": p.type, "version": p.version} for p in plugins], _render("plugins_table"))


# ---- create and update ---------------------------------------------------------------------

def _config_option(f):
    return click.option("--config", "config_file", required=True, type=click.Path(path_type=Path),
                        help="JSON ({\"name\", \"config\"} or flat) or Java properties.")(f)


@connect.command("create")
@click.argument("name", required=False)
@_config_option
@EXECUTE
@OUTPUT
@click.pass_obj
def connect_create(session: Session, name: str | None, config_file: Path, execute: bool, output: str) -> None:
    """Create a connector (the worker validates the config first; the plan lists it, masked).

    \b
    Examples:
      streamctl connect create weblog-archive --config archive.json            # validate and plan
      streamctl connect create weblog-archive --config archive.json --execute
    """
    from streamctl.connect import plans

    with _connect(session, "connect create", execute) as (ctx, backend):
        file_name, config = plans.read_config_file(config_file)
        name = name or file_name
        if not name:
            raise UsageError(f"no connector name: give NAME or a \"name\" in {config_file}")
        plan = plans.plan_create(backend, name, config)
        show(plan, output)
        finish(plan, execute, lambda: plans.apply_config(ctx, backend, plan))


@connect.command("update")
@click.argument("name")
@_config_option
@EXECUTE
@OUTPUT
@click.pass_obj
def connect_update(session: Session, name: str, config_file: Path, execute: bool, output: str) -> None:
    """Replace a connector's config (the plan is the diff, secrets masked).

    \b
    Examples:
      streamctl connect update weblog-archive --config archive.json             # the diff
      streamctl connect update weblog-archive --config archive.json --execute
    """
    from streamctl.connect import plans

    with _connect(session, "connect update", execute) as (ctx, backend):
        _, config = plans.read_config_file(config_file)
        plan = plans.plan_update(backend, name, config)
        show(plan, output)
        finish(plan, execute, lambda: plans.apply_config(ctx, backend, plan),
               nothing=f"nothing to change: connector {name} has this config")


# ---- state changes ------------------------------------------------------------------------

def _state_command(action: str, help_text: str):
    example = f"\n\n\b\nExample:\n  streamctl connect {action} weblog-archive --execute"
    @connect.command(action, help=help_text + example)
    @click.argument("name")
    @EXECUTE
    @OUTPUT
    @click.pass_obj
    def command(session: Session, name: str, execute: bool, output: str) -> None:
        from streamctl.connect import plans

        with _connect(session, f"connect {action}", execute) as (ctx, backend):
            plan = plans.plan_state(backend, name, action)
            show(plan, output)
            finish(plan, execute, lambda: plans.apply_state(ctx, backend, plan),
                   nothing=f"nothing to change: connector {name} is {plans.TARGET_STATE[action]} already")

    return command


connect_pause = _state_command("pause", "Pause a connector and its tasks (they stay assigned).")
connect_resume = _state_command("resume", "Resume a paused or stopped connector.")
connect_stop = _state_command("stop", "Stop a connector: its tasks shut down (offsets can then be reset).")


@connect.command("restart")
@click.argument("name")
@click.option("--include-tasks", is_flag=True, help="Restart the tasks too.")
@click.option("--only-failed", is_flag=True, help="Only what is FAILED.")
@EXECUTE
@OUTPUT
@click.pass_obj
def connect_restart(session: Session, name: str, include_tasks: bool, only_failed: bool, execute: bool,
                    output: str) -> None:
    """Restart a connector (and with --include-tasks its tasks).

    \b
    Example:
      streamctl connect restart weblog-archive --include-tasks --only-failed --execute
    """
    from streamctl.connect import plans

    with _connect(session, "connect restart", execute) as (ctx, backend):
        plan = plans.plan_restart(backend, name, include_tasks, only_failed)
        show(plan, output)
        finish(plan, execute, lambda: plans.apply_state(ctx, backend, plan),
               nothing=f"nothing to change: nothing of connector {name} is FAILED")


@connect.command("delete")
@click.argument("name")
@EXECUTE
@OUTPUT
@click.pass_obj
def connect_delete(session: Session, name: str, execute: bool, output: str) -> None:
    """Delete a connector (a sink's consumer group keeps its offsets).

    \b
    Example:
      streamctl connect delete weblog-archive --execute
    """
    from streamctl.connect import plans

    with _connect(session, "connect delete", execute) as (ctx, backend):
        plan = plans.plan_delete(backend, name)
        show(plan, output)
        finish(plan, execute, lambda: plans.apply_state(ctx, backend, plan))


# ---- offsets ---------------------------------------------------------------------------------

class _ShowByDefault(click.Group):
    """`connect offsets NAME` shows them; `connect offsets reset|undo NAME` change them."""

    def resolve_command(self, ctx, args):
        if args and args[0] not in self.commands:
            args = ["show", *args]
        return super().resolve_command(ctx, args)


@connect.group("offsets", cls=_ShowByDefault)
def connect_offsets() -> None:
    """A connector's offsets (KIP-875): show (the default), reset, undo."""


@connect_offsets.command("show")
@click.argument("name")
@OUTPUT
@click.pass_obj
def offsets_show(session: Session, name: str, output: str) -> None:
    """The connector's offsets (a sink's: its consumer group's, per partition).

    \b
    Example:
      streamctl connect offsets show weblog-archive
    """
    from streamctl.connect.plans import compact, existing, partition_label

    with _connect(session) as (_, backend):
        existing(backend, name)
        offsets = backend.offsets(name)
    data = {"connector": name, "offsets": [{"partition": partition_label(e.get("partition")),
                                            "offset": compact(e.get("offset")), "raw": e} for e in offsets]}
    emit(output, data, _render("offsets_table"))


@connect_offsets.command("reset")
@click.argument("name")
@EXECUTE
@OUTPUT
@click.pass_obj
def offsets_reset(session: Session, name: str, execute: bool, output: str) -> None:
    """Remove every offset of a STOPPED connector (an undo file is written first).

    \b
    Example:
      streamctl connect offsets reset weblog-archive --execute   # after: streamctl connect stop
    """
    from streamctl.connect import plans

    with _connect(session, "connect offsets reset", execute) as (ctx, backend):
        plan = plans.plan_offsets_reset(backend, name)
        show(plan, output)
        finish(plan, execute, lambda: plans.apply_offsets_reset(ctx, backend, plan),
               nothing=f"nothing to change: connector {name} has no offsets")


@connect_offsets.command("undo")
@click.argument("name")
@click.option("--file", "undo_file", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="An undo file (default: the last reset's).")
@EXECUTE
@OUTPUT
@click.pass_obj
def offsets_undo(session: Session, name: str, undo_file: Path | None, execute: bool, output: str) -> None:
    """Put back the offsets a reset removed (the connector must be STOPPED).

    \b
    Example:
      streamctl connect offsets undo weblog-archive --execute
    """
    from streamctl.connect import plans

    with _connect(session, "connect offsets undo", execute) as (ctx, backend):
        plan = plans.plan_offsets_undo(backend, ctx.name, name, undo_file)
        show(plan, output)
        finish(plan, execute, lambda: plans.apply_offsets_undo(ctx, backend, plan),
               nothing="nothing to change: the undo file holds no offsets")
