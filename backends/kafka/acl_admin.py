"""Kafka ACLs: describe, create and delete bindings (confluent-kafka's DescribeAcls, CreateAcls,
DeleteAcls). Every call bounded by the client's timeout; an authorizer's refusal is one line
naming the ACL missing (authz.py).

Bindings cross the forked child's pipe (isolated.py) as plain `AclBinding` values in
kafka-acls.sh's words ("Topic", "Read", "Allow", "Prefixed"), never librdkafka's objects. A
delete sends one exact filter per binding it was given, so it removes nothing it was not shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka.admin import AclBinding as KafkaAclBinding
from confluent_kafka.admin import AclBindingFilter, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.kafka.authz import CLUSTER, Acl
from streamctl.backends.kafka.client import mutation

# kafka-acls.sh's names <-> librdkafka's enums (its BROKER resource is Kafka's Cluster)
RESOURCE_TYPES = {"Topic": ResourceType.TOPIC, "Group": ResourceType.GROUP, "Cluster": ResourceType.BROKER,
                  "TransactionalId": ResourceType.TRANSACTIONAL_ID}
OPERATIONS = {"All": AclOperation.ALL, "Read": AclOperation.READ, "Write": AclOperation.WRITE,
              "Create": AclOperation.CREATE, "Delete": AclOperation.DELETE, "Alter": AclOperation.ALTER,
              "Describe": AclOperation.DESCRIBE, "ClusterAction": AclOperation.CLUSTER_ACTION,
              "DescribeConfigs": AclOperation.DESCRIBE_CONFIGS, "AlterConfigs": AclOperation.ALTER_CONFIGS,
              "IdempotentWrite": AclOperation.IDEMPOTENT_WRITE}
PERMISSIONS = {"Allow": AclPermissionType.ALLOW, "Deny": AclPermissionType.DENY}
# "Match" (a filter only): the literal name, the literal "*" and every prefix of the name
PATTERNS = {"Literal": ResourcePatternType.LITERAL, "Prefixed": ResourcePatternType.PREFIXED,
            "Match": ResourcePatternType.MATCH}


@dataclass(frozen=True, order=True)
class AclBinding:
    """One ACL as kafka-acls.sh prints it."""

    principal: str  # "User:app"
    host: str  # "*" for any
    operation: str  # a key of OPERATIONS
    permission: str  # "Allow" or "Deny"
    resource_type: str  # a key of RESOURCE_TYPES
    name: str  # the resource name or prefix ("kafka-cluster" for the Cluster)
    pattern: str  # "Literal" or "Prefixed"

    def as_dict(self) -> dict[str, str]:
        return {"principal": self.principal, "host": self.host, "operation": self.operation,
                "permission": self.permission, "resource_type": self.resource_type, "name": self.name,
                "pattern": self.pattern}


@dataclass(frozen=True)
class AclQuery:
    """Which bindings to describe; None matches any value."""

    resource_type: str | None = None
    name: str | None = None
    pattern: str | None = None  # Literal, Prefixed or Match; None: any pattern type
    principal: str | None = None
    host: str | None = None
    operation: str | None = None
    permission: str | None = None


class AclAdmin(KafkaAdmin):
    def describe_acls(self, query: AclQuery) -> list[AclBinding]:
        """The bindings `query` matches, sorted."""
        future = self._admin.describe_acls(_filter(query), request_timeout=self.timeout)
        found = self._call(lambda: future.result(timeout=self.timeout + 5), "describing ACLs",
                           Acl("Cluster", CLUSTER, "Describe"))
        return sorted(_binding(b) for b in found)

    @mutation
    def add_acls(self, bindings: list[AclBinding]) -> None:
        futures = self._admin.create_acls([_kafka_binding(b) for b in bindings], request_timeout=self.timeout)
        for future in futures.values():
            self._call(lambda f=future: f.result(timeout=self.timeout + 5), "creating ACLs",
                       Acl("Cluster", CLUSTER, "Alter"))

    @mutation
    def remove_acls(self, bindings: list[AclBinding]) -> list[AclBinding]:
        """Each binding deleted by a filter that matches it exactly; what the brokers removed."""
        filters = [_filter(AclQuery(**b.as_dict())) for b in bindings]
        futures = self._admin.delete_acls(filters, request_timeout=self.timeout)
        removed: list[AclBinding] = []
        for future in futures.values():
            removed += map(_binding, self._call(lambda f=future: f.result(timeout=self.timeout + 5),
                                                "deleting ACLs", Acl("Cluster", CLUSTER, "Alter")))
        return sorted(removed)


def _filter(query: AclQuery) -> AclBindingFilter:
    kind = RESOURCE_TYPES[query.resource_type] if query.resource_type else ResourceType.ANY
    pattern = PATTERNS[query.pattern] if query.pattern else ResourcePatternType.ANY
    operation = OPERATIONS[query.operation] if query.operation else AclOperation.ANY
    permission = PERMISSIONS[query.permission] if query.permission else AclPermissionType.ANY
    name, who, host = query.name, query.principal, query.host  # None matches any (the stubs say str only)
    return AclBindingFilter(kind, name, pattern, who, host, operation, permission)  # type: ignore[arg-type]


def _kafka_binding(b: AclBinding) -> KafkaAclBinding:
    return KafkaAclBinding(RESOURCE_TYPES[b.resource_type], b.name, PATTERNS[b.pattern], b.principal, b.host,
                           OPERATIONS[b.operation], PERMISSIONS[b.permission])


def _name_of(table: dict, value) -> str:
    return next((name for name, member in table.items() if member == value), str(value.name))


def _binding(b: KafkaAclBinding) -> AclBinding:
    return AclBinding(b.principal, b.host, _name_of(OPERATIONS, b.operation), _name_of(PERMISSIONS, b.permission_type),
                      _name_of(RESOURCE_TYPES, b.restype), b.name, _name_of(PATTERNS, b.resource_pattern_type))
