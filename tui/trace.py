"""Opt-in timing probes for bench/tui_bench.py (STREAMCTL_TRACE=path): when the first Overview
with data was painted, and how late a 10 ms event-loop timer fired (the worst stall)."""

from __future__ import annotations

import json
import os
import time


class Trace:
    def __init__(self, path: str) -> None:
        self.path = path
        self.worst_stall = 0.0
        self._expected = None

    @classmethod
    def from_env(cls) -> Trace | None:
        path = os.environ.get("STREAMCTL_TRACE")
        return cls(path) if path else None

    def write(self, event: str, **values) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"event": event, "time": time.time(), **values}) + "\n")

    def start_stall_probe(self, app, interval: float = 0.01) -> None:
        def tick() -> None:
            now = time.monotonic()
            if self._expected is not None:
                self.worst_stall = max(self.worst_stall, now - self._expected)
            self._expected = now + interval

        app.set_interval(interval, tick)
        app.set_interval(1.0, lambda: self.write("stall", worst_ms=round(self.worst_stall * 1000, 1)))
