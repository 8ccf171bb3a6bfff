"""`streamctl groups`: list, describe and lag (reads), reset-offsets and undo-reset (each shows
its plan; only --execute changes anything), with the records command peek registered beside them."""

from __future__ import annotations

import click

from streamctl import times
from streamctl.console import OUTPUT, emit
from streamctl.errors import StreamctlError, UsageError
from streamctl.kafka import clients
from streamctl.kafka.completion import complete_group
from streamctl.kafka.groups import execute as group_exec
from streamctl.kafka.records import commands as record_commands
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


def _groups_read(snap, name: str | None = None) -> None:
    """No groups (or not the one asked for) in a partial snapshot means unknown, not absent."""
    missing = snap.group(name) is None if name else not snap.groups
    if missing and snap.errors:
        what = f"consumer group {name!r}" if name else "consumer groups"
        raise StreamctlError(f"{what} unreadable: {snap.errors[0]}")
    if name and snap.group(name) is None:
        raise UsageError(f"no consumer group {name!r} in the cluster")
    clients.warn_incomplete(snap)


@click.command("list")
@OUTPUT
@click.option("--sort", type=click.Choice(["name", "lag"]), default="name", show_default=True,
              help="Row order (lag: largest first).")
@click.option("--type", "types", multiple=True, metavar="TYPE",
              help="Only groups of this type: classic, consumer, share or streams (repeatable).")
@click.pass_obj
def groups_list(session: Session, output: str, sort: str, types: tuple[str, ...]) -> None:
    """Every group with its type, state, members, topics and total lag.

    The type (classic, consumer, share, streams) comes from ListGroups v5 (Kafka 3.8 and
    later); an older broker's groups are classic. Share and streams groups show state and type.

    \b
    Examples:
      streamctl groups list --sort lag
      streamctl groups list --type consumer --type share
      streamctl groups list -o json
    """
    from streamctl.backends.kafka.wire_reads import GROUP_TYPES
    from streamctl.kafka import serialize
    from streamctl.kafka.health import Filters

    wanted = {t.lower() for t in types}
    if unknown := sorted(wanted - set(GROUP_TYPES)):
        raise UsageError(f"unknown group type {unknown[0]!r}: one of {', '.join(GROUP_TYPES)}")
    with clients.cluster(session) as (ctx, kafka):
        snap = kafka.snapshot(group_filter=Filters.from_context(ctx).group, known_groups=clients.history_groups(ctx),
                              group_types=True)
    _groups_read(snap)
    rows = [serialize.group_summary(g, snap) for g in snap.groups
            if not wanted or (g.type or "").lower() in wanted]
    if sort == "lag":
        rows.sort(key=lambda r: r["lag"], reverse=True)
    from streamctl.kafka.groups.render import groups_table

    emit(output, rows, groups_table)


@click.command("describe")
@click.argument("name", shell_complete=complete_group)
@OUTPUT
@click.pass_obj
def groups_describe(session: Session, name: str, output: str) -> None:
    """A group's members, assignments and per-partition offsets and lag.

    \b
    Example:
      streamctl groups describe connect-weblog-archive -o json
    """
    from streamctl.kafka import serialize

    with clients.cluster(session) as (_, kafka):
        snap = kafka.snapshot(group_filter=lambda g: g == name, known_groups=[name])
    _groups_read(snap, name)
    group = snap.group(name)
    from streamctl.kafka.groups.render import group_detail

    emit(output, serialize.group_detail(group, snap), group_detail)


@click.command("lag")
@click.argument("name", required=False, shell_complete=complete_group)
@OUTPUT
@click.option("--sort", type=click.Choice(["lag", "group"]), default="lag", show_default=True,
              help="Row order (lag: largest first).")
@click.pass_obj
def groups_lag(session: Session, name: str | None, output: str, sort: str) -> None:
    """Committed offset, log end and lag per partition (records and seconds) of one or all groups.

    \b
    Examples:
      streamctl groups lag
      streamctl groups lag connect-weblog-archive --sort group
    """
    from streamctl.kafka import serialize
    from streamctl.kafka.health import Filters

    with clients.cluster(session) as (ctx, kafka):
        keep = (lambda g: g == name) if name else Filters.from_context(ctx).group
        snap = kafka.snapshot(group_filter=keep, known_groups=[name] if name else clients.history_groups(ctx))
    _groups_read(snap, name)
    rows = [serialize.lag(l) for l in snap.lags]
    if sort == "lag":
        rows.sort(key=lambda r: (r["lag"] or 0), reverse=True)
    from streamctl.kafka.groups.render import lag_table

    emit(output, rows, lag_table)


# ---- offset resets ----------------------------------------------------------------------------

MODES = ("to-earliest", "to-latest", "to-current", "to-offset", "to-datetime", "by-duration",
         "shift-by", "from-file")


@click.command("reset-offsets")
@click.argument("group", shell_complete=complete_group)
@click.option("--topic", "topic_specs", multiple=True, metavar="TOPIC[:P,P]",
              help="A topic, or some of its partitions (repeatable).")
@click.option("--all-topics", is_flag=True, help="Every topic the group has committed offsets on.")
@click.option("--to-earliest", is_flag=True, help="To each partition's log start.")
@click.option("--to-latest", is_flag=True, help="To each partition's log end (skip the backlog).")
@click.option("--to-current", is_flag=True,
              help="To the committed offsets as they are (with --export: save them).")
@click.option("--to-offset", type=int, metavar="N", help="To offset N in every chosen partition (clamped to its log).")
@click.option("--to-datetime", metavar="ISO8601",
              help="To the first record at or after this time (e.g. 2026-11-28T06:00:00Z).")
@click.option("--by-duration", metavar="TIME",
              help="Offsets as of that long ago: 1h, -30m, 2d, PT1H, P1DT2H (or an ISO 8601 time).")
@click.option("--shift-by", type=int, metavar="N", help="Move each committed offset by N (negative: back).")
@click.option("--from-file", type=click.Path(dir_okay=False), metavar="CSV",
              help="Offsets from a CSV of topic,partition,offset (what --export writes).")
@click.option("--export", is_flag=True, help="Print the plan as CSV (topic,partition,offset).")
@EXECUTE
@OUTPUT
@click.pass_obj
def groups_reset_offsets(session: Session, group, topic_specs, all_topics, to_earliest, to_latest, to_current,
                         to_offset, to_datetime, by_duration, shift_by, from_file, export, execute, output):
    """Move a group's committed offsets (the group must have no active members).

    \b
    Examples:
      streamctl groups reset-offsets billing --topic weblogs --to-earliest          # the plan
      streamctl groups reset-offsets billing --all-topics --by-duration PT1H --execute
      streamctl groups reset-offsets billing --topic weblogs:0,1 --shift-by -100 --execute
    """
    from streamctl.kafka.groups import offsets

    chosen = [(m, v) for m, v in (("to-offset", to_offset), ("to-datetime", to_datetime),
                                  ("by-duration", by_duration), ("shift-by", shift_by),
                                  ("from-file", from_file)) if v is not None]
    chosen += [(m, None) for m, flag in (("to-earliest", to_earliest), ("to-latest", to_latest),
                                         ("to-current", to_current)) if flag]
    if len(chosen) != 1:
        raise UsageError(f"give exactly one of --{', --'.join(MODES)}")
    mode, value = chosen[0]
    if not topic_specs and not all_topics and mode != "from-file":
        raise UsageError("give --topic TOPIC[:P,P] or --all-topics")
    if topic_specs and all_topics:
        raise UsageError("--topic and --all-topics exclude each other")
    if mode == "to-datetime":
        times.parse_datetime(value)
    if mode == "by-duration":
        times.parse_time(value, "--by-duration")
    ctx, admin = clients.admin(session, "groups reset-offsets", execute)
    plan, resets = offsets.plan_reset(admin, group, offsets.parse_topic_specs(topic_specs), all_topics,
                                      mode, value)
    if export:
        click.echo(offsets.to_csv({(r.topic, r.partition): r.target for r in resets}), nl=False)
    else:
        from streamctl.kafka.groups.render import reset_table

        show(plan, output, lambda p: reset_table(p, resets))
    _finish_reset(admin, ctx, group, plan, resets, execute)


def _finish_reset(admin, ctx, group, plan, resets, execute) -> None:
    def run():
        undo = group_exec.reset_offsets(admin, ctx.name, plan, resets)
        if undo:
            click.echo(f"undo file: {undo}", err=True)

    finish(plan, execute, run)


@click.command("undo-reset")
@click.argument("group", shell_complete=complete_group)
@EXECUTE
@OUTPUT
@click.pass_obj
def groups_undo_reset(session: Session, group, execute, output):
    """Restore the offsets the last reset of GROUP replaced (from its undo file).

    \b
    Example:
      streamctl groups undo-reset billing --execute
    """
    from streamctl.kafka.groups import offsets

    ctx, admin = clients.admin(session, "groups undo-reset", execute)
    undo = offsets.last_undo(ctx.name, group)
    plan, resets = offsets.plan_reset(admin, group, [], False, "from-file", str(undo))
    click.echo(f"undo file: {undo}", err=True)  # after the plan: a bad file is one error line
    plan.operation = "groups.undo-reset"
    from streamctl.kafka.groups.render import reset_table

    show(plan, output, lambda p: reset_table(p, resets))
    _finish_reset(admin, ctx, group, plan, resets, execute)


@click.group(commands=[groups_list, groups_describe, groups_lag, groups_reset_offsets, groups_undo_reset,
                       record_commands.groups_peek])
def groups() -> None:
    """Consumer groups: list, describe, lag, peek (operations: reset-offsets, undo-reset)."""
