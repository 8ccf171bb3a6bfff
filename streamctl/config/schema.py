"""The file's shape: `Config` (the whole file) and `Context` (one environment), assembled from
each system's settings model, and `ConfigError`, the one error a config problem raises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, PrivateAttr, model_validator

from streamctl.connect.settings import ConnectSettings
from streamctl.errors import UsageError
from streamctl.flume.settings import FlumeSettings
from streamctl.kafka.settings import ExcludeFilter, IncludeFilter, KafkaSettings, RecordsSettings
from streamctl.pipeline.settings import PipelineSettings
from streamctl.settings_types import Section, SettingsModel
from streamctl.spark.settings import SparkSettings
from streamctl.thresholds import Thresholds
from streamctl.zookeeper.settings import ZooKeeperSettings


class ConfigError(UsageError):
    """The config file is unreadable or invalid, or names no usable context."""

    def __init__(self, message: str) -> None:
        # One line, whatever a key, reference or path in it holds: control characters escaped.
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in message))


class Context(SettingsModel):
    """One environment: a Kafka cluster and what runs around it."""

    managed_by: str | None = None
    """The tool that wrote this context and may rewrite it ('streamctl-sandbox'); a context
    without it is the user's own, which `streamctl sandbox up` never replaces."""
    read_only: bool = False
    """Refuse every mutating operation."""
    kafka: KafkaSettings
    """The Kafka cluster (required)."""
    zookeeper: ZooKeeperSettings | None = None
    """ZooKeeper, for ZooKeeper-mode clusters."""
    flume: Section[FlumeSettings] = Field(default_factory=FlumeSettings)
    """Flume agents."""
    spark: Section[SparkSettings] = Field(default_factory=SparkSettings)
    """Spark Structured Streaming jobs."""
    connect: ConnectSettings | None = None
    """The Kafka Connect cluster."""
    pipeline: Section[PipelineSettings] = Field(default_factory=PipelineSettings)
    """Edges of the pipeline map the context adds."""
    records: Section[RecordsSettings] = Field(default_factory=RecordsSettings)
    """Record display (masking)."""
    thresholds: Section[Thresholds] = Field(default_factory=Thresholds)
    """Health rule limits."""
    include: Section[IncludeFilter] = Field(default_factory=IncludeFilter)
    """Topics and groups to watch."""
    exclude: Section[ExcludeFilter] = Field(default_factory=ExcludeFilter)
    """Topics and groups to ignore."""

    _name: str = PrivateAttr(default="")

    @property
    def name(self) -> str:
        """The context's key in the file."""
        return self._name


class Config(SettingsModel):
    """The whole file."""

    current_context: str | None = None
    """Context used when --context is not given."""
    contexts: Section[dict[str, Context]] = Field(default_factory=dict)
    """Contexts by name."""

    _path: Path | None = PrivateAttr(default=None)
    _unresolved: dict[str, ConfigError] = PrivateAttr(default_factory=dict)  # context -> error

    @model_validator(mode="after")
    def _name_contexts(self) -> Config:
        for name, context in self.contexts.items():
            context._name = name
        return self

    @property
    def path(self) -> Path | None:
        """The file this config was loaded from."""
        return self._path

    def loaded_from(self, path: Path, unresolved: dict[str, ConfigError]) -> Config:
        """Record the file it was loaded from and, by context name, the error that makes a
        context unusable on this host (an unset variable, a missing certificate)."""
        self._path = path
        self._unresolved = unresolved
        return self

    def context(self, name: str | None = None) -> Context:
        """The named context, or the current one when name is None."""
        where = str(self._path) if self._path else "the config"
        wanted = name or self.current_context
        if not wanted:
            raise ConfigError(f"no current-context set in {where}; use --context")
        if wanted not in self.contexts:
            raise ConfigError(f"no context '{wanted}' in {where} ({known_contexts(self.contexts)})")
        if wanted in self._unresolved:  # an unset variable breaks only the context using it
            raise self._unresolved[wanted]
        return self.contexts[wanted]


def known_contexts(contexts: dict[str, Any]) -> str:
    """'known: a, b' (or that there are none), for an error naming a missing context."""
    return f"known: {', '.join(contexts)}" if contexts else "no contexts defined"
