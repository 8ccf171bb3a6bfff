"""Kafka Connect: one worker's answer (two REST calls), UNASSIGNED ages, the health rules.

How long a connector or task has been UNASSIGNED is not in the REST API: the first time each
was seen so is kept in a small state file per context (written atomically), so `check` from
cron and the dashboard judge the same ages.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from streamctl.model.health import NotEvaluated

SECTION = "connect section"


def configured(ctx) -> bool:
    return ctx.connect is not None


def backend_for(ctx, timeout: float | None = None):
    from streamctl.backends.connect import ConnectBackend, ConnectTls

    settings = ctx.connect
    auth = (settings.auth.username, settings.auth.password) if settings.auth else None
    tls = None
    if settings.ca or settings.client_cert:
        password = settings.client_key_password
        ca, cert, key = (str(p) if p else None for p in (settings.ca, settings.client_cert, settings.client_key))
        tls = ConnectTls(ca, cert, key, password.get_secret_value() if password else None)
    return ConnectBackend(settings.urls, timeout or settings.timeout, auth, tls)


def collect(ctx, deadline_at: float, connect_state_dir: Path | None = None, now: float | None = None,
            **_options):
    from streamctl.backends.connect import ConnectError, ConnectUnreachable
    from streamctl.connect.health import connect_health, unassigned_keys, unreachable

    left = deadline_at - time.monotonic() - 0.2
    if left <= 0.1:
        raise NotEvaluated("no time left before the deadline")
    # Two calls one after the other, each within the per-call timeout and half the time left.
    timeout = min(ctx.connect.timeout, left / 2)
    try:
        with backend_for(ctx, timeout) as backend:
            cluster = backend.cluster()
    except ConnectUnreachable as exc:
        if timeout < ctx.connect.timeout and "no answer" in str(exc):
            raise NotEvaluated(f"{exc} (cut short by the deadline)") from None
        return unreachable(str(exc))
    except ConnectError as exc:
        return unreachable(str(exc))
    ages = unassigned_ages(state_file(ctx.name, connect_state_dir), unassigned_keys(cluster),
                           time.time() if now is None else now)
    return connect_health(cluster, ctx.thresholds, ctx.connect.expected_paused, ages)


def state_file(context: str, folder: Path | None = None) -> Path:
    from streamctl import paths

    return Path(folder or paths.state_dir() / "connect") / f"unassigned-{context}.json"


def unassigned_ages(path: Path, keys: set[str], now: float) -> dict[str, float]:
    """Seconds since each key was first seen UNASSIGNED; keys no longer UNASSIGNED forgotten."""
    from streamctl.atomic import write_atomic

    try:
        first_seen = {k: float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        first_seen = {}
    kept = {key: first_seen.get(key, now) for key in keys}
    if kept != first_seen:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps(kept), mode=0o644)
        except OSError:
            pass  # ages restart next time; the findings of this run stand
    return {key: now - seen for key, seen in kept.items()}
