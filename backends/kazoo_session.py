"""kazoo sessions as the ZooKeeper adapter opens them: a bounded start, SASL refusals that
end the session cleanly, and no collector pauses during bulk answers."""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

from kazoo.client import KazooClient
from kazoo.exceptions import AuthFailedError, SessionClosedRequireSaslError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import KeeperState


def failed_login_is_auth_failure(client: KazooClient) -> None:
    """kazoo (2.11) ends a session cleanly when a SASL login answers AuthFailed, but a server
    that enforces SASL (enforce.auth.enabled, sessionRequireClientSASLAuth) answers a wrong
    password with SessionClosedRequireSasl, which kills kazoo's connection thread with a
    traceback on stderr and leaves requests to fail with ConnectionLoss. Turn that answer into
    the AuthFailedError it means, so the session ends as AUTH_FAILED and requests say so."""
    connection = client._connection
    authenticate = connection._authenticate_with_sasl

    def authenticate_or_fail(host, timeout):
        try:
            return authenticate(host, timeout)
        except SessionClosedRequireSaslError as exc:
            raise AuthFailedError("SASL login refused") from exc

    connection._authenticate_with_sasl = authenticate_or_fail


def start_within(client: KazooClient, timeout: float) -> None:
    """kazoo's start(timeout), except that a client which timed out is stopped in the background:
    kazoo's own stop() first waits for the connection attempt in flight, which against an
    endpoint that accepts and never answers lasts the whole session timeout."""
    client.start_async().wait(timeout=timeout)
    if client.client_state == KeeperState.AUTH_FAILED:
        # The session is CONNECTED before the SASL login: a refusal that came before this
        # thread woke up has already cleared `connected`. It is a refusal, not a timeout.
        raise AuthFailedError("SASL login refused")
    if not client.connected:
        threading.Thread(target=discard, args=(client,), name="zk-discard", daemon=True).start()
        raise KazooTimeoutError("Connection time-out")


def discard(client: KazooClient) -> None:
    client.stop()
    client.close()


@contextmanager
def gc_paused():
    """Thousands of small answers would trigger many young-generation collections for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
