"""Recent polls of one Flume agent, kept between runs so one cron `check` can compute rates.

A small JSON file per (context, agent) under the state dir, rewritten atomically. It keeps
the polls of the last 15 minutes (at most 30) and, per source, when its EventReceivedCount
last moved. Rates are taken against the newest poll at least MIN_BASELINE_AGE old, so a
dashboard polling every few seconds still measures over a window longer than Flume's sink
back-off (up to 5 s while a channel is empty).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.backends.flume import FlumeError, FlumeTimeout, poll, status, unreachable
from streamctl.model.flume import AgentStatus, Counters, Poll

KEEP_SECONDS = 900.0
KEEP_POLLS = 30
MIN_BASELINE_AGE = 10.0
VERSION = 1


def default_path(context: str, agent: str) -> Path:
    safe = lambda text: re.sub(r"[^A-Za-z0-9_.-]", "_", text) or "_"  # noqa: E731
    return paths.state_dir() / "flume" / f"{safe(context)}--{safe(agent)}.json"


class History:
    def __init__(self, path: Path, url: str):
        self.path = Path(path)
        self.url = url
        self.polls: list[Poll] = []
        self.sources: dict[str, dict] = {}  # name -> {"count", "start", "since"}
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text())
            if data.get("version") != VERSION or data.get("url") != self.url:
                return  # another endpoint now: its history says nothing about this one
            self.polls = [_poll_from(p) for p in data["polls"]]
            self.sources = {str(k): dict(v) for k, v in data.get("sources", {}).items()}
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            self.polls, self.sources = [], {}  # a damaged cache starts over

    def baseline(self, now: float) -> Poll | None:
        """The poll to measure rates against: the newest one old enough, else the oldest."""
        older = [p for p in self.polls if p.taken_at <= now - MIN_BASELINE_AGE]
        if older:
            return older[-1]
        earlier = [p for p in self.polls if p.taken_at < now]
        return earlier[0] if earlier else None

    def add(self, poll: Poll) -> None:
        for source in poll.of_kind("SOURCE"):
            self._track_source(source, poll.taken_at)
        self.polls = [p for p in self.polls if p.taken_at > poll.taken_at - KEEP_SECONDS]
        self.polls = ([*self.polls, poll])[-KEEP_POLLS:]

    def _track_source(self, source: Counters, at: float) -> None:
        count = source.get("EventReceivedCount") or 0
        start = source.start_time
        seen = self.sources.get(source.name)
        if seen is not None and seen["count"] == count and seen["start"] == start:
            return  # nothing received since
        # Received nothing since it (re)started: idle since then. Else it moved just now
        # (or this is the first sight, when it counts as active).
        since = start if count == 0 and start else at
        self.sources[source.name] = {"count": count, "start": start, "since": since}

    def last_active(self) -> dict[str, float]:
        return {name: s["since"] for name, s in self.sources.items()}

    def save(self) -> None:
        data = {"version": VERSION, "url": self.url, "sources": self.sources,
                "polls": [_poll_dict(p) for p in self.polls]}
        write_atomic(self.path, json.dumps(data, separators=(",", ":")), mode=0o600)


def observe(context: str, name: str, url: str, timeout: float, bindings: dict[str, str] | None = None,
            history_path: Path | None = None) -> AgentStatus:
    """Poll one agent, remember the poll, and derive its status against the stored history."""
    history = History(history_path or default_path(context, name), url)
    try:
        current = poll(url, timeout)
    except FlumeError as exc:
        return unreachable(name, url, str(exc), timed_out=isinstance(exc, FlumeTimeout))
    baseline = history.baseline(current.taken_at)
    history.add(current)
    history.save()
    return status(name, url, current, baseline, history.last_active(), bindings)


def _poll_dict(poll: Poll) -> dict:
    return {"taken_at": poll.taken_at,
            "components": {key: {"kind": c.kind, "name": c.name, "values": c.values}
                           for key, c in poll.components.items()}}


def _poll_from(data: dict) -> Poll:
    return Poll(float(data["taken_at"]), {
        str(key): Counters(str(c["kind"]), str(c["name"]), {str(k): float(v) for k, v in c["values"].items()})
        for key, c in data["components"].items()})
