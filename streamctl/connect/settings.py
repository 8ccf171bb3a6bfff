"""A context's `connect` section: the Kafka Connect cluster's REST API."""

from __future__ import annotations

from pydantic import Field, SecretStr, model_validator

from streamctl.settings_types import HttpUrl, SettingsModel, UserPath

# Fields naming a PEM file the REST client reads (the CA may be a folder of them).
TLS_FILE_FIELDS = ("ca", "client_cert", "client_key")


class ConnectAuth(SettingsModel):
    """HTTP basic auth for the Connect REST API."""

    username: str
    password: str
    """Use a '${file:...}' or '${env:...}' reference rather than the password itself."""


class ConnectSettings(SettingsModel):
    """Kafka Connect workers (optional): any worker of a cluster answers for all of it."""

    urls: list[HttpUrl] = Field(min_length=1)
    """REST URLs of the cluster's workers, e.g. ['http://connect-1:8083']; the first that answers is used."""
    auth: ConnectAuth | None = None
    """Basic auth, if the REST API requires it."""
    ca: UserPath | None = None
    """CA bundle (PEM) that signed the workers' HTTPS certificates (default: the system's CAs)."""
    client_cert: UserPath | None = None
    """Client certificate (PEM) for workers that require one (`listeners.https.ssl.client.auth=required`);
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
