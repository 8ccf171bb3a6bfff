"""Opt-in timing probes for bench/tui_bench.py (STREAMCTL_TRACE=path): when the first Overview
with data was painted, and how late a 10 ms event-loop timer fired (the worst stall)."""

from __future__ import annotations

import gc
import json
import os
import time
from typing import Any


class Trace:
    def __init__(self, path: str) -> None:
        self.path = path
        self.worst_stall = 0.0
        self.worst_gc = 0.0  # the longest garbage collection pause (any thread holds the GIL)
        self._expected: float | None = None
        self._gc_started = self._gc_cpu_started = 0.0

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
                late = now - self._expected
                if late > 0.02:
                    self.write("late", ms=round(late * 1000, 1))
                self.worst_stall = max(self.worst_stall, late)
            self._expected = now + interval

        def collecting(phase: str, info: dict) -> None:
            if phase == "start":
                self._gc_started = time.perf_counter()
                self._gc_cpu_started = time.thread_time()
            else:
                took = time.perf_counter() - self._gc_started
                if took > 0.02:  # wall time, and the CPU time it cost (the pause on an idle machine)
                    self.write("gc", generation=info["generation"], ms=round(took * 1000, 1),
                               cpu_ms=round((time.thread_time() - self._gc_cpu_started) * 1000, 1),
                               collected=info["collected"])
                self.worst_gc = max(self.worst_gc, took)

        gc.callbacks.append(collecting)
        if os.environ.get("STREAMCTL_TRACE_SLOW"):
            self._log_slow_callbacks(float(os.environ["STREAMCTL_TRACE_SLOW"]))
        app.set_interval(interval, tick)
        app.set_interval(1.0, lambda: self.write("stall", worst_ms=round(self.worst_stall * 1000, 1),
                                                 worst_gc_ms=round(self.worst_gc * 1000, 1)))

    def _log_slow_callbacks(self, seconds: float) -> None:
        """Name each event-loop callback that ran longer than `seconds` (STREAMCTL_TRACE_SLOW=seconds)."""
        import asyncio.events

        run = asyncio.events.Handle._run
        trace = self

        def timed_run(handle) -> None:
            started, cpu_started, all_started = time.perf_counter(), time.thread_time(), time.process_time()
            queued_started = _runqueue_wait()
            run(handle)
            took = time.perf_counter() - started
            if took > seconds:
                # cpu_ms: this thread's work; process_cpu_ms: every thread's of the process (more
                # than cpu_ms: other threads held the GIL); runqueue_ms: this thread ready to run
                # but waiting for a core (Linux schedstat).
                trace.write("slow", ms=round(took * 1000, 1), cpu_ms=round((time.thread_time() - cpu_started) * 1000, 1),
                            process_cpu_ms=round((time.process_time() - all_started) * 1000, 1),
                            runqueue_ms=round((_runqueue_wait() - queued_started) * 1000, 1),
                            callback=_describe(handle))

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign, assignment]  # the trace wraps every callback


def _runqueue_wait() -> float:
    """Seconds this thread has spent runnable without a core (0 where schedstat is missing)."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _describe(handle) -> str:
    """The task (and its coroutine) or the function a callback runs, for a person reading the trace."""
    callback = handle._callback
    task: Any = getattr(callback, "__self__", None)  # an asyncio Task when the callback steps one
    coro = getattr(task, "get_coro", lambda: None)()
    if coro is not None:
        return f"{task.get_name()} {coro.__qualname__}"
    return getattr(callback, "__qualname__", repr(callback))[:120]
