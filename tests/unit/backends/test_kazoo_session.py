"""start_within tells a refused SASL login from a session that never came."""

import threading

import pytest
from kazoo.exceptions import AuthFailedError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import KeeperState

from streamctl.backends.kazoo_session import start_within


class _Client:
    """What start_within reads of a KazooClient: the session event and the state it reached."""

    def __init__(self, state: str, live: bool):
        self.client_state = state
        self._live = threading.Event()
        if live:
            self._live.set()
        self.stopped = threading.Event()

    def start_async(self):
        return self._live

    @property
    def connected(self) -> bool:
        return self._live.is_set()

    def stop(self):
        self.stopped.set()

    def close(self):
        pass


def test_a_login_refused_before_the_caller_woke_is_a_refusal_not_a_timeout():
    # kazoo sets CONNECTED, then the SASL login fails: AUTH_FAILED and `connected` cleared.
    with pytest.raises(AuthFailedError):
        start_within(_Client(KeeperState.AUTH_FAILED, live=False), timeout=0.1)


def test_no_session_is_a_timeout_and_the_client_is_discarded():
    client = _Client(KeeperState.CONNECTING, live=False)
    with pytest.raises(KazooTimeoutError):
        start_within(client, timeout=0.1)
    assert client.stopped.wait(10)


def test_a_live_session_returns():
    start_within(_Client(KeeperState.CONNECTED, live=True), timeout=0.1)
