"""A context's `pipeline` section: the map's edges that nothing streamctl reads can show."""

from __future__ import annotations

from pydantic import Field

from streamctl.settings_types import SettingsModel


class PipelineSettings(SettingsModel):
    """Edges of `streamctl pipeline` that nothing streamctl reads can show."""

    producers: dict[str, list[str]] = Field(default_factory=dict)
    """Writers streamctl cannot see, by a name of your choice, and the topics they write
    (e.g. {nginx-shippers: [weblogs]}): drawn by that name instead of an `external` writer."""
    group_outputs: dict[str, list[str]] = Field(default_factory=dict)
    """The topics a consumer group's application writes (its offsets name only what it reads),
    e.g. {billing: [invoices]}."""
