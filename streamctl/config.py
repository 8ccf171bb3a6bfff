"""Contexts file: kubectl-style named contexts in YAML, validated with pydantic.

Loading goes text -> YAML node tree -> plain data (with `${...}` secret references
resolved) -> pydantic models. The node tree is kept so that every error can name the
file, line and dotted key; errors are built from pydantic's `loc` and `msg` only, never
from the input value, so a secret cannot leak into a message.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath
from urllib.parse import urlsplit
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.errors import UsageError
import itertools

REDACTED = "***"
_SECRET_WORDS = ("password", "secret", "token")
# librdkafka keys holding key material or credentials that the word rules miss.
_SECRET_KEYS = frozenset({"ssl.key.pem", "sasl.oauthbearer.config"})


class ConfigError(UsageError):
    """The config file is unreadable or invalid, or names no usable context."""

    def __init__(self, message: str) -> None:
        # One line, whatever a key, reference or path in it holds: control characters escaped.
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in message))


def is_secret_property(key: str) -> bool:
    """True for librdkafka property names whose values are credentials."""
    key = key.lower()
    return any(w in key for w in _SECRET_WORDS) or key.endswith(".key") or key in _SECRET_KEYS


# --------------------------------------------------------------------------- models


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=_kebab,
        populate_by_name=True,
    )


def _none_as_empty(value: Any) -> Any:
    return {} if value is None else value


# An empty YAML section (`flume:` with nothing under it) means the defaults.
_T = TypeVar("_T")
Section = Annotated[_T, BeforeValidator(_none_as_empty)]


def _check_http_url(value: str | None) -> str | None:
    if value is None:
        return value
    if not value.startswith(("http://", "https://")):
        raise ValueError("must be an http:// or https:// URL")
    if "${" in value:
        return value  # a reference left unresolved (validating a file to save)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not 0-65535
    except ValueError as exc:
        raise ValueError(f"not a valid URL ({exc})") from None
    if not parts.hostname:
        raise ValueError("the URL names no host")
    return value


def _check_zookeeper_hosts(value: str) -> str:
    """'zk1:2181,[::1]:2182/chroot': every server has a host and a port in 1-65535 (or none)."""
    servers = [item.strip() for item in value.partition("/")[0].split(",") if item.strip()]
    if not servers:
        raise ValueError("names no server (expected HOST:PORT[,HOST:PORT...])")
    for item in servers:
        if "${" in item:
            continue  # a reference left unresolved (validating a file to save)
        if item.startswith("["):
            host, _, port = item[1:].partition("]")
            port = port.removeprefix(":")
        else:
            host, _, port = item.rpartition(":") if ":" in item else (item, "", "")
        if not host or (port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536)):
            raise ValueError(f"bad server {item!r} (expected HOST:PORT, port 1-65535)")
    return value


def _expand_path(value: Any) -> Any:
    return Path(value).expanduser() if isinstance(value, str) else value


def _checkpoint_location(value: Any) -> Any:
    """A local path (~ expanded) or a remote store's URL, kept as written."""
    from streamctl.model.spark import REMOTE_CHECKPOINT_SCHEMES

    if not isinstance(value, (str, Path)):
        return value
    text = str(value)
    scheme = text.split("://", 1)[0] if "://" in text else ""
    if scheme in REMOTE_CHECKPOINT_SCHEMES:
        return text
    if scheme not in ("", "file"):
        raise ValueError(f"{scheme}:// checkpoints are not supported "
                         "(a local path, hdfs://, webhdfs://, s3a:// or s3://)")
    return str(Path(text.removeprefix("file://")).expanduser())


HttpUrl = Annotated[str, AfterValidator(_check_http_url)]
UserPath = Annotated[Path, BeforeValidator(_expand_path)]
CheckpointLocation = Annotated[str, BeforeValidator(_checkpoint_location)]


class Thresholds(_Model):
    """Limits for the health rules; every one has a default."""

    lag_records_warn: int = Field(1000, ge=0)
    """Consumer-group lag in records that raises a warning."""
    lag_records_crit: int = Field(100_000, ge=0)
    """Consumer-group lag in records that is critical."""
    lag_seconds_warn: float = Field(60.0, ge=0)
    """Consumer-group lag in seconds that raises a warning."""
    lag_seconds_crit: float = Field(600.0, ge=0)
    """Consumer-group lag in seconds that is critical."""
    allowed_lag: int = Field(0, ge=0)
    """Records a group may lag without counting as lagging at all."""
    stall_window_seconds: float = Field(300.0, gt=0)
    """How long committed offsets may stand still, with lag, before the group is stalled."""
    min_brokers_warn: int | None = Field(None, ge=1)
    """Warn below this many live brokers (default: kafka.expected_brokers)."""
    min_brokers_crit: int | None = Field(None, ge=1)
    """Critical below this many live brokers (default: kafka.expected_brokers)."""
    channel_fill_warn_pct: float = Field(70.0, ge=0, le=100)
    """Flume channel fill percentage that raises a warning."""
    channel_fill_crit_pct: float = Field(90.0, ge=0, le=100)
    """Flume channel fill percentage that is critical."""
    source_idle_seconds: float = Field(300.0, gt=0)
    """Seconds a Flume source may accept no events before it counts as idle."""
    job_commit_age_warn_seconds: float = Field(300.0, ge=0)
    """Age of a Spark job's last committed batch that raises a warning."""
    job_commit_age_crit_seconds: float = Field(900.0, ge=0)
    """Age of a Spark job's last committed batch that is critical."""
    job_lag_records_warn: int = Field(10_000, ge=0)
    """Records between a job's checkpoint and the log end that raise a warning."""
    job_lag_records_crit: int = Field(1_000_000, ge=0)
    """Records between a job's checkpoint and the log end that are critical."""
    zk_latency_avg_warn_ms: float = Field(100.0, ge=0)
    """ZooKeeper average request latency (ms) that raises a warning."""
    zk_outstanding_warn: int = Field(10, ge=0)
    """ZooKeeper outstanding requests that raise a warning."""
    connect_unassigned_warn_seconds: float = Field(60.0, ge=0)
    """Seconds a Connect connector or task may stay UNASSIGNED before a warning."""
    quorum_voter_lag_warn: int = Field(1000, ge=0)
    """Records a KRaft controller (a quorum voter) may be behind the quorum leader before a warning."""
    drain_eta_seconds_warn: float = Field(600.0, gt=0)
    """Seconds a pipeline hop may need to drain its backlog before a warning (`streamctl pipeline`)."""
    drain_eta_seconds_crit: float = Field(3600.0, gt=0)
    """... and before it is critical."""

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        pairs = [
            ("lag_records_warn", "lag_records_crit"),
            ("lag_seconds_warn", "lag_seconds_crit"),
            ("channel_fill_warn_pct", "channel_fill_crit_pct"),
            ("job_commit_age_warn_seconds", "job_commit_age_crit_seconds"),
            ("job_lag_records_warn", "job_lag_records_crit"),
            ("min_brokers_crit", "min_brokers_warn"),  # fewer brokers is worse
            ("drain_eta_seconds_warn", "drain_eta_seconds_crit"),
        ]
        for low, high in pairs:
            a, b = getattr(self, low), getattr(self, high)
            if a is not None and b is not None and a > b:
                raise ValueError(f"{low} must not exceed {high}")
        return self


class IncludeFilter(_Model):
    """What to watch: fnmatch globs; by default everything."""

    topics: list[str] = Field(default_factory=lambda: ["*"])
    """Topic name globs to include."""
    groups: list[str] = Field(default_factory=lambda: ["*"])
    """Consumer group globs to include."""


class ExcludeFilter(_Model):
    """What to ignore even if included: fnmatch globs; by default nothing."""

    topics: list[str] = Field(default_factory=list)
    """Topic name globs to exclude."""
    groups: list[str] = Field(default_factory=list)
    """Consumer group globs to exclude."""


class StreamsAppSettings(_Model):
    """One Kafka Streams app's declared facts."""

    outputs: list[str] = Field(default_factory=list)
    """The topics it writes (the group's offsets name only what it reads)."""


class KafkaSettings(_Model):
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
        return _none_as_empty(value)

    @field_validator("properties")
    @classmethod
    def _no_bootstrap(cls, value: dict[str, str]) -> dict[str, str]:
        if "bootstrap.servers" in value:
            raise ValueError("set kafka.bootstrap_servers, not properties['bootstrap.servers']")
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


class ZooKeeperAuth(_Model):
    """ZooKeeper authentication (kazoo `auth_data`)."""

    scheme: str = "digest"
    """Auth scheme, usually 'digest'."""
    credential: SecretStr
    """Scheme credential, e.g. 'user:password' for digest."""


class ZooKeeperSasl(_Model):
    """ZooKeeper SASL (kazoo `sasl_options`, needs the pure-sasl package)."""

    mechanism: str = "DIGEST-MD5"
    """SASL mechanism: DIGEST-MD5 or GSSAPI."""
    username: str | None = None
    """DIGEST-MD5 user name."""
    password: SecretStr | None = None
    """DIGEST-MD5 password."""
    service: str | None = None
    """GSSAPI service name (ZooKeeper's default: 'zookeeper')."""
    principal: str | None = None
    """GSSAPI client principal (default: the ticket cache's)."""


class ZooKeeperTls(_Model):
    """TLS to ZooKeeper's secureClientPort (kazoo `use_ssl` and friends)."""

    ca: UserPath | None = None
    """CA bundle (PEM) that signed the servers' certificates."""
    certfile: UserPath | None = None
    """Client certificate (PEM), for mutual TLS."""
    keyfile: UserPath | None = None
    """Client private key (PEM), for mutual TLS."""
    keyfile_password: SecretStr | None = None
    """Password of the client private key."""
    verify_certs: bool = True
    """Verify the servers' certificates."""


class ZooKeeperSettings(_Model):
    """How to reach ZooKeeper (optional)."""

    hosts: Annotated[str, AfterValidator(_check_zookeeper_hosts)]
    """Comma-separated host:port list."""
    chroot: str | None = None
    """Chroot path the Kafka cluster lives under, e.g. '/kafka'."""
    auth: ZooKeeperAuth | None = None
    """Authentication, if the ensemble requires it."""
    sasl: ZooKeeperSasl | None = None
    """SASL authentication, if the ensemble requires it."""
    tls: ZooKeeperTls | None = None
    """TLS settings, when the hosts are secure client ports."""
    timeout: float = Field(10.0, gt=0, allow_inf_nan=False)
    """Seconds per network call."""
    admin_url: HttpUrl | None = None
    """AdminServer base URL, e.g. 'http://127.0.0.1:8080/commands' ('{host}' stands for each server's host)."""

    @field_validator("chroot")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise ValueError("must start with '/'")
        return value


class FlumeAgent(_Model):
    """One Flume agent."""

    metrics_url: HttpUrl
    """The agent's HTTP monitoring endpoint (…/metrics)."""
    config_file: UserPath | None = None
    """The agent's properties file, if streamctl may start it."""
    command: str | None = None
    """Shell command that starts the agent, if streamctl may start it."""


class FlumeSettings(_Model):
    """Flume agents to watch, by name."""

    agents: Section[dict[str, FlumeAgent]] = Field(default_factory=dict)
    """Agents keyed by their Flume agent name."""


class SparkJob(_Model):
    """One Spark Structured Streaming job."""

    checkpoint_dir: CheckpointLocation
    """The query's checkpoint location: a local path, hdfs://namenode:8020/path, webhdfs://namenode:9870/path
    or s3a://bucket/path."""
    webhdfs_url: HttpUrl | None = None
    """The NameNode's WebHDFS address (http://namenode:9870) for an hdfs:// checkpoint."""
    hdfs_user: str | None = None
    """The user WebHDFS requests run as (simple auth); the server's default when unset."""
    s3_endpoint_url: HttpUrl | None = None
    """An S3-compatible server's address for an s3a:// checkpoint (AWS itself when unset);
    credentials come from the usual AWS chain (environment, ~/.aws, an instance role)."""
    ui_url: HttpUrl | None = None
    """The driver's Spark UI URL."""
    progress_file: UserPath | None = None
    """JSON-lines file our StreamingQueryListener writes progress to."""
    outputs: list[str] = Field(default_factory=list)
    """The topics it writes (its checkpoint names only what it reads): edges of `streamctl pipeline`."""
    app_name: str | None = None
    """Its application name on the Spark cluster (`spark.app.name`); the job's name by default."""


class SparkSettings(_Model):
    """Spark jobs to watch, by name, and the standalone cluster they run on."""

    jobs: Section[dict[str, SparkJob]] = Field(default_factory=dict)
    """Jobs keyed by a name of your choice."""
    masters: list[HttpUrl] = Field(default_factory=list)
    """Web UI URLs of the standalone Master(s), e.g. ['http://spark-master:8080']; with HA list them all."""
    timeout: float = Field(5.0, gt=0, allow_inf_nan=False)
    """Seconds to wait for a Master's answer."""


class ConnectAuth(_Model):
    """HTTP basic auth for the Connect REST API."""

    username: str
    password: str
    """Use a '${file:...}' or '${env:...}' reference rather than the password itself."""


class ConnectSettings(_Model):
    """Kafka Connect workers (optional): any worker of a cluster answers for all of it."""

    urls: list[Annotated[str, AfterValidator(_check_http_url)]] = Field(min_length=1)
    """REST URLs of the cluster's workers, e.g. ['http://connect-1:8083']; the first that answers is used."""
    auth: ConnectAuth | None = None
    """Basic auth, if the REST API requires it."""
    ca: UserPath | None = None
    """CA bundle (PEM) that signed the workers' HTTPS certificates (default: the system's CAs)."""
    client_cert: UserPath | None = None
    """Client certificate (PEM) for workers that require one (`listeners.https.ssl.client.authentication`);
    it may hold the private key too."""
    client_key: UserPath | None = None
    """The client certificate's private key (PEM), when not in client_cert."""
    client_key_password: SecretStr | None = None
    """Password of an encrypted client_key: a '${file:...}' or '${ENV}' reference."""
    timeout: float = Field(10.0, gt=0, allow_inf_nan=False)
    """Seconds per REST call."""
    expected_paused: list[str] = Field(default_factory=list)
    """Connectors (fnmatch globs) that are PAUSED or STOPPED on purpose: no warning for them."""

    @model_validator(mode="after")
    def _key_with_cert(self) -> ConnectSettings:
        if self.client_key is not None and self.client_cert is None:
            raise ValueError("client_key needs client_cert (the certificate it belongs to)")
        return self


class RecordsSettings(_Model):
    """How records are shown (`topics read`, `groups peek`, the dashboard's Records pane)."""

    mask: list[str] = Field(default_factory=list)
    """Masked in every output: 'value.PATH' JSON fields and 'headers.NAME' headers (globs);
    fields and headers named like passwords, secrets and tokens always are."""


class PipelineSettings(_Model):
    """Edges of `streamctl pipeline` that nothing streamctl reads can show."""

    producers: dict[str, list[str]] = Field(default_factory=dict)
    """Writers streamctl cannot see, by a name of your choice, and the topics they write
    (e.g. {nginx-shippers: [weblogs]}): drawn by that name instead of an `external` writer."""
    group_outputs: dict[str, list[str]] = Field(default_factory=dict)
    """The topics a consumer group's application writes (its offsets name only what it reads),
    e.g. {billing: [invoices]}."""


class Context(_Model):
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


class Config(_Model):
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

    def context(self, name: str | None = None) -> Context:
        """The named context, or the current one when name is None."""
        where = str(self._path) if self._path else "the config"
        wanted = name or self.current_context
        if not wanted:
            raise ConfigError(f"no current-context set in {where}; use --context")
        if wanted not in self.contexts:
            raise ConfigError(f"no context '{wanted}' in {where} ({_known(self.contexts)})")
        if wanted in self._unresolved:  # an unset variable breaks only the context using it
            raise self._unresolved[wanted]
        return self.contexts[wanted]


def _known(contexts: dict[str, Any]) -> str:
    return f"known: {', '.join(contexts)}" if contexts else "no contexts defined"


# --------------------------------------------------------------- secret references

# `$${` is a literal `${`; `${NAME}` an env var; `${file:PATH}` a file's contents.
_REF = re.compile(r"\$\$\{|\$\{([^}]*)(\}?)")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Mode = Literal["strict", "per-context", "lenient", "off"]


class _Unresolved(Exception):
    """A reference that cannot be resolved; the message names it, never a value."""


def _resolve(ref: str, base_dir: Path) -> str:
    if ref.startswith("file:"):
        return _read_secret_file(ref.removeprefix("file:"), base_dir)
    if not _ENV_NAME.fullmatch(ref):
        raise _Unresolved(f"invalid reference '${{{ref}}}' (use ${{NAME}} or ${{file:PATH}})")
    value = os.environ.get(ref)
    if value is None:
        raise _Unresolved(f"environment variable '{ref}' is not set")
    return value


def _read_secret_file(name: str, base_dir: Path) -> str:
    path = base_dir / Path(name).expanduser()  # relative paths: next to the config file
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _Unresolved(f"cannot read secret file '{path}': {exc.strerror}") from None
    except UnicodeDecodeError:
        raise _Unresolved(f"secret file '{path}' is not UTF-8 text") from None
    return text.removesuffix("\n").removesuffix("\r")


# ------------------------------------------------------------------ YAML -> data


def _dotted(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        elif str(part).startswith("["):
            out += str(part)  # pydantic's "[key]" marker
        else:
            out += f".{part}" if out else str(part)
    return out


class _Builder:
    """Builds plain data from a composed node tree, resolving `${...}` in string values.

    mode "strict" fails on an unresolvable reference, "per-context" too except inside a
    context, where the error is kept in `unresolved` (by context name) and the reference left
    as written: one context's unset variable must not break the others. "lenient" leaves every
    reference as written (validating a file to save), "off" keeps every string raw.
    """

    def __init__(self, label: str, base_dir: Path, mode: Mode) -> None:
        self.label = label
        self.base_dir = base_dir
        self.mode = mode
        self._constructor = yaml.SafeLoader("")
        self._active: set[int] = set()  # nodes being built: catches recursive aliases
        self.unresolved: dict[str, ConfigError] = {}  # context name -> its first unresolved reference

    def build(self, node: Node, path: tuple[Any, ...] = ()) -> Any:
        if id(node) in self._active:
            raise self._error(node, path, "recursive alias")
        self._active.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self._mapping(node, path)
            if isinstance(node, SequenceNode):
                self._check_tag(node, yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, path)
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            return self._scalar(node, path)
        finally:
            self._active.discard(id(node))

    def _mapping(self, node: MappingNode, path: tuple[Any, ...]) -> dict[Any, Any]:
        self._check_tag(node, yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, path)
        self._constructor.flatten_mapping(node)  # applies `<<` merge keys in place
        data: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise self._error(key_node, path, "mapping keys must be plain scalars")
            key = self._constructor.construct_object(key_node)
            data[key] = self.build(value_node, (*path, key))
        return data

    def _scalar(self, node: Node, path: tuple[Any, ...]) -> Any:
        value = self._constructor.construct_object(node)
        if isinstance(value, str) and self.mode != "off":
            value = self._interpolate(value, node, path)
        return value

    def _interpolate(self, text: str, node: Node, path: tuple[Any, ...]) -> str:
        def substitute(match: re.Match[str]) -> str:
            if match.group(0) == "$${":
                return "${"
            ref, closed = match.group(1), match.group(2)
            if not closed:
                raise self._error(node, path, "unterminated '${' (write '$${' for a literal)")
            try:
                return _resolve(ref, self.base_dir)
            except _Unresolved as exc:
                if self.mode == "lenient":
                    return match.group(0)
                error = self._error(node, path, str(exc))
                if self.mode == "per-context" and len(path) > 2 and path[0] == "contexts":
                    self.unresolved.setdefault(str(path[1]), error)
                    return match.group(0)
                raise error from None

        return _REF.sub(substitute, text)

    def _check_tag(self, node: Node, expected: str, path: tuple[Any, ...]) -> None:
        if node.tag != expected:
            raise self._error(node, path, f"unsupported tag '{node.tag}'")

    def _error(self, node: Node, path: tuple[Any, ...], message: str) -> ConfigError:
        where = f"{self.label}:{node.start_mark.line + 1}"
        key = f" {_dotted(list(path))}:" if path else ""
        return ConfigError(f"{where}:{key} {message}")


def _yaml_error(label: str, exc: yaml.YAMLError, text: str) -> ConfigError:
    """One line: file:line:col: invalid YAML: problem (never the offending text)."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "syntax error"
        if mark is not None:
            where = f"{label}:{mark.line + 1}:{mark.column + 1}"
            return ConfigError(f"{where}: invalid YAML: {problem}")
        return ConfigError(f"{label}: invalid YAML: {problem}")
    if isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        problem = f"unacceptable character #x{exc.character:04x}"
        return ConfigError(f"{label}:{line}:{column}: invalid YAML: {problem}")
    return ConfigError(f"{label}: invalid YAML: {str(exc).splitlines()[0]}")


def _parse(text: str, label: str, base_dir: Path, mode: Mode,
           unresolved: dict[str, ConfigError] | None = None) -> tuple[Any, Node | None]:
    """YAML text -> (plain data, root node); None data for an empty document. In mode
    "per-context", `unresolved` receives each context's unresolved reference."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        builder = _Builder(label, base_dir, mode)
        data = builder.build(root) if root is not None else None
        if unresolved is not None:
            unresolved.update(builder.unresolved)
    except yaml.YAMLError as exc:
        raise _yaml_error(label, exc, text) from None
    except RecursionError:  # PyYAML and the builder recurse once per nesting level
        raise ConfigError(f"{label}: invalid YAML: nested too deeply") from None
    return data, root


# ------------------------------------------------------ pydantic errors -> lines


def _child(node: Node | None, part: Any) -> tuple[ScalarNode | None, Node] | None:
    """The (key node, value node) that `part` of a pydantic loc refers to."""
    if isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return None, node.value[part]
    if not isinstance(node, MappingNode):
        return None
    want = str(part)
    pairs = [(k, v) for k, v in reversed(node.value) if isinstance(k, ScalarNode)]  # last key wins
    for key_node, value_node in pairs:
        if key_node.value == want:
            return key_node, value_node
    for key_node, value_node in pairs:  # kebab vs snake spelling
        if key_node.value.replace("-", "_") == want.replace("-", "_"):
            return key_node, value_node
    return None


def _locate(root: Node | None, loc: tuple[Any, ...]) -> tuple[int | None, str]:
    """Line of the deepest key of `loc` present in the file, and the key path as written.

    An unknown key points at itself; a missing field at its parent's key.
    """
    node = root
    line = root.start_mark.line + 1 if root is not None else None
    shown: list[Any] = []
    for part in loc:
        found = _child(node, part)
        if found is None:
            node = None
            shown.append(part.replace("-", "_") if isinstance(part, str) else part)
            continue
        key_node, node = found
        shown.append(key_node.value if key_node is not None else part)
        line = (key_node or node).start_mark.line + 1
    return line, _dotted(shown)


_MODEL_INSTANCE = re.compile(r" or instance of \w+")


def _validation_error(label: str, root: Node | None, exc: ValidationError) -> ConfigError:
    # include_input=False: the input may be a secret; only loc and msg are used.
    errors = exc.errors(include_input=False, include_url=False, include_context=False)
    first = errors[0]
    line, key = _locate(root, first["loc"])
    where = f"{label}:{line}" if line is not None else label
    message = first["msg"].removeprefix("Value error, ")
    message = _MODEL_INSTANCE.sub("", message)  # "...dictionary or instance of Context"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ConfigError(f"{where}: {key}: {message}{more}" if key else f"{where}: {message}{more}")


def _validate(text: str, label: str, base_dir: Path, mode: Mode) -> Config:
    unresolved: dict[str, ConfigError] = {}
    data, root = _parse(text, label, base_dir, mode, unresolved)
    try:
        config = Config.model_validate({} if data is None else data)
    except ValidationError as exc:
        raise _validation_error(label, root, exc) from None
    config._unresolved = unresolved
    if mode == "per-context":  # loading: a file missing on this host breaks only its context
        _check_tls_files(config, root, label, base_dir)
    return config


# ------------------------------------------------------------------------ TLS files

# librdkafka properties naming a PEM file the client reads (the CA may be a folder of them).
KAFKA_TLS_FILES = ("ssl.ca.location", "ssl.certificate.location", "ssl.key.location", "ssl.crl.location")
CONNECT_TLS_FILES = ("ca", "client_cert", "client_key")


def tls_file_problem(path: Path, folder_ok: bool = False) -> str | None:
    """Why a certificate, key or CA file cannot be read, or None when it can."""
    try:
        if path.is_dir():
            if folder_ok and os.access(path, os.R_OK | os.X_OK):
                return None
            return "not readable (permission denied)" if folder_ok else "is a folder, not a file"
        with path.open("rb") as handle:
            if not handle.read(1):
                return "is empty"
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return f"not readable ({(exc.strerror or type(exc).__name__).lower()})"
    return None


def _check_tls_files(config: Config, root: Node | None, label: str, base_dir: Path) -> None:
    """Each context's Kafka and Connect certificate, key and CA paths: `~` expanded, relative
    paths taken next to the config file (as `${file:...}`), and each one readable, else the
    context's error names the file, line, key and path."""
    for name, context in config.contexts.items():
        found: list[tuple[tuple[Any, ...], Path]] = []
        properties = context.kafka.properties
        for key in KAFKA_TLS_FILES:
            value = properties.get(key)
            if value and "${" not in value and not (key == "ssl.ca.location" and value == "probe"):
                path = base_dir / Path(value).expanduser()
                properties[key] = str(path)
                found.append((("kafka", "properties", key), path))
        if context.connect is not None:
            for field in CONNECT_TLS_FILES:
                if (path := getattr(context.connect, field)) is not None:
                    path = base_dir / path
                    setattr(context.connect, field, path)
                    found.append((("connect", field), path))
        for loc, path in found:
            problem = tls_file_problem(path, folder_ok=loc[-1] in ("ssl.ca.location", "ca"))
            if problem:
                line, key = _locate(root, ("contexts", name, *loc))
                where = f"{label}:{line}" if line is not None else label
                config._unresolved.setdefault(name, ConfigError(f"{where}: {key}: {path}: {problem}"))
                break


# --------------------------------------------------------------------- file I/O


def _read_text(path: Path) -> str | None:
    """The file's text, or None if it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and validate the config file; a missing file is an empty config."""
    target = paths.config_file(path)
    text = _read_text(target)
    config = Config() if text is None else _validate(text, str(target), target.parent, "per-context")
    config._path = target
    return config


# A writer never re-dumps the user's file: it edits the round-trip document (ruamel.yaml), so
# comments, key order, quoting and indentation stay as written, and the file keeps its mode.
CurrentPolicy = Literal["always", "if-unset", "never"]
NEW_FILE_MODE = 0o600  # a new config may come to hold secrets


def _round_trip() -> Any:
    from ruamel.yaml import YAML

    editor = YAML(typ="rt")
    editor.preserve_quotes = True
    editor.allow_duplicate_keys = True  # as the loader: the last one wins
    editor.width = 4096  # never re-wrap a long line
    return editor


def _read_document(path: Path) -> tuple[Any, Any]:
    """The file as an editable round-trip document (an empty one if the file does not exist),
    and the YAML editor set to the file's indentation."""
    from ruamel.yaml import YAMLError
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    editor = _round_trip()
    text = _read_text(path)
    if text is None:
        return CommentedMap(), editor
    data = _parse(text, str(path), path.parent, "off")[0]  # broken YAML: the loader's one-line error
    if data is None:
        return CommentedMap(), editor
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    try:
        document, sequence_indent, sequence_offset = load_yaml_guess_indent(text, yaml=editor)
    except YAMLError as exc:
        raise ConfigError(f"{path}: cannot edit: {str(exc).splitlines()[0]}") from None
    mapping_indent = _mapping_indent(text)
    editor.indent(mapping=mapping_indent, sequence=sequence_indent or mapping_indent,
                  offset=sequence_offset or 0)
    return document, editor


def _mapping_indent(text: str) -> int:
    """How far the file indents a nested mapping (2 when it has none)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for line, following in itertools.pairwise(lines):
        depth = len(line) - len(line.lstrip(" "))
        deeper = len(following) - len(following.lstrip(" "))
        if line.rstrip().endswith(":") and deeper > depth and not following.lstrip().startswith("-"):
            return deeper - depth
    return 2


def _contexts_of(document: Any, path: Path) -> Any:
    from ruamel.yaml.comments import CommentedMap

    contexts = document.get("contexts")
    if contexts is None:
        contexts = document["contexts"] = CommentedMap()
    if not isinstance(contexts, dict):
        raise ConfigError(f"{path}: contexts must be a mapping")
    return contexts


def _current_key(document: Any) -> str:
    """Whichever spelling of current-context the file already uses."""
    return "current_context" if "current_context" in document else "current-context"


def _plain(value: Any) -> Any:
    """Data to write: paths as strings, the rest as given."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value) if isinstance(value, PurePath) else value


def _commented(value: Any) -> Any:
    """Plain data as round-trip nodes, which can carry comments."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        return CommentedMap((key, _commented(item)) for key, item in value.items())
    if isinstance(value, list):
        return CommentedSeq(_commented(item) for item in value)
    return value


def _last_item(node: Any) -> tuple[Any, Any] | None:
    """(container, key) of the last scalar item under `node`: the YAML editor keeps there the
    comment lines that follow `node` in the file (often the next section's heading)."""
    found = None
    while isinstance(node, dict | list) and node and hasattr(node, "ca"):
        key = next(reversed(node)) if isinstance(node, dict) else len(node) - 1
        found, node = (node, key), node[key]
    return found


def _comment_slot(container: Any) -> int:
    return 2 if isinstance(container, dict) else 0  # ruamel: after a map value / a list item


def _replace_keeping_what_follows(parent: Any, key: Any, value: Any) -> None:
    """parent[key] = value, keeping the comment lines that followed the old value."""
    new = _commented(value)
    old_last, new_last = _last_item(parent[key]), _last_item(new)
    if old_last and new_last:
        tokens = old_last[0].ca.items.get(old_last[1])
        comment = tokens[_comment_slot(old_last[0])] if tokens else None
        if comment is not None:
            slots = new_last[0].ca.items.setdefault(new_last[1], [None] * 4)
            slots[_comment_slot(new_last[0])] = comment
    parent[key] = new


def _write(document: Any, editor: Any, path: Path) -> None:
    """Validate the new content (references resolved where possible), then write it atomically,
    keeping the file's mode."""
    import io

    buffer = io.StringIO()
    editor.dump(document, buffer)
    text = buffer.getvalue()
    _validate(text, f"{path} (unsaved)", path.parent, "lenient")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    write_atomic(path, text, mode=mode)


def _target(path: Path | None) -> Path:
    """The file to edit; a symlinked config (a dotfiles checkout) is edited where it points."""
    return Path(os.path.realpath(paths.config_file(path)))


def _refuse_foreign(contexts: Any, name: str, managed_by: str, path: Path) -> None:
    existing = contexts.get(name)
    if existing is not None and not (isinstance(existing, dict) and existing.get("managed-by") == managed_by):
        raise ConfigError(f"{path}: context '{name}' was not written by {managed_by}; not replacing it "
                          f"(rename it, or add 'managed-by: {managed_by}' to it to let {managed_by} rewrite it)")


def check_context_replaceable(name: str, managed_by: str, path: Path | None = None) -> None:
    """Refuse, before anything else happens, a context `name` that `managed_by` did not write."""
    target = _target(path)
    document, _ = _read_document(target)
    _refuse_foreign(_contexts_of(document, target), name, managed_by, target)


def save_context(name: str, context_data: dict, path: Path | None = None, *,
                 current: CurrentPolicy = "if-unset", managed_by: str | None = None) -> bool:
    """Add or replace one context, keeping the rest of the file as written (comments, key
    order, quoting, indentation, mode). `current`: make it current-context "always", only when
    the file names none ("if-unset"), or "never". With `managed_by`, the context is marked as
    that writer's (`managed-by:`) and a context of that name without the mark is refused.
    Returns whether `name` is the current context afterwards."""
    target = _target(path)
    document, editor = _read_document(target)
    contexts = _contexts_of(document, target)
    data = _plain(context_data)
    if managed_by is not None:
        _refuse_foreign(contexts, name, managed_by, target)
        data = {"managed-by": managed_by, **data}
    if name in contexts:
        _replace_keeping_what_follows(contexts, name, data)
    else:
        contexts[name] = _commented(data)
    key = _current_key(document)
    if current == "always" or (current == "if-unset" and not document.get(key)):
        if key in document:
            document[key] = name
        else:
            document.insert(0, key, name)
    _write(document, editor, target)
    return document.get(key) == name


def remove_context(name: str, path: Path | None = None) -> None:
    """Delete one context; unset current-context if it pointed at it."""
    target = _target(path)
    document, editor = _read_document(target)
    contexts = _contexts_of(document, target)
    if name not in contexts:
        raise ConfigError(f"no context '{name}' in {target} ({_known(contexts)})")
    del contexts[name]
    if document.get(_current_key(document)) == name:
        del document[_current_key(document)]
    _write(document, editor, target)
