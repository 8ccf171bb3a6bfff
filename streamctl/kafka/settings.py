"""A context's Kafka sections: `kafka` (the cluster), `include`/`exclude` (topics and groups to
watch) and `records` (how records are shown)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import Field, field_validator

from streamctl.settings_types import SettingsModel, none_as_empty

REDACTED = "***"
_SECRET_WORDS = ("password", "secret", "token")
# librdkafka keys holding key material or credentials that the word rules miss.
_SECRET_KEYS = frozenset({"ssl.key.pem", "sasl.oauthbearer.config"})

# Keys confluent-kafka's Python layer takes as objects (callables, a logger, a dict, a bool), which no
# YAML value can be: the client would raise a TypeError on the string.
PYTHON_CLIENT_KEYS = frozenset({"error_cb", "throttle_cb", "stats_cb", "oauth_cb", "logger", "on_delivery",
                                "on_commit", "default.topic.config", "delivery.report.only.error"})

# librdkafka properties naming a PEM file the client reads (the CA may be a folder of them).
TLS_FILE_PROPERTIES = ("ssl.ca.location", "ssl.certificate.location", "ssl.key.location", "ssl.crl.location")


def is_secret_property(key: str) -> bool:
    """True for librdkafka property names whose values are credentials."""
    key = key.lower()
    return any(w in key for w in _SECRET_WORDS) or key.endswith(".key") or key in _SECRET_KEYS


class IncludeFilter(SettingsModel):
    """What to watch: fnmatch globs; by default everything."""

    topics: list[str] = Field(default_factory=lambda: ["*"])
    """Topic name globs to include."""
    groups: list[str] = Field(default_factory=lambda: ["*"])
    """Consumer group globs to include."""


class ExcludeFilter(SettingsModel):
    """What to ignore even if included: fnmatch globs; by default nothing."""

    topics: list[str] = Field(default_factory=list)
    """Topic name globs to exclude."""
    groups: list[str] = Field(default_factory=list)
    """Consumer group globs to exclude."""


class StreamsAppSettings(SettingsModel):
    """One Kafka Streams app's declared facts."""

    outputs: list[str] = Field(default_factory=list)
    """The topics it writes (the group's offsets name only what it reads)."""


class KafkaSettings(SettingsModel):
    """How to reach the Kafka cluster."""

    bootstrap_servers: str = Field(min_length=1)
    """Comma-separated host:port list."""
    properties: dict[str, str] = Field(default_factory=dict)
    """librdkafka properties passed through as-is (YAML numbers/booleans become strings)."""
    expected_brokers: int | None = Field(None, ge=1)
    """How many brokers the cluster should have."""
    timeout: float = Field(10.0, gt=0, allow_inf_nan=False)
    """Seconds per network call."""
    quorum_timeout: float = Field(30.0, gt=0, allow_inf_nan=False)
    """Seconds for `check --component quorum` (it starts Kafka's metadata-quorum tool in a JVM)."""
    streams: dict[str, StreamsAppSettings] = Field(default_factory=dict)
    """Kafka Streams apps by application.id: what the cluster cannot tell (their output topics)."""

    @field_validator("properties", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {_librdkafka_str(k): _librdkafka_str(v) for k, v in value.items()}
        return none_as_empty(value)

    @field_validator("properties")
    @classmethod
    def _librdkafka_only(cls, value: dict[str, str]) -> dict[str, str]:
        if "bootstrap.servers" in value:
            raise ValueError("set kafka.bootstrap_servers, not properties['bootstrap.servers']")
        python_keys = sorted(PYTHON_CLIENT_KEYS.intersection(value))
        if python_keys:
            raise ValueError(f"properties['{python_keys[0]}'] is a confluent-kafka Python object (a callback, "
                             "logger or dict), not a librdkafka property: remove it")
        return value

    def client_config(self) -> dict[str, str]:
        """The librdkafka config, secrets in clear: hand it to the client only."""
        return {"bootstrap.servers": self.bootstrap_servers, **self.properties}

    def redacted(self) -> dict[str, str]:
        """The librdkafka config with secret values replaced by '***', safe to show."""
        return _redact(self.client_config())

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            if name == "properties":
                value = _redact(value)
            yield name, value


def _redact(props: dict[str, str]) -> dict[str, str]:
    return {k: REDACTED if is_secret_property(k) else v for k, v in props.items()}


def _librdkafka_str(value: Any) -> Any:
    """YAML scalars as librdkafka spells them: true/false, 5, 0.5."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


class RecordsSettings(SettingsModel):
    """How records are shown (`topics read`, `groups peek`, the dashboard's Records pane)."""

    mask: list[str] = Field(default_factory=list)
    """Masked in every output: 'value.PATH' JSON fields and 'headers.NAME' headers (globs);
    fields and headers named like passwords, secrets and tokens always are."""
