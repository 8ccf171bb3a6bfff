"""Kafka ACLs: describe, create and delete bindings (confluent-kafka's DescribeAcls, CreateAcls,
DeleteAcls). Every call bounded by the client's timeout; an authorizer's refusal is one line
naming the ACL missing (authz.py).

Bindings cross the forked child's pipe (isolated.py) as plain `AclBinding` values in
kafka-acls.sh's words ("Topic", "Read", "Allow", "Prefixed"), never librdkafka's objects. A
delete sends one exact filter per binding it was given, so it removes nothing it was not shown.
A cluster without an authorizer answers DescribeAcls with SECURITY_DISABLED, but librdkafka 2.16
drops that code and hands back an empty list (seen on the plain sandbox, Kafka 3.9: kafka-python's
describe_acls raises SecurityDisabledError on the same broker). So an empty answer is checked
against a broker's `authorizer.class.name`: set to "" (not sensitive) means none. Either way the
caller gets `NoAuthorizer`, and can say "no authorizer" rather than show an error.
"""

from __future__ import annotations

from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka import KafkaException

from streamctl.backends.kafka.access_reads import NO_AUTHORIZER
from streamctl.backends.kafka.acl_codec import OPERATIONS, AclQuery, acl_filter, binding_of, kafka_binding
from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.kafka.authz import CLUSTER, Acl, error_code, refusal
from streamctl.backends.kafka.client import Deadline, KafkaError, call, mutation
from streamctl.model.acls import AclBinding

# the names the ACL commands and the dashboard import from here
__all__ = ["OPERATIONS", "AclAdmin", "AclBinding", "AclQuery", "NoAuthorizer"]


AUTHORIZER = "authorizer.class.name"
NO_AUTHORIZER_SET = f"the cluster has no authorizer ({AUTHORIZER} is not set)"


class NoAuthorizer(KafkaError):
    """The brokers run without an authorizer (DescribeAcls answered SECURITY_DISABLED): no ACL
    applies, every principal may do everything."""


class AclAdmin(KafkaAdmin):
    def describe_acls(self, query: AclQuery) -> list[AclBinding]:
        """The bindings `query` matches, sorted; NoAuthorizer on a cluster without an authorizer."""
        future = self._admin.describe_acls(acl_filter(query), request_timeout=self.timeout)
        found = call(lambda: future.result(timeout=self.timeout + 5), "describing ACLs", self._describe_refused)
        if not found and not self._authorizer_configured():
            raise NoAuthorizer(NO_AUTHORIZER_SET)
        return sorted(binding_of(b) for b in found)

    def _authorizer_configured(self) -> bool:
        """False only when a broker says its authorizer.class.name is "" (unknown counts as set)."""
        deadline = Deadline(self.timeout)
        entry = self._any_broker_configs(self._metadata(None, deadline), deadline).get(AUTHORIZER)
        return entry is None or entry.is_sensitive or entry.value != ""

    def _describe_refused(self, exc: KafkaException) -> KafkaError | None:
        if error_code(exc) == KafkaErrorCode.SECURITY_DISABLED:
            return NoAuthorizer(NO_AUTHORIZER)
        return refusal(exc, "describing ACLs", self.principal, [Acl("Cluster", CLUSTER, "Describe")])

    @mutation
    def add_acls(self, bindings: list[AclBinding]) -> None:
        futures = self._admin.create_acls([kafka_binding(b) for b in bindings], request_timeout=self.timeout)
        for future in futures.values():
            self._call(lambda f=future: f.result(timeout=self.timeout + 5), "creating ACLs",
                       Acl("Cluster", CLUSTER, "Alter"))

    @mutation
    def remove_acls(self, bindings: list[AclBinding]) -> list[AclBinding]:
        """Each binding deleted by a filter that matches it exactly; what the brokers removed."""
        filters = [acl_filter(AclQuery(**b.as_dict())) for b in bindings]
        futures = self._admin.delete_acls(filters, request_timeout=self.timeout)
        removed: list[AclBinding] = []
        for future in futures.values():
            removed += map(binding_of, self._call(lambda f=future: f.result(timeout=self.timeout + 5),
                                                  "deleting ACLs", Acl("Cluster", CLUSTER, "Alter")))
        return sorted(removed)
