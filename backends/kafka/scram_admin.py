"""Kafka's SCRAM credentials (KIP-554): describe them, upsert and delete one (user, mechanism).

A password crosses no process boundary as data: the CLI's forked child (isolated.py) gets it by
fork, and no message or error here holds it. The salt is librdkafka's own (random, made when
none is given), never chosen here. Describing needs Describe on the Cluster, altering needs
Alter on the Cluster; an authorizer's refusal names that ACL (authz.py).
"""

from __future__ import annotations

from confluent_kafka.admin import (
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from streamctl.backends.kafka.authz import CLUSTER, Acl
from streamctl.backends.kafka.client import mutation
from streamctl.backends.kafka.cluster import KafkaBackend

MECHANISMS = {"SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256, "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512}
MECHANISM_NAMES = {value: name for name, value in MECHANISMS.items()}


class ScramAdmin(KafkaBackend):
    def scram_users(self) -> dict[str, dict[str, int]]:
        """Every SCRAM user: mechanism name -> iterations."""
        future = self._admin.describe_user_scram_credentials(request_timeout=self.timeout)
        described = self._call(lambda: future.result(timeout=self.timeout + 5), "describing SCRAM users",
                               Acl("Cluster", CLUSTER, "Describe"))
        return {user: {MECHANISM_NAMES.get(info.mechanism, info.mechanism.name): info.iterations
                       for info in description.scram_credential_infos}
                for user, description in described.items()}

    @mutation
    def upsert_scram(self, user: str, mechanism: str, iterations: int, password: str) -> None:
        """Set `user`'s `mechanism` credential from `password` (created or replaced)."""
        info = ScramCredentialInfo(MECHANISMS[mechanism], iterations)
        self._alter([UserScramCredentialUpsertion(user, info, password.encode())],
                    f"setting the {mechanism} credential of user {user!r}")

    @mutation
    def delete_scram(self, user: str, mechanisms: list[str]) -> None:
        """Delete `user`'s credentials of `mechanisms` (a user without any is gone)."""
        self._alter([UserScramCredentialDeletion(user, MECHANISMS[m]) for m in mechanisms],
                    f"deleting the {', '.join(mechanisms)} credential(s) of user {user!r}")

    def _alter(self, alterations: list, what: str) -> None:
        """One request for one user's alterations (its answer is per user)."""
        futures = self._admin.alter_user_scram_credentials(alterations, request_timeout=self.timeout)
        for future in futures.values():
            self._call(lambda f=future: f.result(timeout=self.timeout + 5), what, Acl("Cluster", CLUSTER, "Alter"))
