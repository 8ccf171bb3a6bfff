"""`streamctl reassign`: move partitions between brokers. `plan` shows (or writes, -o json) the
moves for a job; `execute` sets a replication throttle on the moving partitions and starts them
(a dry run without --execute); `status` follows them and removes streamctl's throttles once
nothing moves; `cancel` stops the moves in flight, the previous replicas stay."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import UsageError
from streamctl.kafka import clients
from streamctl.kafka.reassign import plans
from streamctl.kafka.reassign.follow import read_layout
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


def job_options(fn):
    for option in reversed((
        click.option("--decommission", type=int, metavar="BROKER", help="Move every replica off this broker."),
        click.option("--replication-factor", metavar="TOPIC=N", help="Change TOPIC's replication factor to N."),
        click.option("--rebalance", is_flag=True, help="Even out bytes on disk and preferred leaders."),
    )):
        fn = option(fn)
    return fn


def reassign_admin(session: Session, operation: str, execute: bool):
    from streamctl.backends.kafka.reassign_admin import ReassignAdmin

    return clients.admin(session, operation, execute, client_class=ReassignAdmin)


@click.command("plan")
@job_options
@click.option("--throttle", metavar="RATE", help="Estimate the duration at this rate (bytes/s, e.g. 10MB).")
@OUTPUT
@click.pass_obj
def reassign_plan(session: Session, decommission, replication_factor, rebalance, throttle, output):
    """The moves for a job, rack-aware and weighed by size on disk; changes nothing.

    \b
    Examples:
      streamctl reassign plan --decommission 3 --throttle 20MB
      streamctl reassign plan --replication-factor orders=3 -o json > move.json
    """
    rate = plans.parse_rate(throttle) if throttle else None
    _, admin = reassign_admin(session, "reassign plan", execute=False)
    layout = read_layout(admin)
    described = plans.describe(layout, plans.moves_for(layout, decommission, replication_factor, rebalance), rate)
    from streamctl.kafka.reassign.render import plan_tables

    emit(output, described, plan_tables)


@click.command("execute")
@job_options
@click.option("--plan", "plan_file", metavar="FILE", help="Execute a plan file (from `reassign plan -o json`).")
@click.option("--throttle", metavar="RATE", required=True, help="Replication throttle per broker (bytes/s, e.g. 10MB).")
@EXECUTE
@OUTPUT
@click.pass_obj
def reassign_execute(session: Session, decommission, replication_factor, rebalance, plan_file, throttle, execute, output):
    """Throttle the moving partitions and start moving them; writes an undo file.

    \b
    Examples:
      streamctl reassign execute --decommission 3 --throttle 20MB
      streamctl reassign execute --plan move.json --throttle 20MB --execute
    """
    from streamctl.kafka.reassign import execute as reassign_exec

    rate = plans.parse_rate(throttle)
    ctx, admin = reassign_admin(session, "reassign execute", execute)
    layout = read_layout(admin)
    if plan_file is not None:
        if decommission is not None or replication_factor or rebalance:
            raise UsageError("--plan FILE goes alone, without --decommission, --replication-factor, --rebalance")
        moves, job = plans.load_plan_file(plan_file, layout), f"plan {plan_file}"
    else:
        moves = plans.moves_for(layout, decommission, replication_factor, rebalance)
        job = (f"decommission {decommission}" if decommission is not None
               else f"replication-factor {replication_factor}" if replication_factor else "rebalance")
    if execute:
        reassign_exec.ensure_idle(admin)
    plan = plans.plan_execute(layout, moves, rate, job)
    show(plan, output)
    finish(plan, execute, lambda: reassign_exec.start(admin, ctx.name, plan, layout, moves, rate))


@click.command("status")
@click.option("--window", type=click.FloatRange(0.0, 300.0), default=2.0, show_default=True, metavar="SECONDS",
              help="Read twice, this far apart, for the rate and ETA (0: one reading, no rate).")
@OUTPUT
@click.pass_obj
def reassign_status(session: Session, window, output):
    """The moves in flight (adding, removing replicas, bytes copied, rate, ETA); when none is
    left, removes the throttles streamctl set (also those of an execute that died).

    \b
    Examples:
      streamctl reassign status --window 5
      streamctl reassign status -o json
    """
    from streamctl.kafka.reassign import execute as reassign_exec
    from streamctl.kafka.reassign.follow import readings
    from streamctl.kafka.reassign.progress import figures
    from streamctl.kafka.reassign.state import recorded_throttles
    from streamctl.ops import ReadOnlyError, require_writable

    ctx, admin = reassign_admin(session, "reassign status", execute=False)
    status: dict = {**figures(*readings(admin, window)), "throttles": None}
    moving = status["in_progress"]
    if not moving and not any(recorded_throttles(ctx.name).values()):
        status["throttles"] = "no throttles of streamctl's to remove"
    elif not moving:
        try:
            require_writable("reassign status (removing throttles)", ctx, session.read_only_flag)
            status["throttles"] = reassign_exec.remove_throttles(admin, ctx.name)
        except ReadOnlyError as exc:
            status["throttles"] = f"throttles left in place: {exc}"
    from streamctl.kafka.reassign.render import status_table

    emit(output, status, status_table)


@click.command("cancel")
@EXECUTE
@OUTPUT
@click.pass_obj
def reassign_cancel(session: Session, execute, output):
    """Stop the moves in flight: each partition keeps its previous replicas; removes the throttles.

    \b
    Example:
      streamctl reassign cancel --execute
    """
    from streamctl.kafka.reassign import execute as reassign_exec

    ctx, admin = reassign_admin(session, "reassign cancel", execute)
    moving = admin.in_flight()
    plan = plans.plan_cancel(moving)
    show(plan, output)
    finish(plan, execute, lambda: reassign_exec.cancel(admin, ctx.name, plan, moving),
           nothing="no reassignment in progress")


@click.group(commands=[reassign_plan, reassign_execute, reassign_status, reassign_cancel])
def reassign() -> None:
    """Move partitions between brokers: plan, execute (throttled), status, cancel."""
