"""ACL bindings and filters in kafka-acls.sh's words <-> confluent-kafka's objects.

Shared by the ACL commands (acl_admin.py) and the snapshot's read of every binding
(access_reads.py): librdkafka's enums never leave the child that holds the client.
"""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka.admin import AclBinding as KafkaAclBinding
from confluent_kafka.admin import AclBindingFilter, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

from streamctl.model.acls import AclBinding

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


def acl_filter(query: AclQuery) -> AclBindingFilter:
    kind = RESOURCE_TYPES[query.resource_type] if query.resource_type else ResourceType.ANY
    pattern = PATTERNS[query.pattern] if query.pattern else ResourcePatternType.ANY
    operation = OPERATIONS[query.operation] if query.operation else AclOperation.ANY
    permission = PERMISSIONS[query.permission] if query.permission else AclPermissionType.ANY
    name, who, host = query.name, query.principal, query.host  # None matches any (the stubs say str only)
    return AclBindingFilter(kind, name, pattern, who, host, operation, permission)  # type: ignore[arg-type]


def kafka_binding(b: AclBinding) -> KafkaAclBinding:
    return KafkaAclBinding(RESOURCE_TYPES[b.resource_type], b.name, PATTERNS[b.pattern], b.principal, b.host,
                           OPERATIONS[b.operation], PERMISSIONS[b.permission])


def _name_of(table: dict, value) -> str:
    return next((name for name, member in table.items() if member == value), str(value.name))


def binding_of(b: KafkaAclBinding) -> AclBinding:
    return AclBinding(b.principal, b.host, _name_of(OPERATIONS, b.operation), _name_of(PERMISSIONS, b.permission_type),
                      _name_of(RESOURCE_TYPES, b.restype), b.name, _name_of(PATTERNS, b.resource_pattern_type))
