"""ACL bindings and what a cluster's brokers say about access control (no I/O).

Plain values in kafka-acls.sh's words ("Topic", "Read", "Allow", "Prefixed"): they cross the
forked child's pipe and feed the check rules (streamctl/kafka/access_rules.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class AclBinding:
    """One ACL as kafka-acls.sh prints it."""

    principal: str  # "User:app"
    host: str  # "*" for any
    operation: str  # Read, Write, All, ... (backends/kafka/acl_codec.py OPERATIONS)
    permission: str  # "Allow" or "Deny"
    resource_type: str  # Topic, Group, Cluster, TransactionalId
    name: str  # the resource name or prefix ("kafka-cluster" for the Cluster)
    pattern: str  # "Literal" or "Prefixed"

    def as_dict(self) -> dict[str, str]:
        return {"principal": self.principal, "host": self.host, "operation": self.operation,
                "permission": self.permission, "resource_type": self.resource_type, "name": self.name,
                "pattern": self.pattern}


@dataclass(frozen=True)
class BrokerSecurity:
    """A broker's access-control configs as DescribeConfigs answered them; None: not set, or
    hidden. Kafka's brokers (3.x, both modes) send the authorizer's configs
    (allow.everyone.if.no.acl.found, super.users) as sensitive, without a value: a config
    KafkaConfig has no type for counts as sensitive. Those are named in `hidden`."""

    broker: int
    protocols: tuple[str, ...]  # its listeners' security protocols: PLAINTEXT, SASL_PLAINTEXT, SSL, ...
    allow_everyone: str | None  # allow.everyone.if.no.acl.found
    super_users: str | None  # super.users ("User:a;User:b")
    hidden: tuple[str, ...] = ()  # of those two, the configs the broker sent as sensitive (no value)


@dataclass(frozen=True)
class ClusterAccess:
    """The cluster's ACLs (one DescribeAcls of every binding) and its brokers' security configs.

    `acls` is None when they could not be read: `acls_unread` says why (`no_authorizer`: the
    brokers answered SECURITY_DISABLED, so there are no ACLs to judge)."""

    acls: tuple[AclBinding, ...] | None
    acls_unread: str | None = None
    no_authorizer: bool = False
    brokers: tuple[BrokerSecurity, ...] = ()
    brokers_unread: tuple[str, ...] = ()  # brokers whose configs could not be read, and why
