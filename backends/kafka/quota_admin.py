"""Kafka's client quotas (KIP-546): describe them, alter one entity's, through kafka-python.

librdkafka has no DescribeClientQuotas / AlterClientQuotas; kafka-python's protocol messages
(kafka.protocol.admin.client_quotas) encode and decode them and WireAdmin.send sends them.
An entity is a dict of entity type ("user", "client-id", "ip") -> name, None for that type's
default. Describing needs DescribeConfigs on the Cluster, altering AlterConfigs on the Cluster;
an authorizer's refusal names that ACL (authz.py).
"""

from __future__ import annotations

from kafka import errors
from kafka.protocol.admin.client_quotas import (
    AlterClientQuotasRequest,
    DescribeClientQuotasRequest,
)

from streamctl.backends.kafka.authz import CLUSTER, Acl
from streamctl.backends.kafka.client import mutation
from streamctl.backends.kafka.wire import WireAdmin

EXACT, DEFAULT = 0, 1  # DescribeClientQuotas match types: a name, the default
DESCRIBE = Acl("Cluster", CLUSTER, "DescribeConfigs")
ALTER = Acl("Cluster", CLUSTER, "AlterConfigs")

Entity = dict[str, "str | None"]


class QuotaAdmin(WireAdmin):
    def quotas(self, entity: Entity | None = None, strict: bool = False) -> list[dict]:
        """Every quota entity matching `entity` (all of them without it; only that exact entity
        with `strict`), each as {"entity": Entity, "values": {key: value}}."""
        components = [DescribeClientQuotasRequest.ComponentData(
            entity_type=kind, match_type=EXACT if name is not None else DEFAULT, match=name)
            for kind, name in (entity or {}).items()]
        request = DescribeClientQuotasRequest(components=components, strict=strict)
        response = self.send(request, "describing client quotas", DESCRIBE)
        self._raise_for(response.error_code, response.error_message, "describing client quotas", DESCRIBE)
        return [{"entity": {e.entity_type: e.entity_name for e in entry.entity},
                 "values": {v.key: v.value for v in entry.values}}
                for entry in response.entries or []]

    @mutation
    def alter_quotas(self, entity: Entity, sets: dict[str, float], removes: list[str],
                     validate_only: bool = False) -> None:
        """Set `sets` and remove `removes` on one entity (the broker only checks with validate_only)."""
        ops = [AlterClientQuotasRequest.EntryData.OpData(key=k, value=float(v), remove=False) for k, v in sets.items()]
        ops += [AlterClientQuotasRequest.EntryData.OpData(key=k, value=0.0, remove=True) for k in removes]
        entry = AlterClientQuotasRequest.EntryData(
            entity=[AlterClientQuotasRequest.EntryData.EntityData(entity_type=kind, entity_name=name)
                    for kind, name in entity.items()],
            ops=ops)
        named = ", ".join(f"{kind} {'<default>' if name is None else name}" for kind, name in entity.items())
        what = f"altering the client quotas of {named}"
        response = self.send(AlterClientQuotasRequest(entries=[entry], validate_only=validate_only), what, ALTER)
        for answer in response.entries:
            self._raise_for(answer.error_code, answer.error_message, what, ALTER)

    def _raise_for(self, code: int, message: str | None, what: str, need: Acl) -> None:
        """A response's error code as the one-line error WireAdmin.call makes of it."""
        if code:
            error = errors.for_code(code)
            self.call(lambda: _raise(error(message) if message else error()), what, need)


def _raise(error: Exception) -> None:
    raise error

