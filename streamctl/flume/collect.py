"""Flume: poll every configured agent's metrics endpoint, rates from the stored history, rules.

The HTTP client is imported only when there are agents to poll: `check` imports every
collector to ask whether it is configured.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from streamctl.model.health import NotEvaluated

MAX_PARALLEL = 8


SECTION = "flume section (flume.agents)"


def configured(ctx) -> bool:
    return bool(ctx.flume.agents)


def collect(ctx, deadline_at: float, flume_history_dir: Path | None = None, **_options):
    from streamctl.backends.flume import DEFAULT_TIMEOUT
    from streamctl.flume.definition import sink_bindings
    from streamctl.flume.health import flume_health
    from streamctl.flume.history import default_path, observe

    left = deadline_at - time.monotonic() - 0.2
    if left <= 0.1:
        raise NotEvaluated("no time left before the deadline")
    timeout = min(DEFAULT_TIMEOUT, left)
    agents = sorted(ctx.flume.agents.items())

    def one(item):
        name, agent = item
        path = (Path(flume_history_dir) / default_path(ctx.name, name).name
                if flume_history_dir else None)
        return observe(ctx.name, name, agent.metrics_url, timeout,
                       bindings=sink_bindings(agent.config_file, name), history_path=path)

    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, max(1, len(agents)))) as pool:
        statuses = list(pool.map(one, agents))
    if timeout < DEFAULT_TIMEOUT and any(s.timed_out for s in statuses):
        # Its timeout was cut short by the deadline: silence proves nothing yet.
        raise NotEvaluated("agents did not answer before the deadline")
    return flume_health(statuses, ctx.thresholds)
