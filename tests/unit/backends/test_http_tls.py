"""The TLS context shared by the HTTP reads (ZooKeeper AdminServer, Flume, Spark, Connect)."""

from __future__ import annotations

import socket
import ssl
import threading

import httpx
import pytest

from streamctl.backends import http_tls


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """The threads that built the process's context, from none built."""
    built: list[str] = []

    def counted(*args, **kwargs) -> ssl.SSLContext:
        built.append(threading.current_thread().name)
        return ssl.create_default_context()

    monkeypatch.setattr(http_tls, "_context", None)
    monkeypatch.setattr(httpx, "create_ssl_context", counted)
    return built


def test_contexts_asking_at_the_same_moment_build_one_tls_context(builds):
    start = threading.Barrier(8)
    got: list[ssl.SSLContext] = []

    def ask() -> None:
        start.wait()
        got.append(http_tls.default_tls())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(builds) == 1
    assert len(got) == 8 and all(context is got[0] for context in got)


def test_the_shared_context_verifies_as_httpx_does_by_default(monkeypatch):
    monkeypatch.setattr(http_tls, "_context", None)
    context = http_tls.default_tls()
    default = httpx.create_ssl_context()
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert context.cert_store_stats() == default.cert_store_stats()


def test_an_ensemble_probe_makes_the_context_once_before_its_servers_threads_ask(builds):
    from streamctl.backends.zookeeper_ensemble import probe_ensemble

    ports = []
    for _ in range(3):  # refused ports: every probe fails fast, each AdminServer read included
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
    servers = probe_ensemble(",".join(f"127.0.0.1:{port}" for port in ports), 2.0, "http://{host}:9/commands")
    assert [s.reachable for s in servers] == [False, False, False]
    assert builds == [threading.current_thread().name]
