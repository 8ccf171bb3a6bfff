"""The dashboard's slow-callback log (STREAMCTL_TRACE_SLOW) splits a callback's wall time into its
own CPU time and its wait for a core, which is how bench/tui_bench.py tells work from scheduling."""

from __future__ import annotations

import asyncio
import asyncio.events
import json
import time

from streamctl.tui.trace import Trace


def test_a_slow_callback_is_logged_with_its_cpu_time_apart_from_its_wall_time(tmp_path, monkeypatch):
    monkeypatch.setattr(asyncio.events.Handle, "_run", asyncio.events.Handle._run)  # restored after
    log = tmp_path / "trace.jsonl"
    Trace(str(log))._log_slow_callbacks(0.03)

    def sleeping() -> None:  # waits without work
        time.sleep(0.06)

    def quick() -> None:
        pass

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_soon(sleeping)
        loop.call_soon(quick)
        await asyncio.sleep(0.1)

    asyncio.run(main())
    slow = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["callback"] for e in slow] == [sleeping.__qualname__]
    (event,) = slow
    assert event["ms"] >= 60
    assert event["cpu_ms"] < 20 and event["process_cpu_ms"] < 20
    assert 0 <= event["runqueue_ms"] < event["ms"]
