"""ZooKeeper server health: four-letter words and the AdminServer, per server of the connect string.

What each server tells depends on its configuration: `srvr` is whitelisted by default since
3.5.3; `mntr` and `ruok` answer "... is not in the whitelist" unless allowed (that answer means
*not available*, never healthy nor failed); the AdminServer (`<admin_url>/monitor`, `/srvr`)
answers JSON when enabled. Every probe runs at once, each bounded by the timeout, and the
answers are merged: the AdminServer's numbers where present, else mntr's, else srvr's.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

from streamctl.backends.failure import describe
from streamctl.backends.http_tls import default_tls
from streamctl.errors import UsageError

NOT_IN_WHITELIST = "is not in the whitelist"
NOT_SERVING = "This ZooKeeper instance is not currently serving requests"
SERVING_MODES = ("leader", "follower", "standalone", "observer")
MAX_ANSWER = 1 << 20

# Probe outcomes
OK = "ok"
NOT_AVAILABLE = "not available"  # not whitelisted / AdminServer not configured or disabled
UNREACHABLE = "unreachable"
ERROR = "error"


@dataclass(frozen=True)
class Probe:
    """One command's outcome on one server."""

    command: str  # srvr | mntr | ruok | admin/monitor | admin/srvr | admin/ruok
    status: str  # ok | not available | unreachable | error
    detail: str = ""


@dataclass(frozen=True)
class ServerHealth:
    """What one server said about itself; None where no available command tells."""

    server: str  # host:port as in the connect string
    reachable: bool
    serving: bool  # answers client requests (part of a quorum, or standalone)
    mode: str | None = None  # leader | follower | standalone | observer | read-only | not serving
    version: str | None = None
    latency_min_ms: float | None = None
    latency_avg_ms: float | None = None
    latency_max_ms: float | None = None
    outstanding: int | None = None
    znode_count: int | None = None
    watch_count: int | None = None
    ephemerals: int | None = None
    connections: int | None = None
    zxid: int | None = None
    ruok: bool | None = None  # None: ruok not available
    followers: int | None = None  # leaders only (mntr: synced followers)
    probes: tuple[Probe, ...] = ()
    error: str | None = None  # why it is unreachable

    def probe(self, command: str) -> Probe | None:
        return next((p for p in self.probes if p.command == command), None)


# ---- connect strings -----------------------------------------------------------------------

def parse_hosts(hosts: str, default_port: int = 2181) -> tuple[list[tuple[str, int]], str | None]:
    """'zk1:2181,zk2:2181/kafka' -> ([('zk1', 2181), ('zk2', 2181)], '/kafka')."""
    servers_part, slash, chroot = hosts.strip().partition("/")
    servers = []
    for item in servers_part.split(","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("["):  # [ipv6]:port
            host, _, rest = item[1:].partition("]")
            port_text = rest.lstrip(":")
        else:
            host, _, port_text = item.rpartition(":") if ":" in item else (item, "", "")
        try:
            port = int(port_text) if port_text else default_port
        except ValueError:
            raise UsageError(f"zookeeper.hosts: bad port in {item!r}") from None
        servers.append((host, port))
    if not servers:
        raise UsageError("zookeeper.hosts names no server")
    return servers, (f"/{chroot}".rstrip("/") or None) if slash else None


def admin_urls(admin_url: str | None, servers: list[tuple[str, int]]) -> dict[str, str]:
    """AdminServer base URL per server ('host:port' -> URL).

    A URL with '{host}' is expanded for every server. A literal URL belongs to the one server
    of a one-server connect string, or to the one server whose host it names.
    """
    if not admin_url:
        return {}
    base = admin_url.rstrip("/")
    names = {f"{h}:{p}": h for h, p in servers}
    if "{host}" in base:
        return {name: base.replace("{host}", host) for name, host in names.items()}
    if len(names) == 1:
        return {next(iter(names)): base}
    url_host = urlsplit(base).hostname
    owners = [name for name, host in names.items() if host == url_host]
    return {owners[0]: base} if len(owners) == 1 else {}


# ---- parsers (pure) -----------------------------------------------------------------------

def not_whitelisted(answer: str) -> bool:
    return NOT_IN_WHITELIST in answer


def parse_srvr(answer: str) -> dict:
    """srvr's 'Key: value' lines -> fields; {'serving': False} for a server outside a quorum."""
    if NOT_SERVING in answer:
        return {"serving": False}
    lines = {}
    for line in answer.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            lines[key.strip()] = value.strip()
    out: dict = {"serving": lines.get("Mode") in SERVING_MODES}
    if "Zookeeper version" in lines:
        out["version"] = lines["Zookeeper version"].split(",")[0].split("-")[0]
    # A field that does not parse is left out (None), like one the server did not send.
    latencies = [_number(x) for x in lines.get("Latency min/avg/max", "").split("/")]
    if len(latencies) == 3 and all(isinstance(x, int | float) for x in latencies):
        low, avg, high = (float(x) for x in latencies)
        out |= {"latency_min_ms": low, "latency_avg_ms": avg, "latency_max_ms": high}
    for key, name in (("Outstanding", "outstanding"), ("Node count", "znode_count"),
                      ("Connections", "connections")):
        if isinstance(_number(lines.get(key, "")), int):
            out[name] = _number(lines[key])
    try:
        out["zxid"] = int(lines["Zxid"], 16)
    except (KeyError, ValueError):
        pass
    if "Mode" in lines:
        out["mode"] = lines["Mode"]
    return out


def parse_mntr(answer: str) -> dict[str, int | float | str]:
    """mntr's 'zk_key<TAB>value' lines -> {key: number or text}."""
    values: dict[str, int | float | str] = {}
    for line in answer.splitlines():
        key, sep, value = line.partition("\t")
        if sep:
            values[key.strip()] = _number(value.strip())
    return values


def fields_from_mntr(values: dict) -> dict:
    """ServerHealth fields from mntr's keys (also the AdminServer's /monitor, keys without zk_)."""
    get = lambda key: values.get(f"zk_{key}", values.get(key))  # noqa: E731
    out: dict = {}
    state = get("server_state")
    if isinstance(state, str):
        out["mode"] = state
        out["serving"] = state in SERVING_MODES
    for key, name in (("min_latency", "latency_min_ms"), ("avg_latency", "latency_avg_ms"),
                      ("max_latency", "latency_max_ms")):
        if isinstance(value := get(key), int | float):
            out[name] = float(value)
    for key, name in (("outstanding_requests", "outstanding"), ("znode_count", "znode_count"),
                      ("watch_count", "watch_count"), ("ephemerals_count", "ephemerals"),
                      ("num_alive_connections", "connections"), ("synced_followers", "followers")):
        if isinstance(get(key), int):
            out[name] = get(key)
    version = get("version")
    if isinstance(version, str):
        out["version"] = version.split(",")[0].split("-")[0]
    return out


def fields_from_admin_srvr(doc: dict) -> dict:
    """The AdminServer's /srvr (server_stats) JSON -> fields (zxid, mode, latencies)."""
    stats = doc.get("server_stats")
    stats = stats if isinstance(stats, dict) else {}
    out = fields_from_mntr(stats)
    if isinstance(stats.get("last_processed_zxid"), int):
        out["zxid"] = stats["last_processed_zxid"]
    if isinstance(stats.get("num_alive_client_connections"), int):
        out["connections"] = stats["num_alive_client_connections"]
    if isinstance(doc.get("node_count"), int):
        out["znode_count"] = doc["node_count"]
    if isinstance(doc.get("version"), str):
        out["version"] = doc["version"].split(",")[0].split("-")[0]
    return out


def _number(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# ---- probes (I/O) --------------------------------------------------------------------------

def four_letter(host: str, port: int, command: str, timeout: float) -> str:
    """Send a four-letter word and read the answer until the server closes (OSError on failure)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(command.encode())
        chunks, size = [], 0
        while size < MAX_ANSWER:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _admin_get(url: str, timeout: float) -> dict:
    import httpx

    response = httpx.get(url, timeout=timeout, follow_redirects=False, verify=default_tls())
    response.raise_for_status()
    return response.json()


def probe_server(host: str, port: int, timeout: float, admin_url: str | None = None) -> ServerHealth:
    """Every available view of one server, queried concurrently and merged."""
    name = f"{host}:{port}"
    jobs: dict[str, Callable[[], object]] = {"srvr": lambda: four_letter(host, port, "srvr", timeout),
            "mntr": lambda: four_letter(host, port, "mntr", timeout),
            "ruok": lambda: four_letter(host, port, "ruok", timeout)}
    if admin_url:
        jobs["admin/monitor"] = lambda: _admin_get(f"{admin_url}/monitor", timeout)
        jobs["admin/srvr"] = lambda: _admin_get(f"{admin_url}/srvr", timeout)
        jobs["admin/ruok"] = lambda: _admin_get(f"{admin_url}/ruok", timeout)
    with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix=f"zk-probe-{name}") as pool:
        futures = {command: pool.submit(job) for command, job in jobs.items()}
        answers: dict[str, object] = {}
        for command, future in futures.items():
            try:
                answers[command] = future.result()
            except Exception as exc:  # noqa: BLE001 - every failure is an outcome to report
                answers[command] = exc
    return merge_answers(name, answers, admin_configured=bool(admin_url))


def merge_answers(server: str, answers: dict, admin_configured: bool = False) -> ServerHealth:
    """One server's answers (text, JSON dict, or the exception raised) -> ServerHealth. Pure."""
    probes: list[Probe] = []
    fields: dict = {}
    reachable = False
    errors = []
    for command in ("srvr", "mntr", "ruok"):
        answer = answers.get(command)
        if isinstance(answer, str):
            reachable = True
            if not_whitelisted(answer):
                probes.append(Probe(command, NOT_AVAILABLE, answer.strip()))
            elif command == "srvr":
                fields |= parse_srvr(answer)
                probes.append(Probe(command, OK))
            elif command == "mntr":
                if NOT_SERVING in answer:
                    fields["serving"] = False
                fields |= fields_from_mntr(parse_mntr(answer))
                probes.append(Probe(command, OK))
            else:
                fields["ruok"] = answer.strip() == "imok"
                probes.append(Probe(command, OK, answer.strip()))
        elif isinstance(answer, BaseException):
            errors.append(_describe(answer))
            probes.append(Probe(command, UNREACHABLE, _describe(answer)))
    for command, parse in (("admin/srvr", fields_from_admin_srvr), ("admin/monitor", fields_from_mntr),
                           ("admin/ruok", lambda doc: {"ruok": True})):
        answer = answers.get(command)
        if isinstance(answer, dict):
            reachable = True
            if answer.get("error") and NOT_SERVING in str(answer["error"]):
                fields["serving"] = False
                probes.append(Probe(command, OK, NOT_SERVING))
            elif answer.get("error"):
                probes.append(Probe(command, ERROR, str(answer["error"])))
            else:
                fields |= {k: v for k, v in parse(answer).items() if v is not None}
                probes.append(Probe(command, OK))
        elif isinstance(answer, BaseException) and _admin_without_server(answer):
            fields["serving"] = False
            probes.append(Probe(command, OK, NOT_SERVING))
        elif isinstance(answer, BaseException):
            probes.append(Probe(command, NOT_AVAILABLE if _admin_missing(answer) else ERROR, _describe(answer)))
        elif command in answers or admin_configured:
            probes.append(Probe(command, NOT_AVAILABLE, "no answer"))
    if "serving" not in fields:
        fields["serving"] = False
    if fields.get("serving") is False and "mode" not in fields and reachable:
        fields["mode"] = "not serving" if _said_not_serving(answers) else None
    return ServerHealth(server=server, reachable=reachable, probes=tuple(probes),
                        error=None if reachable else (errors[0] if errors else "no answer"), **fields)


def _said_not_serving(answers: dict) -> bool:
    return any(NOT_SERVING in (a if isinstance(a, str) else str(a.get("error")) if isinstance(a, dict) else "")
               for a in answers.values())


def _admin_missing(exc: BaseException) -> bool:
    """A 404 or a refused port: the AdminServer (or that command) is not there."""
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code == 404
    return isinstance(exc, httpx.ConnectError)


def _admin_without_server(exc: BaseException) -> bool:
    """The AdminServer of a server outside a quorum fails with HTTP 500: its zkServer is null."""
    import httpx

    return (isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code == 500
            and "zkServer" in exc.response.text and "is null" in exc.response.text)


def _describe(exc: BaseException) -> str:
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out"
    return describe(exc)


def probe_ensemble(hosts: str, timeout: float, admin_url: str | None = None) -> list[ServerHealth]:
    """Every server of the connect string, probed concurrently."""
    servers, _ = parse_hosts(hosts)
    urls = admin_urls(admin_url, servers)
    if urls:  # httpx imported and its TLS context made here, once: every server's threads racing
        try:  # for them at once took up to 1 s (six contexts: 18 first requests)
            default_tls()
        except (ssl.SSLError, OSError):
            pass  # a broken CA store: each AdminServer read fails with it, reported per server
    with ThreadPoolExecutor(max_workers=len(servers), thread_name_prefix="zk-ensemble") as pool:
        futures = [pool.submit(probe_server, h, p, timeout, urls.get(f"{h}:{p}")) for h, p in servers]
        return [f.result() for f in futures]
