"""Kafka Streams apps: list, describe, reset (the application reset tool's plan)."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import StreamctlError, UsageError
from streamctl.kafka import clients
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


def _apps(session: Session, app_id: str | None = None):
    """The context and its Streams apps (one app's group only, when named)."""
    from streamctl.kafka.streams.apps import find_apps

    with clients.cluster(session) as (ctx, kafka):
        keep = (lambda g: g == app_id) if app_id else (lambda g: True)
        snap = kafka.snapshot(lag_time=False, group_filter=keep,
                              known_groups=[app_id] if app_id else clients.history_groups(ctx))
    outputs = {name: app.outputs for name, app in ctx.kafka.streams.items()}
    apps = find_apps(snap, ctx.thresholds.allowed_lag, outputs)
    if snap.errors and not apps:
        raise StreamctlError(f"Streams apps unreadable: {snap.errors[0]}")
    return apps


def app_dict(app) -> dict:
    from dataclasses import asdict

    return {**asdict(app), "lag": app.lag, "threads": app.threads}


@click.group()
def streams() -> None:
    """Kafka Streams apps: list, describe, reset."""


@streams.command("list")
@OUTPUT
@click.pass_obj
def streams_list(session: Session, output: str) -> None:
    """Every Streams app: status, instances, threads, topics and lag.

    \b
    Example:
      streamctl streams list -o json
    """
    from streamctl.kafka.streams.render import streams_table

    emit(output, [app_dict(a) for a in _apps(session)], streams_table)


@streams.command("describe")
@click.argument("app_id", metavar="APP")
@OUTPUT
@click.pass_obj
def streams_describe(session: Session, app_id: str, output: str) -> None:
    """An app's input, internal and output topics with sizes and lag, and its instances.

    \b
    Example:
      streamctl streams describe weblog-statuses
    """
    from streamctl.kafka.streams.render import streams_detail

    apps = _apps(session, app_id)
    if not apps:
        raise UsageError(f"no Kafka Streams app {app_id!r} (no such group, or not a Streams app's)")
    emit(output, app_dict(apps[0]), streams_detail)


@streams.command("reset")
@click.argument("app_id", metavar="APP")
@click.option("--to-earliest", is_flag=True, help="Inputs from their first record (the default).")
@click.option("--to-datetime", metavar="ISO8601", help="Inputs from the first record at or after this time.")
@click.option("--by-duration", metavar="TIME", help="Inputs from this long ago: 1h, -30m, 2d, PT1H, P1DT2H.")
@EXECUTE
@OUTPUT
@click.pass_obj
def streams_reset(session: Session, app_id, to_earliest, to_datetime, by_duration, execute, output):
    """Reprocess from the inputs: their offsets moved, internal topics deleted (app stopped first).

    \b
    Examples:
      streamctl streams reset weblog-statuses --to-earliest            # the plan
      streamctl streams reset weblog-statuses --to-earliest --execute
    """
    from streamctl import times
    from streamctl.kafka.groups.render import reset_table
    from streamctl.kafka.streams import execute as streams_exec
    from streamctl.kafka.streams.reset import MODES, plan_streams_reset

    chosen = [(m, v) for m, v in (("to-datetime", to_datetime), ("by-duration", by_duration)) if v is not None]
    chosen += [("to-earliest", None)] if to_earliest else []
    if len(chosen) > 1:
        raise UsageError(f"give at most one of --{', --'.join(MODES)}")
    mode, value = chosen[0] if chosen else ("to-earliest", None)
    if mode == "to-datetime" and value is not None:  # chosen only when given
        times.parse_datetime(value)
    if mode == "by-duration" and value is not None:
        times.parse_time(value, "--by-duration")
    ctx, admin = clients.admin(session, "streams reset", execute)
    plan, resets = plan_streams_reset(admin, app_id, mode, value, declared=ctx.kafka.streams)
    show(plan, output, lambda p: reset_table(p, resets))

    def run():
        undo = streams_exec.reset_streams_app(admin, ctx.name, plan, resets)
        if undo:
            click.echo(f"undo file: {undo} (streamctl groups undo-reset {app_id})", err=True)

    finish(plan, execute, run)
