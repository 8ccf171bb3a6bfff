"""The snapshot's access-control part (for check's ACL rules): every ACL binding in ONE
DescribeAcls (filter ANY; the rules match locally) and each broker's security configs.

librdkafka sends a BROKER config resource to that broker and takes one per DescribeConfigs, so
the brokers are asked in one call each, all in flight together with the ACLs. A cluster
without an authorizer answers DescribeAcls with SECURITY_DISABLED: no ACLs to judge, not an
error. A refusal (no Describe on the Cluster) is one line naming that ACL (authz.py).
"""

from __future__ import annotations

import concurrent.futures

from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from streamctl.backends.kafka.acl_codec import AclQuery, acl_filter, binding_of
from streamctl.backends.kafka.authz import CLUSTER, Acl, error_code, refusal
from streamctl.backends.kafka.client import Deadline, KafkaError, reason
from streamctl.model.acls import BrokerSecurity, ClusterAccess

NO_AUTHORIZER = "the cluster has no authorizer (DescribeAcls answered SECURITY_DISABLED)"
_FAILED = (KafkaException, KafkaError, concurrent.futures.TimeoutError)


def read_access(admin: AdminClient, broker_ids: list[int], deadline: Deadline, who: str) -> ClusterAccess:
    """Every binding and every broker's security configs, the calls in flight together."""
    acls_future = admin.describe_acls(acl_filter(AclQuery()), request_timeout=deadline.left("describe_acls"))
    resources = {broker: ConfigResource(ResourceType.BROKER, str(broker)) for broker in sorted(broker_ids)}
    config_futures = {broker: admin.describe_configs([resource], request_timeout=deadline.left("describe_configs"))
                      [resource] for broker, resource in resources.items()}
    try:
        found = acls_future.result(timeout=deadline.left("describe_acls"))
        acls, unread, no_authorizer = tuple(sorted(binding_of(b) for b in found)), None, False
    except _FAILED as exc:
        acls, unread, no_authorizer = None, why_unread(exc, who), error_code(exc) == KafkaErrorCode.SECURITY_DISABLED
    brokers, brokers_unread = [], []
    for broker, future in config_futures.items():
        try:
            brokers.append(_broker_security(broker, future.result(timeout=deadline.left("describe_configs"))))
        except _FAILED as exc:
            refused = refusal(exc, f"describing broker {broker}", who, [Acl("Cluster", CLUSTER, "DescribeConfigs")])
            brokers_unread.append(str(refused) if refused else f"configs of broker {broker}: {reason(exc)}")
    return ClusterAccess(acls, unread, no_authorizer, tuple(brokers), tuple(brokers_unread))


def why_unread(exc: BaseException, who: str) -> str:
    if error_code(exc) == KafkaErrorCode.SECURITY_DISABLED:
        return NO_AUTHORIZER
    refused = refusal(exc, "describing ACLs", who, [Acl("Cluster", CLUSTER, "Describe")])
    return str(refused) if refused else f"describing ACLs: {reason(exc)}"


AUTHORIZER_CONFIGS = ("allow.everyone.if.no.acl.found", "super.users")


def _broker_security(broker: int, entries) -> BrokerSecurity:
    def value(name: str) -> str | None:
        entry = entries.get(name)
        return entry.value if entry is not None else None

    hidden = tuple(name for name in AUTHORIZER_CONFIGS if name in entries and entries[name].is_sensitive)
    return BrokerSecurity(broker, listener_protocols(value("listeners") or "", value("listener.security.protocol.map")),
                          value(AUTHORIZER_CONFIGS[0]), value(AUTHORIZER_CONFIGS[1]), hidden)


def listener_protocols(listeners: str, protocol_map: str | None) -> tuple[str, ...]:
    """The security protocol of each listener ("SASL_PLAINTEXT://h:9092" or "CLIENT://h:9092"
    with CLIENT:SASL_SSL in listener.security.protocol.map); a name the map lacks is its own
    protocol (Kafka's default map names each protocol after itself)."""
    mapping = dict(pair.split(":", 1) for pair in (protocol_map or "").split(",") if ":" in pair)
    names = [item.split("://", 1)[0].strip() for item in listeners.split(",") if "://" in item]
    return tuple(mapping.get(name, name) for name in names)
