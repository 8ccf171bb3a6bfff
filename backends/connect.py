"""Kafka Connect adapter on a worker's REST API (httpx): plain dataclasses out, every call bounded.

Any worker of a Connect cluster answers for the whole cluster (it forwards writes to the
leader), so the configured URLs are tried in order and the first that answers is used. A read
moves on to the next worker after any transport failure; a write (POST, PUT, PATCH, DELETE)
only when its connection was never made (refused, connect timeout): once a write was sent, a
lost answer (read timeout, dropped connection) is a ConnectAnswerLost, never sent to another
worker (it may have been applied: the plan core reads it back). Every
connector, its status and its config come from ONE call, `GET /connectors?expand=status&
expand=info`, whatever the number of connectors.
"""

from __future__ import annotations

import os
import ssl
import time
from typing import Any, NamedTuple, Self
from urllib.parse import quote

import httpx

from streamctl.backends.failure import describe
from streamctl.backends.http_tls import default_tls
from streamctl.errors import AnswerLost, StreamctlError
from streamctl.model.connect import ConnectCluster, Connector, ConnectPlugin, ConnectTask

REBALANCE_PAUSE = 0.5  # seconds between asks while the workers rebalance


class ConnectError(StreamctlError):
    """The Connect REST API could not be reached or refused a request."""

    def __init__(self, message: str, status: int | None = None, detail: str = ""):
        super().__init__(message)
        self.status = status
        self.detail = detail  # the worker's own message, first line


class ConnectUnreachable(ConnectError):
    """No configured worker answered."""


class ConnectAnswerLost(ConnectError, AnswerLost):
    """A write reached a worker and its answer was lost: it may have been applied."""


NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)  # the request never left


class ConnectTls(NamedTuple):
    """HTTPS to the workers: the CA that signed their certificates, and a client certificate
    for workers that require one (PEM paths; the key may be in the certificate's file)."""

    ca: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    client_key_password: str | None = None


class ConnectBackend:
    def __init__(self, urls: list[str], timeout: float = 10.0, auth: tuple[str, str] | None = None,
                 tls: ConnectTls | None = None):
        if not urls:
            raise ConnectError("no Connect worker URL configured")
        self.urls = [u.rstrip("/") for u in urls]
        self.timeout = timeout
        self.client_cert_set = bool(tls and tls.client_cert)
        self._client = httpx.Client(timeout=httpx.Timeout(timeout), auth=auth,
                                    headers={"Accept": "application/json"},
                                    verify=tls_context(tls) if tls else default_tls())

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- reads ---------------------------------------------------------------------------

    def cluster(self) -> ConnectCluster:
        """The worker's identity and every connector with status and config: two calls."""
        url, info = self._request("GET", "/")
        listing = self._request("GET", "/connectors", params=[("expand", "status"), ("expand", "info")],
                                base=url)[1]
        if not isinstance(info, dict) or not isinstance(listing, dict):
            raise ConnectError(f"Connect worker {url}: not a Kafka Connect answer "
                               f"(GET / and GET /connectors gave {type(info).__name__}, {type(listing).__name__})")
        try:
            connectors = tuple(_connector(str(name), entry) for name, entry in sorted(listing.items()))
        except (AttributeError, TypeError, ValueError) as exc:
            raise ConnectError(f"Connect worker {url}: a connector's status is not in Kafka Connect's shape "
                               f"({exc})") from None
        return ConnectCluster(url=url, version=str(info.get("version", "")), commit=str(info.get("commit", "")),
                              kafka_cluster_id=str(info.get("kafka_cluster_id", "")), connectors=connectors)

    def connector(self, name: str) -> Connector:
        """One connector's status and config (two calls; 404 is a clear error)."""
        status = self._get(f"/connectors/{_q(name)}/status")
        info = self._get(f"/connectors/{_q(name)}")
        return _connector(name, {"status": status, "info": info})

    def plugins(self) -> list[ConnectPlugin]:
        answer = self._get("/connector-plugins")
        return [ConnectPlugin(p.get("class", ""), p.get("type", ""), p.get("version", "")) for p in answer]

    def topics(self, name: str) -> list[str]:
        """Topics the connector has used since it was created or its topics were reset (KIP-558)."""
        return list(self._get(f"/connectors/{_q(name)}/topics").get(name, {}).get("topics", []))

    def offsets(self, name: str) -> list[dict[str, Any]]:
        """The connector's offsets (KIP-875): [{"partition": {...}, "offset": {...}}, ...]."""
        return list(self._get(f"/connectors/{_q(name)}/offsets").get("offsets", []))

    def validate(self, config: dict[str, str]) -> list[str]:
        """The worker's objections to a config ("key: message"), none when it is valid."""
        plugin = config.get("connector.class", "")
        if not plugin:
            return ["connector.class: missing"]
        # The short class name is the path segment Connect accepts for every plugin.
        answer = self._request("PUT", f"/connector-plugins/{_q(plugin.rsplit('.', 1)[-1])}/config/validate",
                               json=config, read=True)[1]  # a PUT that changes nothing
        problems = []
        for entry in answer.get("configs", []):
            value = entry.get("value", {})
            for message in value.get("errors", []):
                problems.append(f"{value.get('name', '?')}: {message}")
        return problems

    # ---- lifecycle -----------------------------------------------------------------------

    def create(self, name: str, config: dict[str, str]) -> None:
        self._request("POST", "/connectors", json={"name": name, "config": config})

    def update(self, name: str, config: dict[str, str]) -> None:
        self._request("PUT", f"/connectors/{_q(name)}/config", json=config)

    def pause(self, name: str) -> None:
        self._request("PUT", f"/connectors/{_q(name)}/pause")

    def resume(self, name: str) -> None:
        self._request("PUT", f"/connectors/{_q(name)}/resume")

    def stop(self, name: str) -> None:
        self._request("PUT", f"/connectors/{_q(name)}/stop")

    def restart(self, name: str, include_tasks: bool = False, only_failed: bool = False) -> None:
        params = {"includeTasks": str(include_tasks).lower(), "onlyFailed": str(only_failed).lower()}
        self._request("POST", f"/connectors/{_q(name)}/restart", params=params)

    def delete(self, name: str) -> None:
        self._request("DELETE", f"/connectors/{_q(name)}")

    def reset_offsets(self, name: str) -> None:
        """Every offset of a STOPPED connector removed (a sink's group offsets too)."""
        self._request("DELETE", f"/connectors/{_q(name)}/offsets")

    def alter_offsets(self, name: str, offsets: list[dict[str, Any]]) -> None:
        """Offsets of a STOPPED connector set to the given ones (what an undo file holds)."""
        self._request("PATCH", f"/connectors/{_q(name)}/offsets", json={"offsets": offsets})

    # ---- transport -----------------------------------------------------------------------

    def _get(self, path: str) -> Any:
        return self._request("GET", path)[1]

    def _answer(self, method: str, url: str, **kwargs) -> httpx.Response:
        """One request, asked again while the workers rebalance (Connect answers 409, or 500
        "a rebalance is expected", and tells clients to retry), for at most one timeout."""
        give_up = time.monotonic() + self.timeout
        while True:
            response = self._client.request(method, url, **kwargs)
            if not _rebalancing(response) or time.monotonic() + REBALANCE_PAUSE > give_up:
                return response
            time.sleep(REBALANCE_PAUSE)

    def _request(self, method: str, path: str, *, base: str | None = None, read: bool | None = None,
                 **kwargs) -> tuple[str, Any]:
        """(the worker URL that answered, the decoded body). Unreachable workers are skipped (a
        write's only while it was never sent; `read`: it changes nothing, default for GET); an
        HTTP error from a worker that answered is final (another worker would say the same)."""
        read = method == "GET" if read is None else read
        failures = []
        for url in [base] if base else self.urls:
            try:
                response = self._answer(method, url + path, **kwargs)
            except httpx.HTTPError as exc:
                why = (f"no answer within {self.timeout:g} s" if isinstance(exc, httpx.TimeoutException)
                       else _transport_reason(exc, self.client_cert_set))
                if not read and not isinstance(exc, NOT_SENT):
                    raise ConnectAnswerLost(f"Connect worker {url}: {method} {path}: {why} after the request "
                                            "was sent: not sent to another worker") from None
                failures.append(f"{url}: {why}")
                continue
            if response.status_code >= 400:
                raise ConnectError(f"Connect worker {url}: {method} {path}: {_http_reason(response)}",
                                   response.status_code, _worker_message(response))
            if response.status_code == 204 or not response.content:
                return url, None
            try:
                return url, response.json()
            except ValueError:
                raise ConnectError(f"Connect worker {url}: {method} {path}: answered {response.status_code} "
                                   "with a body that is not JSON") from None
        raise ConnectUnreachable(f"Connect unreachable: {'; '.join(failures)}")


def tls_context(tls: ConnectTls) -> ssl.SSLContext:
    """The TLS context of `tls`; a file OpenSSL cannot use is a ConnectError naming its setting."""
    try:
        context = ssl.create_default_context()
    except ssl.SSLError as exc:  # a broken system CA store
        raise ConnectError(f"connect: the system's CA certificates: {_ssl_reason(exc)}") from None
    # Each load runs only when its setting is set (below): the `or ""` is for the type checker.
    for setting, load in (("ca", lambda: context.load_verify_locations(
                               **({"capath": tls.ca} if os.path.isdir(tls.ca or "") else {"cafile": tls.ca}))),
                          ("client_cert", lambda: context.load_cert_chain(
                               tls.client_cert or "", tls.client_key, tls.client_key_password))):
        path = getattr(tls, setting)
        if path is None:
            continue
        try:
            load()
        except (ssl.SSLError, OSError) as exc:
            if setting == "client_cert" and tls.client_key and "KEY" in str(exc).upper():
                setting, path = "client_key", tls.client_key
            raise ConnectError(f"connect.{setting}: {path}: {_ssl_reason(exc)}") from None
    return context


def _ssl_reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLError):
        return (exc.reason or str(exc)).lower().replace("_", " ")
    return getattr(exc, "strerror", None) or str(exc)


def _q(segment: str) -> str:
    return quote(segment, safe="")


def _connector(name: str, entry: dict) -> Connector:
    status = entry.get("status") or {}
    info = entry.get("info") or {}
    own = status.get("connector") or {}
    tasks = tuple(ConnectTask(id=int(t.get("id", 0)), state=t.get("state", "UNKNOWN"),
                              worker_id=t.get("worker_id", ""), trace=t.get("trace"))
                  for t in sorted(status.get("tasks") or [], key=lambda t: t.get("id", 0)))
    return Connector(name=name, type=status.get("type") or info.get("type") or "unknown",
                     state=own.get("state", "UNKNOWN"), worker_id=own.get("worker_id", ""),
                     config=dict(info.get("config") or {}), tasks=tasks, trace=own.get("trace"))


def _worker_message(response: httpx.Response) -> str:
    """Connect's error body is {"error_code": 409, "message": "..."}: the message's first line."""
    try:
        body = response.json()
        message = body.get("message", "") if isinstance(body, dict) else ""
    except ValueError:
        message = response.text
    lines = (message or response.reason_phrase or "").strip().splitlines()
    return lines[0] if lines else ""


def _rebalancing(response: httpx.Response) -> bool:
    if response.status_code not in (409, 500):
        return False
    message = _worker_message(response).lower()
    return "rebalance" in message or "momentarily" in message


def _http_reason(response: httpx.Response) -> str:
    first = _worker_message(response)
    if _rebalancing(response):
        return f"{response.status_code} {first} (the workers are rebalancing: try again in a few seconds)"
    return f"{response.status_code} {first}".strip()


def _transport_reason(exc: httpx.HTTPError, client_cert_set: bool) -> str:
    if hint := _tls_hint(str(exc), client_cert_set):
        return hint
    if isinstance(exc, httpx.ConnectError):
        return "connection refused" if "refused" in str(exc).lower() else f"cannot connect ({exc})"
    return describe(exc)


def _tls_hint(message: str, client_cert_set: bool) -> str | None:
    """An OpenSSL failure of the HTTPS handshake as a line naming the setting to look at. A worker
    (Java) that requires a client certificate and got none alerts "bad certificate", as it does for
    one it does not trust (OpenSSL servers send "certificate required"): which it is, is known here."""
    text = message.lower()
    if "certificate verify failed" in text:
        if "mismatch" in text:
            return "TLS: the worker's certificate does not name the host in connect.urls (certificate verify failed)"
        return "TLS: the worker's certificate is not signed by the CA in connect.ca (certificate verify failed)"
    if "alert certificate required" in text or ("alert bad certificate" in text and not client_cert_set):
        return "TLS: connect.client_cert not set: the worker requires a client certificate"
    if "alert" in text and ("certificate" in text or "unknown ca" in text):
        return "TLS: the worker refused the client certificate in connect.client_cert (not signed by a CA it trusts)"
    return None
