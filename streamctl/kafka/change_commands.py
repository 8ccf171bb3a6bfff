"""Kafka mutations: topics create/add-partitions/alter-config/delete, offset resets and leader
election. Each shows its plan; only --execute changes anything."""

from __future__ import annotations

import sys

import click

from streamctl.console import OUTPUT
from streamctl.kafka.completion import complete_group, complete_topic
from streamctl.session import Session
from streamctl.errors import UsageError
from streamctl import times
from streamctl.kafka import execute as kafka_exec
from streamctl.ops.preview import EXECUTE, finish, show



def _admin(session: Session, operation: str, execute: bool):
    """The context and an admin client, once read-only mode has been ruled out for an
    execution (a dry run plans in a read-only context too)."""
    from streamctl.backends.kafka_isolated import isolated_backend
    from streamctl.ops import require_writable

    ctx = session.context()
    require_writable(operation, ctx, session.read_only_flag, execute)
    return ctx, isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout, admin=True)


# ---- topics -------------------------------------------------------------------------------

@click.command("create")
@click.argument("name")
@click.option("--partitions", type=int, required=True, help="Number of partitions.")
@click.option("--replication-factor", type=int, required=True,
              help="Replicas per partition (at most the number of brokers).")
@click.option("--config", "configs", multiple=True, metavar="KEY=VALUE",
              help="A topic config (repeatable), e.g. retention.ms=86400000.")
@EXECUTE
@OUTPUT
@click.pass_obj
def topics_create(session: Session, name, partitions, replication_factor, configs, execute, output):
    """Create a topic (validated locally and by the broker first).

    \b
    Examples:
      streamctl topics create orders --partitions 6 --replication-factor 3 --config min.insync.replicas=2
      streamctl topics create orders --partitions 6 --replication-factor 3 --execute
    """
    from streamctl.kafka import topics

    ctx, admin = _admin(session, "topics create", execute)
    values = topics.parse_configs(configs)
    topics.validate_name(name)  # refused before the cluster is asked anything
    snap = admin.metadata()
    known = set(admin.topic_configs(snap.topics[0].name)) if snap.topics else set()
    plan = topics.plan_create(admin, snap, name, partitions, replication_factor, values, known)
    show(plan, output)
    finish(plan, execute, lambda: kafka_exec.create_topic(admin, ctx.name, plan))


@click.command("add-partitions")
@click.argument("name", shell_complete=complete_topic)
@click.option("--total", type=int, required=True, help="The partition count after the change.")
@EXECUTE
@OUTPUT
@click.pass_obj
def topics_add_partitions(session: Session, name, total, execute, output):
    """Raise a topic's partition count (never lowers it).

    \b
    Example:
      streamctl topics add-partitions weblogs --total 12 --execute
    """
    from streamctl.kafka import topics

    ctx, admin = _admin(session, "topics add-partitions", execute)
    plan = topics.plan_add_partitions(admin, admin.metadata(), name, total)
    show(plan, output)
    finish(plan, execute, lambda: kafka_exec.add_partitions(admin, ctx.name, plan))


@click.command("alter-config")
@click.argument("name", shell_complete=complete_topic)
@click.argument("pairs", nargs=-1, metavar="KEY=VALUE...")
@click.option("--delete-config", "deletes", multiple=True, metavar="KEY", help="Revert KEY to the default.")
@EXECUTE
@OUTPUT
@click.pass_obj
def topics_alter_config(session: Session, name, pairs, deletes, execute, output):
    """Change topic configs incrementally, showing old -> new.

    \b
    Examples:
      streamctl topics alter-config weblogs retention.ms=86400000 --execute
      streamctl topics alter-config weblogs --delete-config retention.ms --execute
    """
    from streamctl.kafka import topics

    if not pairs and not deletes:
        raise UsageError("alter-config: give KEY=VALUE pairs or --delete-config KEY")
    ctx, admin = _admin(session, "topics alter-config", execute)
    values: dict[str, str | None] = {**topics.parse_configs(pairs), **dict.fromkeys(deletes)}
    plan = topics.plan_alter_config(admin, admin.metadata(), name, values)
    show(plan, output)
    finish(plan, execute, lambda: kafka_exec.alter_config(admin, ctx.name, plan))


@click.command("delete")
@click.argument("name", shell_complete=complete_topic)
@click.option("--yes-delete", metavar="NAME", help="Confirm without a prompt by repeating the topic name.")
@EXECUTE
@OUTPUT
@click.pass_obj
def topics_delete(session: Session, name, yes_delete, execute, output):
    """Delete a topic; the plan lists the groups still consuming it.

    \b
    Example:
      streamctl topics delete orders --yes-delete orders --execute
    """
    from streamctl.kafka import topics

    ctx, admin = _admin(session, "topics delete", execute)
    plan = topics.plan_delete(admin.snapshot(lag_time=False), name)
    show(plan, output)
    if execute:
        confirmed = yes_delete
        if confirmed is None and sys.stdin.isatty():
            confirmed = click.prompt(f"type the topic name ({name}) to delete it", default="", show_default=False)
        if confirmed != name:
            raise UsageError(f"not deleting {name!r}: confirm with --yes-delete {name} or type the name")
    finish(plan, execute, lambda: kafka_exec.delete_topic(admin, ctx.name, plan))


# ---- consumer group offsets ------------------------------------------------------------------

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
    from streamctl.kafka import offsets

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
    ctx, admin = _admin(session, "groups reset-offsets", execute)
    plan, resets = offsets.plan_reset(admin, group, offsets.parse_topic_specs(topic_specs), all_topics,
                                      mode, value)
    if export:
        click.echo(offsets.to_csv({(r.topic, r.partition): r.target for r in resets}), nl=False)
    else:
        from streamctl.kafka.render import reset_table

        show(plan, output, lambda p: reset_table(p, resets))
    _commit_resets(admin, ctx, group, plan, resets, execute)


def _commit_resets(admin, ctx, group, plan, resets, execute) -> None:
    def run():
        undo = kafka_exec.reset_offsets(admin, ctx.name, plan, resets)
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
    from streamctl.kafka import offsets

    ctx, admin = _admin(session, "groups undo-reset", execute)
    undo = offsets.last_undo(ctx.name, group)
    plan, resets = offsets.plan_reset(admin, group, [], False, "from-file", str(undo))
    click.echo(f"undo file: {undo}", err=True)  # after the plan: a bad file is one error line
    plan.operation = "groups.undo-reset"
    from streamctl.kafka.render import reset_table

    show(plan, output, lambda p: reset_table(p, resets))
    _commit_resets(admin, ctx, group, plan, resets, execute)


# ---- leaders and the audit log ----------------------------------------------------------------

@click.command("elect-leaders")
@click.option("--topic", "topic_names", multiple=True, metavar="TOPIC",
              help="Only this topic's partitions (repeatable; default: every topic).")
@EXECUTE
@OUTPUT
@click.pass_obj
def elect_leaders(session: Session, topic_names, execute, output):
    """Preferred leader election for partitions not led by their preferred replica.

    \b
    Examples:
      streamctl elect-leaders                   # the plan: partitions off their preferred leader
      streamctl elect-leaders --topic weblogs --execute
    """
    ctx, admin = _admin(session, "elect-leaders", execute)
    plan = kafka_exec.plan_elect_leaders(admin.metadata(), topic_names)
    show(plan, output)
    finish(plan, execute, lambda: kafka_exec.elect_leaders(admin, ctx.name, plan))
