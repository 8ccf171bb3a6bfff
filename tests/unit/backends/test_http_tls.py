"""The TLS context shared by the HTTP reads (ZooKeeper AdminServer, Flume, Spark, Connect)."""

from __future__ import annotations

import ssl
import threading

import httpx

from streamctl.backends import http_tls


def test_contexts_asking_at_the_same_moment_build_one_tls_context(monkeypatch):
    built = []

    def counted(*args, **kwargs):
        built.append(threading.current_thread().name)
        return ssl.create_default_context()

    monkeypatch.setattr(http_tls, "_context", None)
    monkeypatch.setattr(httpx, "create_ssl_context", counted)
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
    assert len(built) == 1
    assert len(got) == 8 and all(context is got[0] for context in got)


def test_the_shared_context_verifies_as_httpx_does_by_default(monkeypatch):
    monkeypatch.setattr(http_tls, "_context", None)
    context = http_tls.default_tls()
    default = httpx.create_ssl_context()
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert context.cert_store_stats() == default.cert_store_stats()
