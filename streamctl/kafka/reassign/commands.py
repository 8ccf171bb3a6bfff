"""`streamctl reassign`: move partitions between brokers. `plan` shows (or writes, -o json) the
moves for a job; `execute` sets a replication throttle on the moving partitions and starts them
(a dry run without --execute); `status` follows them and, once nothing moves, removes streamctl's
throttles and elects the preferred leaders `execute --elect-leaders` asked for; `cancel` stops
the moves in flight, the previous replicas stay."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import UsageError
from streamctl.kafka import clients
from streamctl.kafka.reassign import plans
from streamctl.kafka.reassign.follow import read_layout
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


class BrokerId(click.IntRange):
    """A broker id: a whole number, never negative."""

    name = "broker id"


BROKER_ID = BrokerId(min=0)


def job_options(fn):
    for option in reversed((
        click.option("--decommission", type=BROKER_ID, metavar="BROKER", help="Move every replica off this broker."),
        click.option("--add-broker", type=BROKER_ID, metavar="BROKER",
                     help="Give this (new or nearly empty) broker its share of replicas and leaders."),
        click.option("--replication-factor", metavar="TOPIC=N", help="Change TOPIC's replication factor to N."),
        click.option("--rebalance", is_flag=True, help="Even out bytes on disk and preferred leaders."),
    )):
        fn = option(fn)
    return fn


def _tables(name: str):
    """A table renderer of streamctl.kafka.reassign.render, imported only for table output (Rich)."""
    def render(data) -> None:
        from streamctl.kafka.reassign import render as tables

        getattr(tables, name)(data)
    return render


def reassign_admin(session: Session, operation: str, execute: bool):
    from streamctl.backends.kafka.reassign_admin import ReassignAdmin

    return clients.admin(session, operation, execute, client_class=ReassignAdmin)


@click.command("plan")
@job_options
@click.option("--throttle", metavar="RATE", help="Estimate the duration at this rate (bytes/s, e.g. 10MB).")
@OUTPUT
@click.pass_obj
def reassign_plan(session: Session, decommission, add_broker, replication_factor, rebalance, throttle, output):
    """The moves for a job, rack-aware and weighed by size on disk; changes nothing.

    \b
    Examples:
      streamctl reassign plan --decommission 3 --throttle 20MB
      streamctl reassign plan --add-broker 4 --throttle 20MB
      streamctl reassign plan --replication-factor orders=3 -o json > move.json
    """
    from streamctl.backends.kafka.reassign_admin import ReassignAdmin

    rate = plans.parse_rate(throttle) if throttle else None
    plans.require_one_job(decommission, replication_factor, rebalance, add_broker)
    with clients.wire_reader(session, ReassignAdmin) as (_, admin):  # reads only: no forked child
        layout = read_layout(admin)
    moves = plans.moves_for(layout, decommission, replication_factor, rebalance, add_broker)
    emit(output, plans.describe(layout, moves, rate), _tables("plan_tables"))


@click.command("execute")
@job_options
@click.option("--plan", "plan_file", metavar="FILE", help="Execute a plan file (from `reassign plan -o json`).")
@click.option("--throttle", metavar="RATE", required=True, help="Replication throttle per broker (bytes/s, e.g. 10MB).")
@click.option("--elect-leaders", is_flag=True,
              help="Once the move is done, `reassign status` elects the moved partitions' preferred leaders.")
@EXECUTE
@OUTPUT
@click.pass_obj
def reassign_execute(session: Session, decommission, add_broker, replication_factor, rebalance, plan_file, throttle,
                     elect_leaders, execute, output):
    """Throttle the moving partitions and start moving them; writes an undo file.

    \b
    Examples:
      streamctl reassign execute --decommission 3 --throttle 20MB
      streamctl reassign execute --plan move.json --throttle 20MB --execute
      streamctl reassign execute --add-broker 4 --throttle 20MB --elect-leaders --execute
    """
    from streamctl.kafka.reassign import execute as reassign_exec

    rate = plans.parse_rate(throttle)
    if plan_file is not None:
        if decommission is not None or add_broker is not None or replication_factor or rebalance:
            raise UsageError(f"--plan FILE goes alone, without {plans.JOBS}")
    else:
        plans.require_one_job(decommission, replication_factor, rebalance, add_broker)
    ctx, admin = reassign_admin(session, "reassign execute", execute)
    layout = read_layout(admin)
    if plan_file is not None:
        moves, job = plans.load_plan_file(plan_file, layout), f"plan {plan_file}"
    else:
        chosen = plans.Job(decommission, add_broker, replication_factor, rebalance)
        moves, job = chosen.moves(layout), chosen.label
    if execute:
        reassign_exec.ensure_idle(admin)
    plan = plans.plan_execute(layout, moves, rate, job, elect_leaders)
    show(plan, output)
    finish(plan, execute, lambda: reassign_exec.start(admin, ctx.name, plan, layout, moves, rate, elect_leaders))


@click.command("status")
@click.option("--window", type=click.FloatRange(0.0, 300.0), default=2.0, show_default=True, metavar="SECONDS",
              help="Read twice, this far apart, for the rate and ETA (0: one reading, no rate).")
@OUTPUT
@click.pass_obj
def reassign_status(session: Session, window, output):
    """The moves in flight (adding, removing replicas, bytes copied, rate, ETA); when none is
    left, removes the throttles streamctl set and elects the preferred leaders `execute
    --elect-leaders` asked for (also after an execute that died).

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
    status["leaders"] = leaders_after_move(session, ctx, moving)
    emit(output, status, _tables("status_table"))


def leaders_after_move(session: Session, ctx, moving: dict) -> str | None:
    """What became of the preferred-leader election `execute --elect-leaders` asked for (None: none
    asked): elected once nothing moves; a failure or read-only mode keeps it for the next status."""
    from streamctl.errors import StreamctlError
    from streamctl.kafka.reassign import execute as reassign_exec
    from streamctl.kafka.reassign.state import recorded_elections
    from streamctl.ops import ReadOnlyError, require_writable

    wanted = recorded_elections(ctx.name)
    if not wanted:
        return None
    if moving:
        return f"preferred leaders of {len(wanted)} moved partition(s) to elect once nothing moves"
    try:
        require_writable("reassign status (electing preferred leaders)", ctx, session.read_only_flag)
        _, kafka_admin = clients.admin(session, "reassign status", execute=False)
        return reassign_exec.elect_moved_leaders(kafka_admin, ctx.name)
    except ReadOnlyError as exc:
        return f"preferred leaders not elected: {exc}"
    except StreamctlError as exc:
        return f"preferred leaders not elected ({exc}); the next `reassign status` tries again"


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
