"""The secure sandboxes (`sandbox up --secure`) for the security tests: `secure`, ZooKeeper + 1
broker, for every module; `secure_kraft`, 1 KRaft node, for what holds in both modes
(test_monitor_acls.py runs on both, each started once a session).

Its own tmp root and XDG dirs: the sandbox lives under XDG_STATE_HOME like the CLI's own
(`streamctl sandbox status` sees it), so a scan of the state dir covers its logs and files.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from streamctl.sandbox.secure import MONITOR_USER, Secrets, client_properties, secret_names
from streamctl.sandbox.stack import Sandbox
from streamctl.sandbox.state import SandboxState
from tests.conftest import run_cli
from tests.jvm_guard import service_fixture

WRONG_PASSWORD = "wr0ng-Passw0rd-7d1e"  # also a secret: it must not show up anywhere either
KAFKA_TIMEOUT = 3.0  # the test contexts' per-call timeout: a refused login answers within it


@dataclass
class SecureSandbox:
    sandbox: Sandbox
    state: SandboxState
    tmp: Path
    xdg_state: Path
    xdg_config: Path

    @property
    def root(self) -> Path:
        return self.sandbox.root

    @property
    def config_path(self) -> Path:
        """The config file holding the `sandbox` context the sandbox wrote."""
        return self.sandbox.config_path

    @property
    def bootstrap_servers(self) -> str:
        return self.state.bootstrap_servers

    @property
    def zookeeper_hosts(self) -> str | None:
        return self.state.zookeeper_hosts

    @property
    def kraft(self) -> bool:
        return self.state.mode == "kraft"

    def password(self, name: str) -> str:
        return Secrets(self.root).get(name)

    def secrets(self) -> list[str]:
        """Every password of the sandbox, and the wrong one the tests use."""
        return [self.password(name) for name in secret_names(self.kraft)] + [WRONG_PASSWORD]

    def kafka_client(self) -> dict[str, str]:
        return {"bootstrap.servers": self.bootstrap_servers, **client_properties(self.root)}

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "XDG_STATE_HOME": str(self.xdg_state), "XDG_CONFIG_HOME": str(self.xdg_config),
                "STREAMCTL_CONFIG": str(self.config_path), **extra}

    def password_env(self, kafka: str | None = None, zookeeper: str | None = None) -> dict[str, str]:
        """KAFKA_PASSWORD and ZK_PASSWORD for the `${ENV}` references of `write_context`."""
        env = {"KAFKA_PASSWORD": kafka if kafka is not None else self.password("kafka-streamctl")}
        if not self.kraft:  # a KRaft sandbox has no ZooKeeper
            env["ZK_PASSWORD"] = zookeeper if zookeeper is not None else self.password("zookeeper-streamctl")
        return env

    def monitor_env(self) -> dict[str, str]:
        """`password_env` with the `monitor` user's Kafka password, for `write_monitor_context`."""
        return self.password_env(kafka=self.password("kafka-monitor"))

    def write_monitor_context(self, path: Path) -> Path:
        """`write_context` logged in to Kafka as `monitor`, not read-only: the brokers' ACLs decide."""
        return self.write_context(path, kafka_sasl={
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": MONITOR_USER, "sasl.password": "${KAFKA_PASSWORD}"})

    def cli(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
        return run_cli(*args, env=self.env(**env), timeout=timeout)

    def timed_cli(self, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, float]:
        started = time.monotonic()
        result = self.cli(*args, **env)
        return result, time.monotonic() - started

    def write_context(self, path: Path, kafka_sasl: dict | None = None, zookeeper_sasl: dict | None = None,
                      **context) -> Path:
        """A config file whose one context `it` takes both passwords from `${ENV}` references
        (KAFKA_PASSWORD, ZK_PASSWORD); pass {} for `*_sasl` to leave credentials out. A KRaft
        sandbox's context has no zookeeper section."""
        if kafka_sasl is None:
            kafka_sasl = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
                          "sasl.username": "streamctl", "sasl.password": "${KAFKA_PASSWORD}"}
        if zookeeper_sasl is None:
            zookeeper_sasl = {"mechanism": "DIGEST-MD5", "username": "streamctl", "password": "${ZK_PASSWORD}"}
        kafka = {"bootstrap_servers": self.bootstrap_servers, "expected_brokers": 1,
                 "timeout": KAFKA_TIMEOUT, "properties": kafka_sasl}
        zookeeper = {"hosts": self.zookeeper_hosts, "timeout": KAFKA_TIMEOUT,
                     **({"sasl": zookeeper_sasl} if zookeeper_sasl else {})}
        sections = {"kafka": kafka} if self.kraft else {"kafka": kafka, "zookeeper": zookeeper}
        data = {"current-context": "it", "contexts": {"it": {**sections, **context}}}
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        return path


MODES = {"zookeeper": "secure_zookeeper", "kraft": "secure_kraft"}  # sandbox mode -> its fixture


def start_secure(tmp_path_factory, kraft: bool):
    tmp: Path = tmp_path_factory.mktemp("secure-kraft" if kraft else "secure")
    xdg_state, xdg_config = tmp / "state", tmp / "config"
    sb = Sandbox(root=xdg_state / "streamctl" / "sandbox", config_path=xdg_config / "streamctl" / "config.yaml")
    try:
        state, _ = sb.up(brokers=1, kraft=kraft, secure=True)
        yield SecureSandbox(sb, state, tmp, xdg_state, xdg_config)
    finally:
        sb.down()


@service_fixture(scope="session")
def secure_zookeeper(tmp_path_factory) -> SecureSandbox:
    yield from start_secure(tmp_path_factory, kraft=False)


@service_fixture(scope="session")
def secure(secure_zookeeper) -> SecureSandbox:
    """The ZooKeeper-mode one; a module that runs in both modes overrides this name with a
    fixture parametrized over MODES."""
    return secure_zookeeper


@service_fixture(scope="session")
def secure_kraft(tmp_path_factory) -> SecureSandbox:
    yield from start_secure(tmp_path_factory, kraft=True)
