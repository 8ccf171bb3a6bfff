"""ACL operations: the bindings asked for, validated before the cluster is asked anything, and
the plans of create and delete (with what each principal can no longer do after a delete).

Kafka's rules (kafka-acls.sh, "Operations and Resources on Protocols"): each resource type has
its own operations; Read, Write, Delete and Alter imply Describe, AlterConfigs implies
DescribeConfigs, All implies everything. A prefixed pattern needs a non-empty prefix that is
not the wildcard `*`; the Cluster resource is always the literal `kafka-cluster`.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamctl.backends.kafka.acl_admin import OPERATIONS, AclBinding, AclQuery
from streamctl.backends.kafka.authz import CLUSTER
from streamctl.errors import UsageError
from streamctl.ops import Change, Plan

VALID_OPERATIONS = {
    "Topic": {"All", "Read", "Write", "Create", "Delete", "Alter", "Describe", "DescribeConfigs", "AlterConfigs"},
    "Group": {"All", "Read", "Describe", "Delete"},
    "Cluster": {"All", "Create", "ClusterAction", "DescribeConfigs", "AlterConfigs", "IdempotentWrite", "Alter",
                "Describe"},
    "TransactionalId": {"All", "Describe", "Write"},
}
IMPLIES = {"Read": {"Describe"}, "Write": {"Describe"}, "Delete": {"Describe"}, "Alter": {"Describe"},
           "AlterConfigs": {"DescribeConfigs"}}
SELECTORS = "give exactly one of --topic, --group, --cluster, --transactional-id"
SUPER_USERS_NOTE = "super users (the brokers' super.users) keep every right whatever the ACLs say"


@dataclass(frozen=True)
class Resource:
    """What a binding is about: a resource type, a name or prefix, and the pattern type."""

    type: str
    name: str
    pattern: str  # Literal or Prefixed


def resource(topic: str | None, group: str | None, cluster: bool, transactional_id: str | None,
             prefixed: bool) -> Resource:
    """The one resource the selector options name."""
    chosen = [(kind, flag, name) for kind, flag, name in (("Topic", "--topic", topic), ("Group", "--group", group),
              ("TransactionalId", "--transactional-id", transactional_id)) if name is not None]
    if cluster:
        chosen.append(("Cluster", "--cluster", CLUSTER))
    if len(chosen) != 1:
        raise UsageError(SELECTORS)
    kind, flag, name = chosen[0]
    if prefixed:
        if kind == "Cluster":
            raise UsageError("--prefixed needs --topic, --group or --transactional-id (the Cluster has one name)")
        if not name.strip("*"):
            raise UsageError(f"{flag} {name!r} --prefixed: a prefix cannot be empty or only '*'")
    elif not name:
        raise UsageError(f"{flag}: the name cannot be empty ('*' means every name)")
    return Resource(kind, name, "Prefixed" if prefixed else "Literal")


def principal(text: str) -> str:
    """`User:NAME` (`User:*`: every user)."""
    kind, sep, name = text.partition(":")
    if kind != "User" or not sep or not name.strip():
        raise UsageError(f"principal {text!r}: expected User:NAME (User:* for every user)")
    return text


def operation(text: str, resource_type: str | None = None) -> str:
    """An operation by kafka-acls.sh's name, any case (describe-configs, DescribeConfigs)."""
    key = text.replace("-", "").replace("_", "").lower()
    name = next((op for op in OPERATIONS if op.lower() == key), None)
    if name is None:
        raise UsageError(f"unknown ACL operation {text!r} (one of {', '.join(OPERATIONS)})")
    if resource_type is not None and name not in VALID_OPERATIONS[resource_type]:
        allowed = ", ".join(op for op in OPERATIONS if op in VALID_OPERATIONS[resource_type])
        raise UsageError(f"operation {name} does not apply to a {resource_type} (one of {allowed})")
    return name


def host(text: str) -> str:
    if not text.strip():
        raise UsageError("--host: give an address, or '*' for every host")
    return text


def list_queries(who: str | None, topic: str | None, group: str | None) -> list[AclQuery]:
    """`acls list`'s filters: a topic or group matches its literal name, the literal `*` and
    every prefix pattern it starts with (Kafka's MATCH pattern filter)."""
    for flag, name in (("--topic", topic), ("--group", group)):
        if name == "":
            raise UsageError(f"{flag}: the name cannot be empty")
    wanted = [("Topic", topic), ("Group", group)]
    queries = [AclQuery(kind, name, "Match", principal=who) for kind, name in wanted if name is not None]
    return queries or [AclQuery(principal=who)]


def list_bindings(admin, who: str | None, topic: str | None, group: str | None) -> list[AclBinding]:
    """`acls list`'s answer: every binding the filters match (list_queries), each once, sorted.
    `admin`: an AclAdmin (the CLI's forked one, the dashboard's client process)."""
    return sorted({b for query in list_queries(who, topic, group) for b in admin.describe_acls(query)})


@dataclass(frozen=True)
class AclChange:
    """What `acls create` or `acls delete` asks for, validated (the CLI's options, a dashboard form's
    fields). For a delete, an empty `operations` and a None `principal` or `host` mean any."""

    resource: Resource
    principal: str | None
    operations: tuple[str, ...]
    permission: str  # Allow or Deny
    host: str | None


def plan_create_of(admin, change: AclChange) -> Plan:
    """The create plan, the bindings that already exist read from the cluster."""
    res, who, where = change.resource, change.principal, change.host
    if who is None or where is None or not change.operations:
        raise UsageError("a new ACL needs a principal, a host and at least one operation")
    wanted = [AclBinding(who, where, op, change.permission, res.type, res.name, res.pattern) for op in change.operations]
    existing = admin.describe_acls(AclQuery(res.type, res.name, res.pattern, who, where, None, change.permission))
    return plan_create(wanted, existing, res)


def plan_delete_of(admin, change: AclChange) -> Plan:
    """The delete plan: the bindings `change` describes exactly, and what each principal then loses."""
    res = change.resource
    every = admin.describe_acls(AclQuery())
    query = AclQuery(res.type, res.name, res.pattern, change.principal, change.host, None, change.permission)
    found = [b for b in admin.describe_acls(query) if not change.operations or b.operation in change.operations]
    return plan_delete(found, every, res)


def describe(b: AclBinding) -> str:
    """'Allow Read on Topic prefix 'ord' from host *'."""
    pattern = " prefix" if b.pattern == "Prefixed" else ""
    return f"{b.permission} {b.operation} on {b.resource_type}{pattern} {b.name!r} from host {b.host}"


def plan_create(wanted: list[AclBinding], existing: list[AclBinding], res: Resource) -> Plan:
    present = set(existing)
    new = [b for b in wanted if b not in present]
    plan = Plan("acls.create", target(res), {"bindings": [b.as_dict() for b in new]},
                [Change(b.principal, describe(b), "absent", "present") for b in new])
    plan.warnings += [f"already exists, nothing to do: {b.principal}: {describe(b)}" for b in wanted if b in present]
    return plan


def plan_delete(found: list[AclBinding], every: list[AclBinding], res: Resource) -> Plan:
    """Remove `found` (the bindings the selectors describe); `every`: all bindings of the
    cluster, to tell what each principal can then no longer do."""
    remaining = [b for b in every if b not in set(found)]
    plan = Plan("acls.delete", target(res), {"bindings": [b.as_dict() for b in found]},
                [Change(b.principal, describe(b), "present", "absent", _consequence(b, remaining)) for b in found])
    for who in sorted({b.principal for b in found}):
        lost = sorted({loss for b in found if b.principal == who for loss in lost_rights(b, remaining)})
        if lost:
            plan.warnings.append(f"{who} can then no longer: {', '.join(lost)}")
    if found:
        plan.warnings.append(SUPER_USERS_NOTE)
    return plan


def lost_rights(removed: AclBinding, remaining: list[AclBinding]) -> list[str]:
    """What removing an Allow binding takes away: its operation (and the ones it implies) that
    no remaining Allow binding still grants that principal (or User:*) on that resource."""
    if removed.permission != "Allow":
        return []
    rights = VALID_OPERATIONS[removed.resource_type] - {"All"} if removed.operation == "All" else \
        {removed.operation, *IMPLIES.get(removed.operation, ())}
    pattern = " prefix" if removed.pattern == "Prefixed" else ""
    return [f"{op} on {removed.resource_type}{pattern} {removed.name!r}" for op in sorted(rights)
            if not any(_grants(b, removed, op) for b in remaining)]


def _consequence(removed: AclBinding, remaining: list[AclBinding]) -> str:
    if removed.permission == "Deny":
        return "no longer denied (allowed again where an Allow binding grants it)"
    lost = lost_rights(removed, remaining)
    return f"loses {', '.join(lost)}" if lost else "keeps access through other bindings"


def _grants(grant: AclBinding, removed: AclBinding, op: str) -> bool:
    """Whether `grant` still allows `op` to the removed binding's principal, host and resource."""
    return (grant.permission == "Allow" and grant.principal in (removed.principal, "User:*")
            and grant.host in ("*", removed.host) and grant.resource_type == removed.resource_type
            and (grant.operation in ("All", op) or op in IMPLIES.get(grant.operation, ()))
            and _covers(grant, removed))


def _covers(grant: AclBinding, removed: AclBinding) -> bool:
    """Whether `grant`'s pattern matches every name the removed pattern matched."""
    if grant.pattern == "Prefixed":
        return removed.name.startswith(grant.name)
    return grant.name == "*" or (removed.pattern == "Literal" and grant.name == removed.name)


def target(res: Resource) -> str:
    return f"{res.type}{' prefix' if res.pattern == 'Prefixed' else ''} {res.name}"
