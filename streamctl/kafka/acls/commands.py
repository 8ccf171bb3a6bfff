"""`streamctl acls`: list the bindings (a read), create and delete them (each shows its plan;
only --execute changes anything; refused in read-only mode; audited)."""

from __future__ import annotations

import click

from streamctl.console import OUTPUT, emit
from streamctl.kafka import clients
from streamctl.kafka.completion import complete_topic
from streamctl.ops.preview import EXECUTE, finish, show
from streamctl.session import Session


def _admin(session: Session, operation: str, execute: bool):
    from streamctl.backends.kafka.acl_admin import AclAdmin

    return clients.admin(session, operation, execute, client_class=AclAdmin)


def _selectors(prefixed_help: str):
    """The resource options of create and delete: exactly one resource, literal or prefixed."""
    options = [
        click.option("--topic", shell_complete=complete_topic, help="A topic ('*': every topic)."),
        click.option("--group", help="A consumer group ('*': every group)."),
        click.option("--cluster", is_flag=True, help="The cluster (kafka-cluster)."),
        click.option("--transactional-id", help="A transactional id ('*': every one)."),
        click.option("--prefixed", is_flag=True, help=prefixed_help),
        click.option("--deny", is_flag=True, help="Deny bindings (without it: allow bindings)."),
    ]

    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def _resource(topic, group, cluster, transactional_id, prefixed):
    from streamctl.kafka.acls import plans

    return plans.resource(topic, group, cluster, transactional_id, prefixed)


@click.command("list")
@click.option("--principal", help="Only this principal's bindings (exactly: User:* bindings are not added).")
@click.option("--topic", shell_complete=complete_topic,
              help="Bindings that apply to this topic: its literal name, the literal '*' and matching prefixes.")
@click.option("--group", help="Bindings that apply to this group: its literal name, '*' and matching prefixes.")
@OUTPUT
@click.pass_obj
def acls_list(session: Session, principal, topic, group, output):
    """Every ACL binding: principal, permission, operation, resource type, name, pattern type, host.

    A --topic or --group filter matches patterns the way the authorizer does (Kafka's MATCH
    filter): the literal name, the literal '*' and every prefixed pattern the name starts with.

    \b
    Examples:
      streamctl acls list
      streamctl acls list --topic weblogs --principal User:monitor -o json
    """
    from streamctl.kafka.acls import plans

    who = plans.principal(principal) if principal is not None else None
    plans.list_queries(who, topic, group)  # the filters validated before the cluster is asked
    _, admin = _admin(session, "acls list", False)
    found = plans.list_bindings(admin, who, topic, group)
    from streamctl.kafka.acls.render import acls_table

    emit(output, [b.as_dict() for b in found], acls_table)


@click.command("create")
@click.option("--principal", required=True, help="Who: User:NAME (User:* for every user).")
@click.option("--operation", "operations", multiple=True, required=True,
              help="Read, Write, Create, Delete, Alter, Describe, DescribeConfigs, AlterConfigs, ClusterAction, "
                   "IdempotentWrite or All (repeatable).")
@_selectors("The name is a prefix: the binding covers every name that starts with it.")
@click.option("--host", default="*", show_default=True, help="The client address the binding applies to.")
@EXECUTE
@OUTPUT
@click.pass_obj
def acls_create(session: Session, principal, operations, topic, group, cluster, transactional_id, prefixed,
                deny, host, execute, output):
    """Add ACL bindings; the plan says which already exist (nothing to do for them).

    \b
    Examples:
      streamctl acls create --principal User:app --operation Read --operation Describe --topic orders
      streamctl acls create --principal User:app --operation Read --group app- --prefixed --execute
    """
    from streamctl.kafka.acls import execute as acl_exec
    from streamctl.kafka.acls import plans

    res = _resource(topic, group, cluster, transactional_id, prefixed)
    who, where = plans.principal(principal), plans.host(host)
    ops = tuple(sorted({plans.operation(op, res.type) for op in operations}))
    change = plans.AclChange(res, who, ops, "Deny" if deny else "Allow", where)
    ctx, admin = _admin(session, "acls create", execute)
    plan = plans.plan_create_of(admin, change)
    show(plan, output)
    finish(plan, execute, lambda: acl_exec.create_acls(admin, ctx.name, plan))


@click.command("delete")
@click.option("--principal", help="Only this principal's bindings (without it: every principal's).")
@click.option("--operation", "operations", multiple=True,
              help="Only bindings of this operation (repeatable; without it: every operation).")
@_selectors("The name is a prefix: delete the prefixed binding (not the literal ones it covers).")
@click.option("--host", help="Only bindings for this host (without it: every host).")
@EXECUTE
@OUTPUT
@click.pass_obj
def acls_delete(session: Session, principal, operations, topic, group, cluster, transactional_id, prefixed,
                deny, host, execute, output):
    """Remove ACL bindings; the plan lists each one and what each principal can then no longer do.

    The bindings shown are the ones removed: each by an exact filter, never a wider one.

    \b
    Examples:
      streamctl acls delete --principal User:app --topic orders
      streamctl acls delete --principal User:app --operation Read --group app- --prefixed --execute
    """
    from streamctl.kafka.acls import execute as acl_exec
    from streamctl.kafka.acls import plans

    res = _resource(topic, group, cluster, transactional_id, prefixed)
    who = plans.principal(principal) if principal is not None else None
    where = plans.host(host) if host is not None else None
    ops = tuple(sorted({plans.operation(op, res.type) for op in operations}))
    change = plans.AclChange(res, who, ops, "Deny" if deny else "Allow", where)
    ctx, admin = _admin(session, "acls delete", execute)
    plan = plans.plan_delete_of(admin, change)
    show(plan, output)
    finish(plan, execute, lambda: acl_exec.delete_acls(admin, ctx.name, plan), nothing="no matching ACL: nothing to delete")


@click.group(commands=[acls_list, acls_create, acls_delete])
def acls() -> None:
    """Kafka ACLs: list (operations: create, delete)."""
