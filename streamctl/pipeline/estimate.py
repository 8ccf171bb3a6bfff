"""Drain ETAs from a screen's successive refreshes: each reader's committed and log-end totals
are kept for a minute, and its rates taken over the oldest of them (commits land in steps,
so a single refresh interval is too short to tell)."""

from __future__ import annotations

from collections import defaultdict, deque

from streamctl.model.health import Severity
from streamctl.pipeline.derive import drain

RATE_WINDOW = 60.0  # seconds of history the rates span at most
MIN_WINDOW = 8.0  # ... and at least (before that the ETA is unknown)


class DrainEstimator:
    def __init__(self, thresholds) -> None:
        self.thresholds = thresholds
        self.samples: dict[str, deque] = defaultdict(lambda: deque(maxlen=64))

    def observe(self, key: str, at: float, committed: int, log_end: int, backlog: int,
                stopped: bool) -> tuple[float | None, Severity]:
        """(ETA in seconds, NEVER or None when unknown; severity) of `key` at unix time `at`."""
        samples = self.samples[key]
        if samples and at <= samples[-1][0]:  # the same reading again
            samples.pop()
        samples.append((at, committed, log_end))
        while samples and at - samples[0][0] > RATE_WINDOW:
            samples.popleft()
        span = at - samples[0][0]
        if span < MIN_WINDOW:
            eta, severity, _ = drain(backlog, None, None, stopped, self.thresholds)
            return eta, severity
        rate_out = max(0, committed - samples[0][1]) / span
        arrived = max(0, log_end - samples[0][2])
        eta, severity, _ = drain(backlog, arrived / span, rate_out, stopped, self.thresholds, arrived)
        return eta, severity
