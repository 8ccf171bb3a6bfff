"""What the dashboard reads and does, without any UI: one object per context, built by the
same factory the CLI uses, so tests hand the app a real sandbox context or recorded data.

Every method blocks (network I/O bounded by the context's timeouts): the TUI calls them from
thread workers only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from streamctl.model import Evaluation, KafkaSnapshot


class DashboardSource(Protocol):
    """What the screens need; `Dashboard` reads live clusters, tests may record/replay."""

    context_name: str
    read_only: bool

    def kafka_snapshot(self) -> KafkaSnapshot: ...

    def health(self) -> Evaluation: ...


@dataclass
class Dashboard:
    """Live data for one context."""

    ctx: object
    read_only: bool = False
    health_timeout: float = 15.0

    def __post_init__(self):
        from streamctl.backends.kafka_admin import KafkaAdmin

        self.read_only = self.read_only or bool(getattr(self.ctx, "read_only", False))
        self.kafka = KafkaAdmin(self.ctx.kafka.client_config(), timeout=self.ctx.kafka.timeout)

    @property
    def context_name(self) -> str:
        return self.ctx.name

    def kafka_snapshot(self) -> KafkaSnapshot:
        from streamctl.health import Filters

        return self.kafka.snapshot(group_filter=Filters.from_context(self.ctx).group)

    def health(self) -> Evaluation:
        from streamctl.evaluate import configured_components, evaluate

        return evaluate(self.ctx, configured_components(self.ctx), self.health_timeout)


def make_dashboard(config_path=None, context_name: str | None = None, read_only: bool = False) -> Dashboard:
    """The factory the CLI uses to start the TUI (and the tests to build it the same way)."""
    from streamctl.config import load_config

    ctx = load_config(config_path).context(context_name)
    return Dashboard(ctx, read_only=read_only)
