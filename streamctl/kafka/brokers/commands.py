"""`streamctl brokers` (one metadata call) and `streamctl elect-leaders` (a plan; --execute runs it)."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from streamctl.console import OUTPUT
from streamctl.kafka import clients
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


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

    with clients.cluster(session) as (_, kafka):
        md = kafka.metadata()
        kraft_roles = kafka.broker_roles([b.id for b in md.brokers]) if md.kraft else {}
    roles = {b.id: broker_roles(b, md.kraft, kraft_roles) for b in md.brokers}
    data = {"cluster_id": md.cluster_id, "kraft": md.kraft, "controller_id": md.controller_id,
            "brokers": [{**asdict(b), "roles": roles[b.id]} for b in md.brokers]}
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        from streamctl.kafka.brokers.render import brokers_table

        brokers_table(md, roles)


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
    from streamctl.kafka import preferred_leaders as leaders

    ctx, admin = clients.admin(session, "elect-leaders", execute)
    plan = leaders.plan_elect_leaders(admin.metadata(), topic_names)
    show(plan, output)
    finish(plan, execute, lambda: leaders.elect_leaders(admin, ctx.name, plan))
