"""A failed network call in words an operator reads in a monitoring line, never a Python
exception's name: `connection refused`, `timed out`, `HTTP 503`, the library's own message."""

from __future__ import annotations

import re
import socket

# A class name inside a library's message, e.g. requests' "(Caused by NewConnectionError(...))".
CLASS_NAME = re.compile(r"\b[A-Z][a-zA-Z0-9]+(?:Error|Exception)\b")
UNRESOLVED = ("name or service not known", "nodename nor servname", "temporary failure in name resolution")


def describe(exc: BaseException) -> str:
    """One line saying what went wrong with the call that raised `exc`."""
    text = " ".join(str(exc).split())
    lowered = text.lower()
    if isinstance(exc, ConnectionRefusedError) or "connection refused" in lowered:
        return "connection refused"
    if _is_timeout(exc) or "timed out" in lowered:
        return "timed out"
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return f"HTTP {status}"
    if isinstance(exc, socket.gaierror) or any(words in lowered for words in UNRESOLVED):
        return "host name not resolved"
    return CLASS_NAME.sub(lambda m: words(m.group(0)), text) or words(type(exc).__name__)


def words(class_name: str) -> str:
    """`RemoteProtocolError` -> `remote protocol error`, `OSError` -> `os error`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", class_name).lower()


def _is_timeout(exc: BaseException) -> bool:
    """socket's, httpx's, requests' and botocore's timeouts, without importing them."""
    return isinstance(exc, TimeoutError | socket.timeout) or any("Timeout" in c.__name__ for c in type(exc).__mro__)
