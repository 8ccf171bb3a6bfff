"""`streamctl quotas`: client quotas per user, client-id and IP (list; alter shows its plan
old -> new, checked by the broker with validate_only, and only --execute changes anything).
The requests go through kafka-python (backends/kafka/quota_admin.py): librdkafka has none."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.errors import UsageError
from streamctl.kafka import clients
from streamctl.kafka.quotas import plans
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


def quota_admin(session: Session, operation: str, execute: bool):
    from streamctl.backends.kafka.quota_admin import QuotaAdmin

    return clients.admin(session, operation, execute, client_class=QuotaAdmin)


@click.command("list")
@click.option("--user", help="Only this user's quotas (with any client-id).")
@click.option("--client-id", help="Only this client-id's quotas (with any user).")
@click.option("--ip", help="Only this IP's quotas.")
@OUTPUT
@click.pass_obj
def quotas_list(session: Session, user, client_id, ip, output: str) -> None:
    """Every quota entity (user, client-id, IP, their <default>) with its values.

    \b
    Examples:
      streamctl quotas list
      streamctl quotas list --client-id billing -o json
    """
    if ip is not None and (user is not None or client_id is not None):
        raise UsageError("--ip cannot be combined with --user or --client-id (IP quotas stand alone)")
    wanted = {kind: name for kind, name in (("user", user), ("client-id", client_id), ("ip", ip)) if name is not None}
    _, admin = quota_admin(session, "quotas list", execute=False)
    rows = plans.listing(admin.quotas(wanted or None))
    from streamctl.kafka.quotas.render import quotas_table

    emit(output, rows, quotas_table)


@click.command("alter")
@click.option("--user", help="The user's quota (with --client-id: that pair's).")
@click.option("--user-default", is_flag=True, help="The default quota of users.")
@click.option("--client-id", help="The client-id's quota.")
@click.option("--client-id-default", is_flag=True, help="The default quota of client-ids.")
@click.option("--ip", help="The IP's quota (connection_creation_rate only).")
@click.option("--ip-default", is_flag=True, help="The default quota of IPs.")
@click.option("--set", "pairs", multiple=True, metavar="KEY=VALUE",
              help=f"Set a quota (repeatable): {', '.join(plans.CLIENT_KEYS + plans.IP_KEYS)}.")
@click.option("--delete", "removes", multiple=True, metavar="KEY", help="Remove a quota (repeatable).")
@EXECUTE
@OUTPUT
@click.pass_obj
def quotas_alter(session: Session, user, user_default, client_id, client_id_default, ip, ip_default, pairs,
                 removes, execute, output):
    """Set or remove client quotas of one entity, showing old -> new.

    \b
    Examples:
      streamctl quotas alter --client-id billing --set producer_byte_rate=1048576
      streamctl quotas alter --user alice --client-id billing --delete producer_byte_rate --execute
      streamctl quotas alter --ip-default --set connection_creation_rate=50 --execute
    """
    from streamctl.kafka.quotas import execute as quota_exec

    entity = plans.entity_of(user, user_default, client_id, client_id_default, ip, ip_default)
    sets, removes = plans.parse_sets(pairs), list(dict.fromkeys(removes))
    plans.validate_keys(entity, sets, removes)  # refused before the cluster is asked anything
    ctx, admin = quota_admin(session, "quotas alter", execute)
    plan = plans.plan_checked(admin, entity, sets, removes)
    show(plan, output)
    finish(plan, execute, lambda: quota_exec.alter(admin, ctx.name, plan))


@click.group(commands=[quotas_list, quotas_alter])
def quotas() -> None:
    """Client quotas per user, client-id and IP: list (operation: alter)."""
