"""A context's `flume` section: the agents to watch."""

from __future__ import annotations

from pydantic import Field

from streamctl.settings_types import HttpUrl, Section, SettingsModel, UserPath


class FlumeAgent(SettingsModel):
    """One Flume agent."""

    metrics_url: HttpUrl
    """The agent's HTTP monitoring endpoint (…/metrics)."""
    config_file: UserPath | None = None
    """The agent's properties file, if streamctl may start it."""
    command: str | None = None
    """Shell command that starts the agent, if streamctl may start it."""


class FlumeSettings(SettingsModel):
    """Flume agents to watch, by name."""

    agents: Section[dict[str, FlumeAgent]] = Field(default_factory=dict)
    """Agents keyed by their Flume agent name."""
