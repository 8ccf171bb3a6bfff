"""Spark standalone Master adapter: workers, applications and a driver's UI address (no UI).

The Master's web UI serves its state as JSON at `/json/` (workers with cores and memory used,
active and completed applications). That JSON does not carry a driver's UI address: the
application page `/app/?appId=<id>` links it as "Application Detail UI", so that link is read
from the HTML (the driver may run on another host than streamctl).
"""

from __future__ import annotations

from html.parser import HTMLParser

import httpx

from streamctl.backends.failure import describe
from streamctl.backends.http_tls import default_tls
from streamctl.errors import StreamctlError
from streamctl.model.spark_cluster import SparkApp, SparkCluster, SparkWorker


class MasterUnreachable(StreamctlError):
    """No configured Master answered."""


def read_cluster(master_uis: list[str], timeout: float = 5.0) -> SparkCluster:
    """The leading Master's view (status ALIVE); with HA, a standby answers only if none leads."""
    answers: list[SparkCluster] = []
    errors: list[str] = []
    for ui in master_uis:
        try:
            cluster = parse_master_json(ui, _get(f"{ui.rstrip('/')}/json/", timeout).json())
        except (MasterUnreachable, ValueError) as exc:
            errors.append(str(exc) if isinstance(exc, MasterUnreachable) else f"{ui}: not JSON")
            continue
        if cluster.status == "ALIVE":
            return cluster
        answers.append(cluster)
    if answers:
        return answers[0]
    return SparkCluster(master_ui=master_uis[0] if master_uis else "", error="; ".join(errors) or "no Master configured")


def parse_master_json(master_ui: str, data: object) -> SparkCluster:
    if not isinstance(data, dict):
        raise ValueError("not a Master's /json/ answer")
    workers = tuple(_worker(w) for w in data.get("workers") or () if isinstance(w, dict))
    apps = tuple(_app(a, active=True) for a in data.get("activeapps") or () if isinstance(a, dict))
    apps += tuple(_app(a, active=False) for a in data.get("completedapps") or () if isinstance(a, dict))
    return SparkCluster(master_ui=master_ui, url=_str(data.get("url")), status=_str(data.get("status")),
                        workers=workers, apps=apps)


def app_ui_url(master_ui: str, app_id: str, timeout: float = 5.0) -> str | None:
    """The driver's UI address as the Master's application page links it (None when not linked)."""
    page = _get(f"{master_ui.rstrip('/')}/app/", timeout, params={"appId": app_id}).text
    finder = _DetailLink()
    finder.feed(page)
    return finder.href


def _get(url: str, timeout: float, params: dict | None = None) -> httpx.Response:
    try:
        response = httpx.get(url, params=params, timeout=timeout, follow_redirects=True, verify=default_tls())
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise MasterUnreachable(f"{url}: {describe(exc)}") from None
    return response


class _DetailLink(HTMLParser):
    """Finds <a href="...">Application Detail UI</a>."""

    def __init__(self) -> None:
        super().__init__()
        self.href: str | None = None
        self._open: str | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "a":
            self._open = dict(attrs).get("href")

    def handle_data(self, data) -> None:
        if self._open and self.href is None and data.strip() == "Application Detail UI":
            self.href = self._open

    def handle_endtag(self, tag) -> None:
        if tag == "a":
            self._open = None


def _worker(w: dict) -> SparkWorker:
    return SparkWorker(
        id=str(w.get("id")), host=str(w.get("host")), state=str(w.get("state") or "UNKNOWN"),
        cores=_int(w.get("cores")) or 0, cores_used=_int(w.get("coresused")) or 0,
        memory_mb=_int(w.get("memory")) or 0, memory_used_mb=_int(w.get("memoryused")) or 0,
        ui_url=_str(w.get("webuiaddress")), last_heartbeat_ms=_int(w.get("lastheartbeat")),
    )


def _app(a: dict, active: bool) -> SparkApp:
    return SparkApp(
        id=str(a.get("id")), name=str(a.get("name")), state=str(a.get("state") or "UNKNOWN"),
        cores=_int(a.get("cores")),
        memory_per_executor_mb=_int(a.get("memoryperexecutor", a.get("memoryperslave"))),
        user=_str(a.get("user")), started_ms=_int(a.get("starttime")), duration_ms=_int(a.get("duration")),
        active=active,
    )


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value) -> str | None:
    return value if isinstance(value, str) else None
