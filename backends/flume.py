"""Flume agents: read the HTTP monitoring endpoint (`GET /metrics`) and derive rates.

The endpoint answers JSON keyed `SOURCE.r1`, `CHANNEL.c1`, `SINK.k1`, every value a string
(`"ChannelSize":"5"`). Counters are cumulative since the component started (`StartTime`, ms);
rates come from the difference between two polls. A restarted agent resets its counters:
then everything counted happened after the earlier poll, and the rate runs from StartTime.
"""

from __future__ import annotations

import json
import math
import time

import httpx

from streamctl.backends.failure import describe
from streamctl.backends.http_tls import default_tls
from streamctl.errors import StreamctlError
from streamctl.model.flume import AgentStatus, ChannelStatus, Counters, Poll, SinkStatus, SourceStatus

DEFAULT_TIMEOUT = 5.0  # seconds per metrics request

# Counters whose growth means something failed, per component type (whatever the payload has).
class FlumeError(StreamctlError):
    """The agent's monitoring endpoint did not answer, or not with Flume's JSON."""


class FlumeTimeout(FlumeError):
    """No answer within the timeout (as opposed to a refusal or a wrong answer)."""


def fetch(url: str, timeout: float) -> dict:
    """The raw JSON of one agent's metrics endpoint."""
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False, verify=default_tls()) as client:
            response = client.get(url)
    except httpx.TimeoutException:
        raise FlumeTimeout(f"no answer within {timeout:g} s") from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise FlumeError(_reason(exc)) from None
    if response.status_code != 200:
        raise FlumeError(f"HTTP {response.status_code} from {url}")
    return decode(response.content, url)


def decode(body: bytes, url: str) -> dict:
    """The endpoint's answer as {"SOURCE.r1": {...}, ...}; FlumeError if it is anything else."""
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, not UTF-8/16/32, nested too deeply
        raise FlumeError(f"{url} did not answer JSON") from None
    if not isinstance(payload, dict) or not all(isinstance(v, dict) for v in payload.values()):
        raise FlumeError(f"{url} did not answer Flume's metrics JSON")
    return payload


def _reason(exc: httpx.HTTPError | httpx.InvalidURL) -> str:
    return describe(exc)


def parse(payload: dict, taken_at: float | None = None) -> Poll:
    """A Poll from the endpoint's JSON; unparseable values are kept as attributes."""
    components: dict[str, Counters] = {}
    for key, raw in payload.items():
        kind, _, name = str(key).partition(".")
        kind = str(raw.get("Type") or kind)
        values: dict[str, float] = {}
        attributes: dict[str, str] = {}
        for k, v in raw.items():
            number = _number(v)
            if number is None:
                attributes[str(k)] = str(v)
            else:
                values[str(k)] = number
        components[str(key)] = Counters(kind, name or str(key), values, attributes)
    return Poll(taken_at if taken_at is not None else time.time(), components)


def _number(value) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def poll(url: str, timeout: float) -> Poll:
    taken_at = time.time()
    return parse(fetch(url, timeout), taken_at)


# ---- derived status ------------------------------------------------------------------


def unreachable(name: str, url: str, error: str, timed_out: bool = False) -> AgentStatus:
    return AgentStatus(name, url, up=False, error=error, taken_at=time.time(), timed_out=timed_out)


class _Delta:
    """Counter differences between a baseline poll and the current one, restart-aware."""

    def __init__(self, now: Counters, before: Counters | None, now_at: float, before_at: float | None):
        self.now = now
        restarted = before is not None and (
            before.start_time != now.start_time
            or any(now.values.get(k, v) < v for k, v in before.values.items() if k.endswith(("Count", "Fail"))))
        if before is None or before_at is None:
            self.before, self.seconds = None, None
        elif restarted:
            started = now.start_time or before_at
            self.before, self.seconds = _zero(now), max(now_at - max(before_at, started), 0.0)
        else:
            self.before, self.seconds = before, now_at - before_at

    def change(self, key: str) -> float | None:
        if self.before is None or key not in self.now.values:
            return None
        return self.now.values[key] - self.before.values.get(key, 0.0)

    def rate(self, key: str) -> float | None:
        change = self.change(key)
        if change is None or not self.seconds:
            return None
        return change / self.seconds

    def new_failures(self) -> tuple[int | None, dict[str, int]]:
        if self.before is None:
            return None, {}
        grown = {k: int(self.change(k) or 0) for k in self.now.failures()}
        grown = {k: v for k, v in grown.items() if v > 0}
        return sum(grown.values()), grown


def _zero(counters: Counters) -> Counters:
    return Counters(counters.kind, counters.name, dict.fromkeys(counters.values, 0.0))


def status(name: str, url: str, current: Poll, baseline: Poll | None,
           last_active: dict[str, float] | None = None, bindings: dict[str, str] | None = None) -> AgentStatus:
    """Sources, channels and sinks of one poll, with rates against `baseline`.

    last_active: source name -> when its EventReceivedCount last moved (kept by the history).
    bindings: sink name -> channel name, from the agent's config file.
    """
    last_active = last_active or {}
    bindings = bindings or {}

    def delta(c: Counters) -> _Delta:
        before = baseline.components.get(f"{c.kind}.{c.name}") if baseline else None
        return _Delta(c, before, current.taken_at, baseline.taken_at if baseline else None)

    sources = []
    for c in current.of_kind("SOURCE"):
        d = delta(c)
        new, _ = d.new_failures()
        since = last_active.get(c.name)
        sources.append(SourceStatus(
            c.name, int(c.get("EventReceivedCount") or 0), int(c.get("EventAcceptedCount") or 0),
            d.rate("EventAcceptedCount"), c.failures(), new,
            None if since is None else max(current.taken_at - since, 0.0)))
    channels = []
    for c in current.of_kind("CHANNEL"):
        d = delta(c)
        new, _ = d.new_failures()
        size = int(c.get("ChannelSize") or 0)
        capacity = c.get("ChannelCapacity")
        fill = c.get("ChannelFillPercentage")
        if fill is None and capacity:
            fill = 100.0 * size / capacity
        change = d.change("ChannelSize")
        channels.append(ChannelStatus(
            c.name, size, int(capacity) if capacity is not None else None, fill,
            None if change is None else int(change), d.rate("EventPutSuccessCount"),
            d.rate("EventTakeSuccessCount"), c.failures(), new,
            healthy=not c.get("Unhealthy") and c.attributes.get("Open", "true") != "false"))
    sinks = []
    for c in current.of_kind("SINK"):
        d = delta(c)
        new, grown = d.new_failures()
        drained_since = d.change("EventDrainSuccessCount")
        sinks.append(SinkStatus(
            c.name, bindings.get(c.name), int(c.get("EventDrainSuccessCount") or 0),
            d.rate("EventDrainSuccessCount"), None if drained_since is None else int(drained_since),
            c.failures(), new, grown))
    interval = current.taken_at - baseline.taken_at if baseline else None
    return AgentStatus(name, url, True, None, current.taken_at, interval,
                       tuple(sources), tuple(channels), tuple(sinks))


def status_dict(s: AgentStatus) -> dict:
    """JSON-ready form (commands' `-o json`)."""
    from dataclasses import asdict

    return asdict(s)
