"""One TLS context per process for HTTP reads that trust what httpx trusts by default.

httpx builds an SSLContext for every Client, for http:// URLs too, and loading the CA bundle
costs 25-50 ms of CPU each time: `check --all-contexts` over six contexts built 18 of them for
the ZooKeeper AdminServer reads alone (0.28 s each with the cores busy). Built once, under a
lock (contexts start at the same moment), and shared: a configured SSLContext is thread-safe.
"""

from __future__ import annotations

import ssl
import threading

_lock = threading.Lock()
_context: ssl.SSLContext | None = None


def default_tls() -> ssl.SSLContext:
    """httpx's default verification (its CA bundle, SSL_CERT_FILE/SSL_CERT_DIR honoured), built once."""
    global _context  # noqa: PLW0603 - one context per process
    with _lock:
        if _context is None:
            import httpx

            _context = httpx.create_ssl_context()
        return _context
