"""`streamctl topics`: list and describe (reads), create, add-partitions, alter-config and delete
(each shows its plan; only --execute changes anything), with the records commands (read,
produce, copy) registered beside them."""

from __future__ import annotations

import sys

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import UsageError
from streamctl.kafka import clients
from streamctl.kafka.completion import complete_topic
from streamctl.kafka.records import commands as record_commands
from streamctl.kafka.topics import execute as topic_exec
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


@click.command("list")
@OUTPUT
@click.option("--internal/--no-internal", default=False, help="Show internal topics (__consumer_offsets).")
@click.option("--sort", type=click.Choice(["name", "partitions", "messages", "urp"]), default="name",
              show_default=True, help="Row order (messages, urp: largest first).")
@click.pass_obj
def topics_list(session: Session, output: str, internal: bool, sort: str) -> None:
    """Every topic with partitions, replication factor, URP, offline, messages, retention.

    \b
    Examples:
      streamctl topics list --sort messages
      streamctl topics list --internal -o json
    """
    from streamctl.kafka import serialize
    from streamctl.kafka.health import Filters

    with clients.cluster(session) as (ctx, kafka):
        snap = kafka.snapshot(groups=False)
    clients.warn_incomplete(snap)
    filters = Filters.from_context(ctx)
    rows = [serialize.topic_summary(t) for t in snap.topics
            if (internal or not t.internal) and filters.topic(t.name)]
    key = {"name": "name", "partitions": "partitions", "messages": "messages", "urp": "under_replicated"}[sort]
    rows.sort(key=lambda r: r[key], reverse=sort != "name")
    from streamctl.kafka.topics.render import topics_table

    emit(output, rows, topics_table)


@click.command("describe")
@click.argument("name", shell_complete=complete_topic)
@OUTPUT
@click.pass_obj
def topics_describe(session: Session, name: str, output: str) -> None:
    """Partitions (leader, replicas, ISR, watermarks), configs and consuming groups of a topic.

    \b
    Example:
      streamctl topics describe weblogs -o json
    """
    from streamctl.kafka import serialize

    with clients.cluster(session) as (_, kafka):
        snap = kafka.snapshot(lag_time=False)
    topic = snap.topic(name)
    if topic is None:
        raise UsageError(f"no topic {name!r} in the cluster")
    clients.warn_incomplete(snap)
    from streamctl.kafka.topics.render import topic_detail

    emit(output, serialize.topic_detail(topic, serialize.consuming_groups(snap, name)), topic_detail)


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
    from streamctl.kafka.topics import plans

    ctx, admin = clients.admin(session, "topics create", execute)
    values = plans.parse_configs(configs)
    plans.validate_name(name)  # refused before the cluster is asked anything
    snap = admin.metadata()
    known = set(admin.topic_configs(snap.topics[0].name)) if snap.topics else set()
    plan = plans.plan_create(admin, snap, name, partitions, replication_factor, values, known)
    show(plan, output)
    finish(plan, execute, lambda: topic_exec.create_topic(admin, ctx.name, plan))


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
    from streamctl.kafka.topics import plans

    ctx, admin = clients.admin(session, "topics add-partitions", execute)
    plan = plans.plan_add_partitions(admin, admin.metadata(), name, total)
    show(plan, output)
    finish(plan, execute, lambda: topic_exec.add_partitions(admin, ctx.name, plan))


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
    from streamctl.kafka.topics import plans

    if not pairs and not deletes:
        raise UsageError("alter-config: give KEY=VALUE pairs or --delete-config KEY")
    ctx, admin = clients.admin(session, "topics alter-config", execute)
    values: dict[str, str | None] = {**plans.parse_configs(pairs), **dict.fromkeys(deletes)}
    plan = plans.plan_alter_config(admin, admin.metadata(), name, values)
    show(plan, output)
    finish(plan, execute, lambda: topic_exec.alter_config(admin, ctx.name, plan))


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
    from streamctl.kafka.topics import plans

    ctx, admin = clients.admin(session, "topics delete", execute)
    plan = plans.plan_delete(admin.snapshot(lag_time=False), name)
    show(plan, output)
    if execute:
        confirmed = yes_delete
        if confirmed is None and sys.stdin.isatty():
            confirmed = click.prompt(f"type the topic name ({name}) to delete it", default="", show_default=False)
        if confirmed != name:
            raise UsageError(f"not deleting {name!r}: confirm with --yes-delete {name} or type the name")
    finish(plan, execute, lambda: topic_exec.delete_topic(admin, ctx.name, plan))


@click.group(commands=[topics_list, topics_describe, topics_create, topics_add_partitions, topics_alter_config,
                       topics_delete, record_commands.topics_read, record_commands.topics_produce,
                       record_commands.topics_copy])
def topics() -> None:
    """Topics: list, describe, read (operations: create, add-partitions, alter-config, delete, produce)."""
