"""The pipeline as a graph: writers into topics, readers out of them, and per hop how fast data
moves and whether the backlog drains."""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamctl import systems
from streamctl.model.health import Severity

NEVER = math.inf  # an ETA: the backlog does not shrink
# Rates within this of each other are steady: commits land in steps, the readings are seconds apart.
STEADY_RATE, STEADY_SHARE = 0.5, 0.1  # records/s, share of the larger rate

# Node kinds, and the dashboard screen each opens on: each system declares its own
# (the registry, streamctl/systems.py).
SCREENS = systems.node_screens()


@dataclass(frozen=True, slots=True)
class Node:
    kind: str  # flume, topic, job, connector, streams, group, producer (named by the context),
    # external (a writer streamctl does not know)
    name: str
    state: str | None = None  # its own state where it has one (RUNNING, stopped, up, ...)

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def label(self) -> str:
        return self.name if self.kind == "topic" else f"{self.kind} {self.name}"


@dataclass(frozen=True, slots=True)
class Hop:
    """Data moving along one edge: a writer into `topic`, or a reader out of it."""

    writer: Node | None  # set on an into-the-topic hop
    reader: Node | None  # set on an out-of-the-topic hop
    topic: str
    rate_in: float | None = None  # records/s into the topic over the window
    rate_out: float | None = None  # records/s the reader moved on (out hops)
    backlog: int | None = None  # records the reader is behind
    lag_seconds: float | None = None  # age of the oldest record it has not processed
    eta_seconds: float | None = None  # to drain the backlog: 0 drained, NEVER, None unknown
    severity: Severity = Severity.OK
    note: str = ""
    event_time_lag_seconds: float | None = None  # a stateful job's: now minus its watermark

    @property
    def source(self) -> str:
        return self.writer.id if self.writer else f"topic:{self.topic}"

    @property
    def node(self) -> Node:
        """Its writer on an into-the-topic hop, else its reader (every hop has one of them)."""
        node = self.writer or self.reader
        if node is None:
            raise ValueError(f"a hop on {self.topic} with neither a writer nor a reader")
        return node

    @property
    def target(self) -> str:
        return self.reader.id if self.reader else f"topic:{self.topic}"

    @property
    def trend(self) -> str:
        if self.rate_in is None or self.rate_out is None:
            return "unknown"
        net = self.rate_out - self.rate_in
        if abs(net) <= max(STEADY_RATE, STEADY_SHARE * max(self.rate_in, self.rate_out)):
            return "steady"
        return "shrinking" if net > 0 else "growing"


@dataclass(frozen=True, slots=True)
class PipelineMap:
    nodes: tuple[Node, ...]
    hops: tuple[Hop, ...]
    window_seconds: float  # between the two readings the rates come from
    errors: tuple[str, ...] = ()  # systems that could not be read (their hops are missing)
    before_source: str = "reading"  # the earlier reading: "reading" (this run's) | "history" (the lag history's)
    before_at: float | None = None  # unix seconds of the earlier reading


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    if seconds == NEVER:
        return "never"
    if seconds < 1:
        return "drained"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
