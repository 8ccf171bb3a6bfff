"""The kafka-python route (wire.py) against a broker that accepts connections but never answers
(SIGSTOP): a request to it fails within the context's timeout. kafka-python bounds a new
connection's ApiVersions handshake by its own 10 s set-up default, which its admin client does
not let us set; the Overview's reassignment listing once sat on a paused controller for those
10 s and hid the pause from the dashboard."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from kafka.protocol.metadata import MetadataRequest

from streamctl.backends.kafka.wire import WireAdmin, WireError

pytestmark = pytest.mark.integration

TIMEOUT = 2.0
PAUSE_LIMIT = 30.0  # SIGCONT by then whatever happens here


def test_a_request_to_a_silent_broker_fails_within_the_timeout(sandbox):
    brokers = {s.node_id: s for s in sandbox.state.by_role("broker")}
    _, silent = sandbox.sandbox.service("kafka-2")
    admin = WireAdmin({"bootstrap.servers": f"127.0.0.1:{brokers[1].port}"}, timeout=TIMEOUT)
    try:
        assert admin.client is not None  # bootstrapped through broker 1; no connection to broker 2 yet
        os.kill(silent.pid, signal.SIGSTOP)
        resume = threading.Timer(PAUSE_LIMIT, os.kill, (silent.pid, signal.SIGCONT))
        resume.start()
        try:
            started = time.monotonic()
            with pytest.raises(WireError) as raised:
                admin.send(MetadataRequest(topics=[]), "asking broker 2", node_id=2)
            took = time.monotonic() - started
        finally:
            resume.cancel()
            os.kill(silent.pid, signal.SIGCONT)
    finally:
        admin.close()
    assert str(raised.value) == f"asking broker 2 timed out after {TIMEOUT:g} s"
    assert took < 2 * TIMEOUT, f"took {took:.1f} s with a {TIMEOUT:g} s timeout (kafka-python's set-up default is 10 s)"
