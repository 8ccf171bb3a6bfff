"""Tiny local servers that answer with the bad input under test (the input, not a fake service).

`answering(routes)`: an HTTP server; each path answers (status, headers, body) as given.
`four_letter(answers)`: a TCP server answering ZooKeeper four-letter words (`srvr`, `mntr`, ...)
with the given text, then closing, as ZooKeeper does.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Route = tuple[int, Mapping[str, str], bytes]


@contextmanager
def answering(routes: Mapping[str, Route]):
    """An HTTP server on 127.0.0.1; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # http.server's name
            status, headers, body = routes.get(self.path, (404, {}, b"not found"))
            self.send_response(status)
            headers = {"Content-Length": str(len(body)), **headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

        def log_message(self, *_args):
            pass

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as port:
        yield f"http://127.0.0.1:{port}"


@contextmanager
def four_letter(answers: Mapping[str, bytes]):
    """A four-letter-word server on 127.0.0.1; yields 'host:port'. Unknown words: closed at once."""

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            self.request.settimeout(5)
            try:
                word = self.request.recv(4).decode("ascii", "replace")
            except OSError:
                return
            self.request.sendall(answers.get(word, b""))
            self.request.shutdown(socket.SHUT_WR)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with serving(server) as port:
        yield f"127.0.0.1:{port}"


@contextmanager
def serving(server: socketserver.BaseServer):
    """Serve on a background thread for the block; yields the port."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
