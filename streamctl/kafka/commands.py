"""Kafka read commands: brokers, topics, groups."""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import asdict

import click

from streamctl.console import OUTPUT, emit
from streamctl.kafka.completion import complete_group, complete_topic
from streamctl.session import Session
from streamctl.errors import StreamctlError, UsageError


@contextmanager
def _kafka(session: Session):
    """The context and a client for its cluster; a read that fails names the cluster."""
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.isolated import isolated_backend

    ctx = session.context()
    try:
        yield ctx, isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None


def _known_groups(ctx) -> list[str]:
    """Groups the lag history saw: looked up directly if a coordinator move hides them from the listing."""
    from streamctl.kafka.history import known_groups
    from streamctl.kafka.lagstore import default_path

    return known_groups(default_path(), ctx.name)


def _incomplete(snap) -> None:
    """One stderr line when part of the snapshot could not be read (the output shows '-' there)."""
    if snap.errors:
        more = f" (and {len(snap.errors) - 1} more)" if len(snap.errors) > 1 else ""
        click.echo(f"streamctl: warning: incomplete: could not read {snap.errors[0]}{more}", err=True)


def _groups_read(snap, name: str | None = None) -> None:
    """No groups (or not the one asked for) in a partial snapshot means unknown, not absent."""
    missing = snap.group(name) is None if name else not snap.groups
    if missing and snap.errors:
        what = f"consumer group {name!r}" if name else "consumer groups"
        raise StreamctlError(f"{what} unreadable: {snap.errors[0]}")
    if name and snap.group(name) is None:
        raise UsageError(f"no consumer group {name!r} in the cluster")
    _incomplete(snap)


@click.command("brokers")
@OUTPUT
@click.pass_obj
def brokers(session: Session, output: str) -> None:
    """The cluster's brokers (one metadata call).

    \b
    Examples:
      streamctl brokers
      streamctl --context prod brokers -o json
    """
    from streamctl.model.kafka import broker_roles

    with _kafka(session) as (_, kafka):
        md = kafka.metadata()
        kraft_roles = kafka.broker_roles([b.id for b in md.brokers]) if md.kraft else {}
    roles = {b.id: broker_roles(b, md.kraft, kraft_roles) for b in md.brokers}
    data = {"cluster_id": md.cluster_id, "kraft": md.kraft, "controller_id": md.controller_id,
            "brokers": [{**asdict(b), "roles": roles[b.id]} for b in md.brokers]}
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        from streamctl.kafka.render import brokers_table

        brokers_table(md, roles)


@click.group()
def topics() -> None:
    """Topics: list, describe, read (operations: create, add-partitions, alter-config, delete, produce)."""


@topics.command("list")
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

    with _kafka(session) as (ctx, kafka):
        snap = kafka.snapshot(groups=False)
    _incomplete(snap)
    filters = Filters.from_context(ctx)
    rows = [serialize.topic_summary(t) for t in snap.topics
            if (internal or not t.internal) and filters.topic(t.name)]
    key = {"name": "name", "partitions": "partitions", "messages": "messages", "urp": "under_replicated"}[sort]
    rows.sort(key=lambda r: r[key], reverse=sort != "name")
    from streamctl.kafka.render import topics_table

    emit(output, rows, topics_table)


@topics.command("describe")
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

    with _kafka(session) as (_, kafka):
        snap = kafka.snapshot(lag_time=False)
    topic = snap.topic(name)
    if topic is None:
        raise UsageError(f"no topic {name!r} in the cluster")
    _incomplete(snap)
    from streamctl.kafka.render import topic_detail

    emit(output, serialize.topic_detail(topic, serialize.consuming_groups(snap, name)), topic_detail)


@click.group()
def groups() -> None:
    """Consumer groups: list, describe, lag, peek (operations: reset-offsets, undo-reset)."""


@groups.command("list")
@OUTPUT
@click.option("--sort", type=click.Choice(["name", "lag"]), default="name", show_default=True,
              help="Row order (lag: largest first).")
@click.pass_obj
def groups_list(session: Session, output: str, sort: str) -> None:
    """Every consumer group with state, members, topics and total lag.

    \b
    Examples:
      streamctl groups list --sort lag
      streamctl groups list -o json
    """
    from streamctl.kafka import serialize
    from streamctl.kafka.health import Filters

    with _kafka(session) as (ctx, kafka):
        snap = kafka.snapshot(group_filter=Filters.from_context(ctx).group, known_groups=_known_groups(ctx))
    _groups_read(snap)
    rows = [serialize.group_summary(g, snap) for g in snap.groups]
    if sort == "lag":
        rows.sort(key=lambda r: r["lag"], reverse=True)
    from streamctl.kafka.render import groups_table

    emit(output, rows, groups_table)


@groups.command("describe")
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

    with _kafka(session) as (_, kafka):
        snap = kafka.snapshot(group_filter=lambda g: g == name, known_groups=[name])
    _groups_read(snap, name)
    group = snap.group(name)
    from streamctl.kafka.render import group_detail

    emit(output, serialize.group_detail(group, snap), group_detail)


@groups.command("lag")
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

    with _kafka(session) as (ctx, kafka):
        keep = (lambda g: g == name) if name else Filters.from_context(ctx).group
        snap = kafka.snapshot(group_filter=keep, known_groups=[name] if name else _known_groups(ctx))
    _groups_read(snap, name)
    rows = [serialize.lag(l) for l in snap.lags]
    if sort == "lag":
        rows.sort(key=lambda r: (r["lag"] or 0), reverse=True)
    from streamctl.kafka.render import lag_table

    emit(output, rows, lag_table)




def _attach_operations() -> None:
    from streamctl.kafka import change_commands as kafka_ops

    for command in (kafka_ops.topics_create, kafka_ops.topics_add_partitions,
                    kafka_ops.topics_alter_config, kafka_ops.topics_delete):
        topics.add_command(command)
    groups.add_command(kafka_ops.groups_reset_offsets)
    groups.add_command(kafka_ops.groups_undo_reset)
    from streamctl.kafka import record_commands

    topics.add_command(record_commands.topics_read)
    topics.add_command(record_commands.topics_produce)
    topics.add_command(record_commands.topics_copy)
    groups.add_command(record_commands.groups_peek)


_attach_operations()
