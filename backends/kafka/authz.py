"""Kafka's authorizer said no: the one-line message that names the ACL missing.

A broker with an authorizer answers a refused request with one of four error codes, naming only
the kind of resource (TOPIC_AUTHORIZATION_FAILED, ...). The caller knows the rest: which
resource it asked about and what that request needs (Kafka's "Operations and Resources on
Protocols" table), so each call site states its `Acl`s and the principal comes from the
client's login. The message reads like an ACL: principal, operation, resource type and name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from streamctl.backends.kafka.client import KafkaError

# Kafka's protocol error codes of a refusal: confluent_kafka.KafkaError and kafka-python's errors
# carry these numbers (a unit test checks); taken from neither, so that a command using only
# kafka-python loads no librdkafka.
TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED = 29, 30, 31
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
REFUSALS = {  # code -> the resource type it is about, as kafka-acls.sh names it
    TOPIC_AUTHORIZATION_FAILED: "Topic",
    GROUP_AUTHORIZATION_FAILED: "Group",
    CLUSTER_AUTHORIZATION_FAILED: "Cluster",
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "TransactionalId",
}
CODE_NAMES = {
    TOPIC_AUTHORIZATION_FAILED: "TOPIC_AUTHORIZATION_FAILED",
    GROUP_AUTHORIZATION_FAILED: "GROUP_AUTHORIZATION_FAILED",
    CLUSTER_AUTHORIZATION_FAILED: "CLUSTER_AUTHORIZATION_FAILED",
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
}
CLUSTER = "kafka-cluster"  # the one Cluster resource's name


@dataclass(frozen=True)
class Acl:
    """What a request needs: `operation` (Create, Read, AlterConfigs, ...) on a resource
    (`resource_type` Topic, Group, Cluster or TransactionalId, and its name)."""

    resource_type: str
    name: str
    operation: str
    alternative: Acl | None = None  # another ACL that grants the request as well
    prefixed: bool = False  # `name` is a prefix (kafka-acls.sh --resource-pattern-type prefixed)

    def __str__(self) -> str:
        also = f" (or {self.alternative})" if self.alternative else ""
        pattern = " prefix" if self.prefixed else ""
        return f"{self.operation} on {self.resource_type}{pattern} {self.name!r}{also}"


class NotAuthorized(KafkaError):
    """The cluster's authorizer refused the request: one line naming the principal and the ACL."""


def principal(client_config: dict[str, str]) -> str:
    """The client's Kafka principal as ACLs name it (SASL logins are `User:<name>`)."""
    user = client_config.get("sasl.username")
    return f"User:{user}" if user else "this client's principal"


def error_code(error) -> int | None:
    """The code of a KafkaException, or of a bare confluent_kafka KafkaError value."""
    if hasattr(error, "code"):
        return error.code()
    first: Any = error.args[0] if getattr(error, "args", None) else None
    return first.code() if hasattr(first, "code") else None


def refusal(error, what: str, who: str, needs: Iterable[Acl]) -> NotAuthorized | None:
    """The NotAuthorized for `error` when it is an authorizer's refusal of `what`, else None.
    Of `needs`, the ACL on the resource type the code names is the one missing."""
    code = error_code(error)
    kind = REFUSALS.get(code) if code is not None else None
    if code is None or kind is None:
        return None
    acl = next((a for a in needs if a.resource_type == kind), None)
    missing = str(acl) if acl else f"an ACL on a {kind}"
    return NotAuthorized(f"not authorized: {what}: {who} lacks {missing} ({CODE_NAMES[code]})")
