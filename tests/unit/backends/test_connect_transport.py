"""Which Connect requests move on to the next worker: a read after any failure, a write only when
its connection was never made. Loopback sockets stand in for the workers' transport (the REST
answers themselves are the integration tests'): one port refuses, one takes requests and never
answers, one answers every request with `{}` and counts them."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from streamctl.backends.connect import ConnectAnswerLost, ConnectBackend, ConnectUnreachable
from streamctl.errors import AnswerLost


class _Counting(http.server.BaseHTTPRequestHandler):
    seen: list[str] = []

    def _answer(self):
        self.seen.append(f"{self.command} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def answering():
    _Counting.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Counting.seen
    server.shutdown()
    server.server_close()


@pytest.fixture
def silent():
    """Accepts connections (the kernel's backlog) and reads nothing back: a sent request's answer
    never comes."""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as sock:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def refusing():
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # closed: connections refused


def test_a_read_moves_on_after_its_answer_timed_out(silent, answering):
    url, seen = answering
    with ConnectBackend([silent, url], timeout=0.5) as backend:
        assert backend.offsets("sink") == []
    assert seen == ["GET /connectors/sink/offsets"]


@pytest.mark.parametrize("write", [lambda b: b.create("sink", {"a": "b"}), lambda b: b.pause("sink"),
                                   lambda b: b.delete("sink"), lambda b: b.alter_offsets("sink", [])])
def test_a_write_whose_answer_timed_out_goes_to_no_other_worker(silent, answering, write):
    url, seen = answering
    with ConnectBackend([silent, url], timeout=0.5) as backend, pytest.raises(ConnectAnswerLost) as lost:
        write(backend)
    assert seen == []
    assert isinstance(lost.value, AnswerLost) and "not sent to another worker" in str(lost.value)


def test_a_write_moves_on_when_its_connection_was_refused(refusing, answering):
    url, seen = answering
    with ConnectBackend([refusing, url], timeout=2) as backend:
        backend.create("sink", {"a": "b"})
    assert seen == ["POST /connectors"]


def test_a_write_refused_everywhere_is_unreachable_not_lost(refusing):
    with ConnectBackend([refusing], timeout=2) as backend, pytest.raises(ConnectUnreachable, match="refused"):
        backend.pause("sink")


def test_validate_is_a_read_though_a_put(silent, answering):
    url, seen = answering
    with ConnectBackend([silent, url], timeout=0.5) as backend:
        assert backend.validate({"connector.class": "x.FileStreamSinkConnector"}) == []
    assert seen == ["PUT /connector-plugins/FileStreamSinkConnector/config/validate"]
