"""kafka-python's admin client, for the Kafka requests librdkafka has no call for.

confluent-kafka (librdkafka 2.16) lacks DescribeQuorum, ListGroups with a type filter (share and
streams groups), AlterPartitionReassignments / ListPartitionReassignments and the client quota
requests. kafka-python (3.x, pure Python, maintained) has them: as admin methods
(`describe_metadata_quorum`, `list_groups(types_filter=...)`, `alter_partition_reassignments`,
`list_partition_reassignments`) or, for the quotas, as protocol messages that its connection
sends (`send`). No request is encoded here: the library's messages do that.

`WireAdmin(client_config, timeout)` takes the librdkafka config a context gives every client
and translates it; a setting kafka-python cannot honour is a one-line KafkaError, never a
silently weaker connection. It runs under IsolatedKafka like the librdkafka clients
(`clients.admin(..., client_class=...)`), so every call has the same deadline and crash rules;
a command that only reads, and only through kafka-python, may keep it in its own process
(`clients.wire_reader`: it then loads no librdkafka, nothing to isolate).
Errors come back as the one KafkaError line; an authorizer's refusal names the ACL missing
(authz.py), since kafka-python's error numbers are Kafka's protocol error codes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from streamctl.backends.kafka.authz import Acl, principal, refusal
from streamctl.backends.kafka.client import KafkaError

# librdkafka setting -> kafka-python setting, for the ones that mean the same.
SAME_SETTINGS = {
    "bootstrap.servers": "bootstrap_servers",
    "client.id": "client_id",
    "security.protocol": "security_protocol",
    "sasl.mechanism": "sasl_mechanism",
    "sasl.mechanisms": "sasl_mechanism",
    "sasl.username": "sasl_plain_username",
    "sasl.password": "sasl_plain_password",
    "ssl.ca.location": "ssl_cafile",
    "ssl.certificate.location": "ssl_certfile",
    "ssl.key.location": "ssl_keyfile",
    "ssl.key.password": "ssl_password",
    "ssl.crl.location": "ssl_crlfile",
}
# librdkafka settings with no bearing on these requests (tuning, logging, callbacks' peers).
IGNORED_PREFIXES = ("socket.", "reconnect.", "retry.", "log", "debug", "statistics.", "api.version",
                    "broker.version.fallback", "topic.metadata", "metadata.", "client.rack",
                    "enable.ssl.certificate.verification", "connections.max.idle.ms")


class WireError(KafkaError):
    """A request sent through kafka-python failed (one line)."""


def kafka_python_config(client_config: dict[str, str], timeout: float) -> dict[str, Any]:
    """The KafkaAdminClient settings for a context's librdkafka config, bounded by `timeout`."""
    config: dict[str, Any] = {
        "request_timeout_ms": int(timeout * 1000),
        "bootstrap_timeout_ms": int(timeout * 1000),
        "reconnect_backoff_max_ms": 1000,
        "client_id": "streamctl",
    }
    for key, value in client_config.items():
        if key in SAME_SETTINGS:
            config[SAME_SETTINGS[key]] = value.upper() if key == "security.protocol" else value
        elif key == "ssl.endpoint.identification.algorithm":
            config["ssl_check_hostname"] = value.lower() == "https"
        elif key == "enable.ssl.certificate.verification" and value.lower() == "false":
            raise WireError("kafka.properties enable.ssl.certificate.verification=false: kafka-python "
                            "(used for this request) always verifies; give ssl.ca.location instead")
        elif not key.startswith(IGNORED_PREFIXES):
            raise WireError(f"kafka.properties {key}: not supported for this request, which goes through "
                            "kafka-python (librdkafka has no call for it)")
    if config.get("sasl_mechanism") not in (None, "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        raise WireError(f"sasl.mechanism {config['sasl_mechanism']}: not supported for this request "
                        "(kafka-python route: PLAIN and SCRAM only)")
    return config


class WireAdmin:
    """A kafka-python admin client made from a context's librdkafka config."""

    def __init__(self, client_config: dict[str, str], timeout: float = 10.0, kraft: bool | None = None):
        self.client_config = dict(client_config)
        self.timeout = timeout
        self._settings = kafka_python_config(self.client_config, timeout)
        self._client: Any = None

    @property
    def principal(self) -> str:
        return principal(self.client_config)

    @property
    def client(self):
        """The kafka-python KafkaAdminClient, connected on first use."""
        if self._client is None:
            from kafka.admin import KafkaAdminClient

            logging.getLogger("kafka").setLevel(logging.CRITICAL)  # failures become one-line errors here
            self._client = self.call(lambda: KafkaAdminClient(**self._settings, kafka_client=self._net_client),
                                     "connect")
        return self._client

    def _net_client(self, **configs):
        """kafka-python's network client with its connection set-up bounded by our timeout too:
        the admin client does not take that setting, and its 10 s default also bounds the
        ApiVersions handshake, so a broker that accepts but never answers (SIGSTOP, a full
        accept queue) held a call for 10 s whatever `timeout` said."""
        from kafka.net.compat import KafkaNetClient

        setup_ms = int(self.timeout * 1000)
        return KafkaNetClient(**configs, socket_connection_setup_timeout_ms=setup_ms,
                              socket_connection_setup_timeout_max_ms=setup_ms)

    def call(self, fn: Callable[[], Any], what: str, *needs: Acl) -> Any:
        """Run a kafka-python call; its errors become one line (a refusal names the ACL missing)."""
        from kafka import errors

        try:
            return fn()
        except (errors.KafkaTimeoutError, errors.RequestTimedOutError):  # no answer at all, or none in time
            if what == "connect":  # the bootstrap found no broker that answers
                raise WireError(f"connect failed: no broker of {self.client_config.get('bootstrap.servers')} "
                                f"answered within {self.timeout:g} s") from None
            raise WireError(f"{what} timed out after {self.timeout:g} s") from None
        except errors.BrokerResponseError as exc:
            named = refusal(_Code(exc.errno), what, self.principal, needs)
            if named is not None:
                raise named from None
            detail = exc.args[0] if exc.args and exc.args[0] else exc.description  # the broker's message first
            raise WireError(f"{what} failed: {type(exc).__name__}: {detail or exc}") from None
        except errors.KafkaError as exc:
            raise WireError(f"{what} failed: {type(exc).__name__}: {exc}") from None

    def send(self, request, what: str, *needs: Acl, node_id: int | None = None):
        """Send one of kafka-python's protocol messages that it has no admin method for; the
        response as the library decodes it. To the least loaded broker unless `node_id`."""
        return self.send_together([(request, node_id)], what, *needs)[0]

    def send_together(self, requests: Sequence[tuple[Any, int | None]], what: str, *needs: Acl) -> list:
        """Send several protocol messages at once, each to its broker (None: the least loaded),
        and wait for every response (in the same order): the round trips and the connections
        to the brokers overlap instead of following one another."""
        manager = self.client._manager  # the library's own connection manager: no public send yet

        async def together():
            answers = [manager.send(request, node_id) for request, node_id in requests]
            return [await answer for answer in answers]

        return self.call(lambda: manager.run(together), what, *needs)

    def broker_ids(self) -> list[int]:
        """The brokers of the metadata the client bootstrapped from (no request of its own)."""
        return [broker.node_id for broker in self.client._manager.cluster.brokers()]

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


class _Code:
    """A kafka-python error number in the shape authz.refusal reads (confluent's `.code()`)."""

    def __init__(self, errno: int | None):
        self.errno = errno

    def code(self) -> int | None:
        return self.errno
