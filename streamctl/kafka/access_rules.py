"""Check rules on the cluster's access control (issue #32). Pure functions, no I/O.

    a group with committed offsets on a topic that no principal may consume as it:
      no principal other than the super users may Read both the topic and the group
      (a grant that went missing)                                   WARN  KAFKA_ACL_MISSING_GRANT
    allow.everyone.if.no.acl.found=true on a broker whose listeners
      use SASL or SSL                                               WARN  KAFKA_ACL_ALLOW_EVERYONE
    the ACLs could not be read (the monitor lacks Describe on the
      Cluster)                                                      UNKNOWN KAFKA_ACL_UNREADABLE

Only pairs somebody was granted to read are judged: the topic or the group has an Allow
Read/All binding of its own (its literal name or a prefix; the wildcard `*` does not count, it is
the monitor's kind of grant). A group that only super users read has no binding at all, and is
not a grant that went missing; super users cannot be told apart otherwise, since brokers send
`super.users` as a sensitive config, without its value.

A missing grant is a WARN, not a CRIT: the brokers keep a stopped group's offsets for
offsets.retention.minutes (7 days by default), so a group that no longer runs may show it.

Matching is the authorizer's: a binding applies to a name when it is the literal name, the
literal `*`, or a prefix the name starts with; Read or All grants Read; a Deny binding for the
principal (or `User:*`) on a host `*` or the Allow's own host wins over the Allow.
"""

from __future__ import annotations

from streamctl.kafka.health import Filters
from streamctl.model.acls import AclBinding, ClusterAccess
from streamctl.model.health import Finding, Severity
from streamctl.model.kafka import KafkaSnapshot

MISSING_GRANT = "KAFKA_ACL_MISSING_GRANT"
ALLOW_EVERYONE = "KAFKA_ACL_ALLOW_EVERYONE"
READ_GRANTS = ("Read", "All")
EVERYONE = "User:*"
SECURED = ("SASL_PLAINTEXT", "SASL_SSL", "SSL")


def applies(binding: AclBinding, resource_type: str, name: str) -> bool:
    """Whether `binding`'s resource pattern covers the resource `name` of that type."""
    if binding.resource_type != resource_type:
        return False
    if binding.pattern == "Prefixed":
        return name.startswith(binding.name)
    return binding.name in (name, "*")


def readers(acls: tuple[AclBinding, ...], resource_type: str, name: str, super_users: set[str]) -> set[str]:
    """The principals, super users left out, that an Allow Read (or All) binding lets read the
    resource and no Deny binding stops (`User:*` stands for every principal)."""
    relevant = [b for b in acls if b.operation in READ_GRANTS and applies(b, resource_type, name)]
    denies = [b for b in relevant if b.permission == "Deny"]
    return {allow.principal for allow in relevant
            if allow.permission == "Allow" and allow.principal not in super_users
            and not any(d.principal in (allow.principal, EVERYONE) and d.host in ("*", allow.host) for d in denies)}


def super_users(access: ClusterAccess) -> set[str]:
    """The brokers' super.users. Empty when they hide it (as Kafka's brokers do): then a super
    user's own Allow binding counts like any other principal's."""
    return {user.strip() for b in access.brokers if b.super_users for user in b.super_users.split(";") if user.strip()}


def granted(acls: tuple[AclBinding, ...], topic: str, group: str) -> bool:
    """Whether the topic or the group has an Allow Read (or All) binding of its own, not `*`."""
    return any(b.permission == "Allow" and b.operation in READ_GRANTS and b.name != "*"
               and (applies(b, "Topic", topic) or applies(b, "Group", group)) for b in acls)


def missing_grant(topic: str, group: str, topic_readers: set[str], group_readers: set[str]) -> str | None:
    """What is missing for anyone to consume `topic` as `group`, or None."""
    if not topic_readers and not group_readers:
        return f"no principal may Read Topic {topic!r} nor Group {group!r}"
    if not topic_readers:
        return f"no principal may Read Topic {topic!r}"
    if not group_readers:
        return f"no principal may Read Group {group!r}"
    if EVERYONE in topic_readers or EVERYONE in group_readers or topic_readers & group_readers:
        return None
    return (f"no principal may Read both Topic {topic!r} and Group {group!r} (the topic: "
            f"{', '.join(sorted(topic_readers))}; the group: {', '.join(sorted(group_readers))})")


def access_health(snap: KafkaSnapshot, filters: Filters) -> tuple[list[Finding], dict[str, str]]:
    """The findings of both rules, and why a rule was not evaluated (by its code)."""
    access = snap.access
    if access is None:
        return [], {}
    findings, skipped = _allow_everyone(access), _allow_everyone_unread(access)
    if access.no_authorizer:
        return findings, {**skipped, MISSING_GRANT: access.acls_unread or "no authorizer"}
    if access.acls is None:
        return [*findings, Finding(Severity.UNKNOWN, "kafka", "acls", "KAFKA_ACL_UNREADABLE",
                                   f"missing-grant rule not evaluated: {access.acls_unread}")], skipped
    supers = super_users(access)
    read_pairs = sorted({(l.group, l.topic) for l in snap.lags
                         if l.committed is not None and filters.group(l.group) and filters.topic(l.topic)})
    for group, topic in read_pairs:
        if not granted(access.acls, topic, group):
            continue  # nobody was granted it: read by super users only
        missing = missing_grant(topic, group, readers(access.acls, "Topic", topic, supers),
                                readers(access.acls, "Group", group, supers))
        if missing:
            findings.append(Finding(Severity.WARN, "kafka", f"group {group}", MISSING_GRANT,
                                    f"group {group} has offsets on topic {topic}: {missing}"))
    return findings, skipped


def _allow_everyone_unread(access: ClusterAccess) -> dict[str, str]:
    """Why the allow.everyone rule could not judge every broker (none when it could)."""
    if access.brokers_unread:
        return {ALLOW_EVERYONE: "; ".join(access.brokers_unread)}
    hidden = [b.broker for b in access.brokers
              if "allow.everyone.if.no.acl.found" in b.hidden and set(b.protocols) & set(SECURED)]
    if hidden:
        return {ALLOW_EVERYONE: f"broker(s) {', '.join(map(str, hidden))} send allow.everyone.if.no.acl.found "
                                "as sensitive, without its value"}
    return {}


def _allow_everyone(access: ClusterAccess) -> list[Finding]:
    flagged = [b.broker for b in access.brokers
               if (b.allow_everyone or "").strip().lower() == "true" and set(b.protocols) & set(SECURED)]
    if not flagged:
        return []
    names = ", ".join(f"broker {b}" for b in flagged)
    return [Finding(Severity.WARN, "kafka", names, ALLOW_EVERYONE,
                    f"{names}: allow.everyone.if.no.acl.found=true on a secured listener: "
                    "every principal may use a resource that has no ACL")]
