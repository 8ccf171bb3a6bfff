"""A context's `zookeeper` section: the ensemble, its authentication and TLS."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, SecretStr, field_validator

from streamctl.settings_types import HttpUrl, SettingsModel, UserPath


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


class ZooKeeperAuth(SettingsModel):
    """ZooKeeper authentication (kazoo `auth_data`)."""

    scheme: str = "digest"
    """Auth scheme, usually 'digest'."""
    credential: SecretStr
    """Scheme credential, e.g. 'user:password' for digest."""


class ZooKeeperSasl(SettingsModel):
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


class ZooKeeperTls(SettingsModel):
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


class ZooKeeperSettings(SettingsModel):
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
