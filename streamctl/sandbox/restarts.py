"""Restarts a person triggers to watch what the console shows: one service, or every broker in
turn as an upgrade does. Each waits until the cluster has every partition in sync again."""

from __future__ import annotations

import time

from streamctl.errors import StreamctlError
from streamctl.sandbox.stack import START_TIMEOUT, Sandbox


def restart_service(sb: Sandbox, name: str, kill: bool = False) -> None:
    """Stop one service and start it again; a broker is waited for until every ISR is full."""
    with sb.lock:
        sb.stop_service(name, kill=kill)
        sb.start_service(name)
        _, service = sb.service(name)
        if service.role == "broker":
            wait_in_sync(sb, f"every partition in sync after {name}")


def rolling_restart(sb: Sandbox, down: float = 0.0) -> list[str]:
    """The brokers one at a time: SIGTERM (a controlled shutdown), `down` seconds away (time to
    watch the console without it), start, every partition in sync before the next. Returns
    their names."""
    with sb.lock:
        names = [b.name for b in sb.state().by_role("broker")]
        wait_in_sync(sb, "the cluster in sync before the first restart")
        for name in names:
            sb.report(f"restarting {name}")
            sb.stop_service(name)
            if down > 0:
                sb.report(f"{name} stopped; starting it in {down:g} s")
                time.sleep(down)
            sb.start_service(name)
            wait_in_sync(sb, f"every partition in sync after {name}")
        return names


def wait_in_sync(sb: Sandbox, what: str, timeout: float = START_TIMEOUT) -> None:
    sb.report(f"waiting for {what}")
    ends = time.monotonic() + timeout
    while not sb.in_sync(sb.state()):
        if time.monotonic() > ends:
            raise StreamctlError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.5)
