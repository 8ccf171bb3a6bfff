"""librdkafka clients as the adapters use them: the one error type, socket timeouts, a global
deadline, and blocking calls turned into one-line errors."""

from __future__ import annotations

import concurrent.futures
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from streamctl.errors import AnswerLost, StreamctlError, UsageError

if TYPE_CHECKING:
    from confluent_kafka import KafkaException


class KafkaError(StreamctlError):
    """Kafka could not be read (unreachable, timed out, refused)."""


class KafkaAnswerLost(KafkaError, AnswerLost):
    """A change's Kafka client crashed or hung after its call began: the change may have been
    made, and is not asked for again."""


def mutation(method):
    """Marks a client method that changes the cluster. A call of it whose client process dies or
    hangs after the call began is never made again (isolated.py, process.py): its outcome
    is read back instead. Methods without the mark are reads, asked again after a crash."""
    method.mutates = True
    return method


def mutates(client_class, method: str, kwargs: dict | None = None) -> bool:
    """Whether calling `client_class.method` with `kwargs` changes the cluster: it is marked a
    mutation, and not asked with validate_only=True (the broker then checks, changes nothing)."""
    return getattr(getattr(client_class, method, None), "mutates", False) and not (kwargs or {}).get("validate_only")


def socket_timeout_ms(timeout: float) -> str:
    """librdkafka's socket.timeout.ms for a per-call timeout: three times it, at least 30 s (kept
    inside librdkafka's 10..300000). Every call is bounded by its own timeout anyway; a socket
    timeout as short as the call's tears connections down under in-flight group requests, and
    librdkafka 2.16 can then abort the process (rd_kafka_enq_once_del_source_return assertion,
    confluentinc/librdkafka#4605)."""
    return str(min(max(int(timeout * 3000), 30_000), 300_000))


class ForkGuard:
    """No librdkafka client lives in this process at the moment it forks (isolated.py).

    A thread of a live client may hold one of librdkafka's global locks (it takes one to create
    and destroy every client) just as another thread forks; the child's own client then waits on
    that lock forever: a `check --probe` hung 1 run in 7 that way, its log-end reads (spark.py)
    creating clients while its Kafka reads forked. Clients made in a process that also forks
    live inside `client()` (shared); a fork takes `fork()` alone, waiting for them to end.
    """

    def __init__(self) -> None:
        self._state = threading.Condition(threading.Lock())
        self._clients = 0

    @contextmanager
    def client(self) -> Iterator[None]:
        with self._state:
            self._clients += 1
        try:
            yield
        finally:
            with self._state:
                self._clients -= 1
                self._state.notify_all()

    @contextmanager
    def fork(self) -> Iterator[None]:
        """Held while forking: no client starts until the fork is done."""
        with self._state:
            self._state.wait_for(lambda: self._clients == 0)
            yield


FORK_GUARD = ForkGuard()


def _fresh_guard_in_child() -> None:
    global FORK_GUARD  # noqa: PLW0603 - the forked child replaces its inherited guard
    FORK_GUARD = ForkGuard()  # the child's copy of the lock is held by a thread it does not have


os.register_at_fork(after_in_child=_fresh_guard_in_child)


def new_client(factory, config: dict[str, Any]):  # values: strings, or a logger
    """A librdkafka client; a property it rejects is the operator's config error, on one line."""
    from confluent_kafka import KafkaException  # here: kafka-python's users of this module load no librdkafka

    try:
        return factory(config)
    except KafkaException as exc:
        err: Any = exc.args[0] if exc.args else None  # a KafkaError value
        reason = (err.str() if hasattr(err, "str") else str(exc)).strip().splitlines()[0]
        raise UsageError(_property_error(reason, config)) from None


# librdkafka's PEM-file properties, as its creation errors name them ("ssl.key.location failed: ...").
_TLS_FILE_KEYS = ("ssl.ca.location", "ssl.certificate.location", "ssl.key.location", "ssl.crl.location")


def _property_error(reason: str, config: dict[str, Any]) -> str:
    """'kafka.properties.KEY (PATH): what OpenSSL said' for a TLS file librdkafka could not use."""
    for key in _TLS_FILE_KEYS:
        if f"{key} failed" in reason:  # "Failed to create admin client: ssl.key.location failed: error:..."
            detail = reason.split(f"{key} failed", 1)[1].lstrip(": ") or reason
            if key == "ssl.key.location" and "ssl.key.password" not in config and "bad decrypt" in detail.lower():
                detail += " (an encrypted key: set kafka.properties.ssl.key.password)"
            return f"kafka.properties.{key}: {config.get(key, '?')}: {_openssl_reason(detail)}"
    return f"kafka.properties: {reason}"


def _openssl_reason(text: str) -> str:
    """'error:05800074:x509 certificate routines::key values mismatch' -> 'key values mismatch'."""
    return ", ".join(part.rsplit(":", 1)[-1].strip() for part in text.split(": error:")) if "error:" in text \
        else text


def tls_reason(message: str, config: dict[str, str]) -> str | None:
    """librdkafka's TLS failure (an OpenSSL error) as one line naming the setting to look at;
    None when `message` is no TLS failure."""
    text = message.lower()
    if "ssl" not in text and "certificate" not in text:
        return None
    ca, cert = config.get("ssl.ca.location"), config.get("ssl.certificate.location")
    has_cert = cert or "ssl.certificate.pem" in config or "ssl.keystore.location" in config
    if "certificate verify failed" in text or "could not be verified" in text:
        if "mismatch" in text:
            return ("TLS: the broker's certificate does not name the host it was reached at (check its "
                    "subjectAltName, or kafka.properties.ssl.endpoint.identification.algorithm)")
        if "expired" in text:
            return "TLS: the broker's certificate has expired (certificate verify failed)"
        if ca:
            return (f"TLS: the broker's certificate is not signed by the CA in kafka.properties.ssl.ca.location "
                    f"({ca}) (certificate verify failed)")
        return ("TLS: the broker's certificate is not signed by a CA this host trusts: set "
                "kafka.properties.ssl.ca.location (certificate verify failed)")
    if ("alert" in text and "certificate" in text) or "alert unknown ca" in text:
        if not has_cert:
            return ("TLS: kafka.properties.ssl.certificate.location not set: the broker requires a client "
                    "certificate")
        why = "it has expired" if "expired" in text else "not signed by a CA the broker trusts"
        return f"TLS: the broker refused the client certificate in kafka.properties.ssl.certificate.location ({cert}): {why}"
    if "ssl" in text and ("handshake" in text or "transport" in text):
        detail = message.split(": ", 1)[-1].strip()
        return f"TLS: {detail} (check kafka.properties.security.protocol and the ssl.* settings)"
    return None


class Deadline:
    """A global time budget: each call gets min(per-call timeout, time left)."""

    def __init__(self, per_call: float, total: float | None = None):
        self.per_call = per_call
        self.ends = None if total is None else time.monotonic() + total

    def remaining(self) -> float:
        """Seconds left of the whole budget (of one call's timeout, without a budget)."""
        return self.per_call if self.ends is None else max(0.0, min(self.per_call, self.ends - time.monotonic()))

    def left(self, what: str) -> float:
        if self.ends is None:
            return self.per_call
        remaining = self.ends - time.monotonic()
        if remaining <= 0.05:
            raise KafkaError(f"deadline reached before {what}")
        return min(self.per_call, remaining)


def call(fn, what: str, refused: Callable[[KafkaException], KafkaError | None] | None = None):
    """Run a blocking client call; Kafka errors and timeouts become one-line KafkaErrors
    (`refused` may name an error better: an authorizer's refusal, authz.py)."""
    from confluent_kafka import KafkaException

    try:
        return fn()
    except KafkaException as exc:
        if refused is not None and (named := refused(exc)) is not None:
            raise named from None
        raise KafkaError(f"{what} failed: {reason(exc)}") from None
    except concurrent.futures.TimeoutError:
        raise KafkaError(f"{what} timed out") from None


def reason(exc: BaseException) -> str:
    if isinstance(exc, concurrent.futures.TimeoutError):
        return "timed out"
    if not isinstance(exc, BaseException) and hasattr(exc, "str"):  # a KafkaError value, not raised
        return exc.str()
    err: Any = exc.args[0] if exc.args else None  # a KafkaError value
    return err.str() if hasattr(err, "str") else str(exc)
