"""Mutual TLS against a real broker and a real Connect worker: one KRaft `sandbox up --tls` (one
broker with an SSL listener, ssl.client.auth=required, and the Connect add-on alone: its worker
talks to that listener and serves its REST API over HTTPS only, requiring a client certificate)
for the module.

check, the resource commands, Kafka's own metadata-quorum tool (a JVM) and the Connect commands
work through the `sandbox-tls` context's client certificate; without one, or with a wrong CA,
the command fails in one line naming the setting.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import yaml

from streamctl.backends.kafka.cluster import KafkaBackend
from streamctl.demo import connect_worker
from streamctl.sandbox import tls as sandbox_tls
from streamctl.sandbox.stack import Sandbox
from tests.conftest import RunningSandbox, run_cli
from tests.jvm_guard import service_fixture
from tests.security.helpers import one_error_line, unique


class TlsSandbox:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.config_path = tmp / "config" / "streamctl" / "config.yaml"
        self.sandbox = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=self.config_path)

    @property
    def root(self) -> Path:
        return self.sandbox.root

    def env(self, config: Path | None = None) -> dict[str, str]:
        return {**os.environ, "XDG_STATE_HOME": str(self.tmp / "state"),
                "XDG_CONFIG_HOME": str(self.tmp / "config"), "STREAMCTL_CONFIG": str(config or self.config_path)}

    def cli(self, *args: str, config: Path | None = None, timeout: float = 120):
        return run_cli(*args, env=self.env(config), timeout=timeout)

    def context(self, name: str = sandbox_tls.CONTEXT) -> dict:
        return yaml.safe_load(self.config_path.read_text())["contexts"][name]

    def config_with(self, path: Path, **kafka_properties) -> Path:
        """A config whose one context `it` is sandbox-tls with these properties changed (None: unset)."""
        context = self.context()
        props = {**context["kafka"]["properties"], **kafka_properties}
        context["kafka"]["properties"] = {k: v for k, v in props.items() if v is not None}
        context["kafka"]["timeout"] = 3.0
        path.write_text(yaml.safe_dump({"current-context": "it", "contexts": {"it": context}}))
        return path

    def config_with_connect(self, path: Path, **connect_settings) -> Path:
        """A config whose one context `it` is sandbox-tls with these connect settings changed (None: unset)."""
        context = self.context()
        settings = {**context["connect"], "timeout": 5.0, **connect_settings}
        context["connect"] = {k: v for k, v in settings.items() if v is not None}
        path.write_text(yaml.safe_dump({"current-context": "it", "contexts": {"it": context}}))
        return path


@service_fixture(scope="module")
def tls(tmp_path_factory):
    sb = TlsSandbox(tmp_path_factory.mktemp("tls"))
    try:
        # Kafka and the Connect worker only (no Flume agent, no Spark job).
        state, _ = sb.sandbox.up(brokers=1, kraft=True, addon_roles=("connect",), tls=True)
        sb.state = state
        yield sb
    finally:
        sb.sandbox.down()


def test_the_sandbox_writes_a_client_certificate_context_and_keeps_keys_private(tls):
    props = tls.context()["kafka"]["properties"]
    assert props["security.protocol"] == "SSL"
    assert props["ssl.certificate.location"] == str(sandbox_tls.files(tls.root, "client")[0])
    assert tls.context()["kafka"]["bootstrap_servers"] == sandbox_tls.bootstrap_servers(tls.state)
    assert tls.context("sandbox")["kafka"]["bootstrap_servers"] == tls.state.bootstrap_servers  # plaintext kept
    for name in ("ca", "broker", "client"):
        assert stat.S_IMODE(sandbox_tls.files(tls.root, name)[1].stat().st_mode) == 0o600
    assert stat.S_IMODE((tls.root / "conf" / "kafka-1.properties").stat().st_mode) == 0o600


def test_check_brokers_and_topics_work_with_the_client_certificate(tls):
    topic = unique("tls")
    KafkaBackend({"bootstrap.servers": tls.state.bootstrap_servers}, timeout=10).create_topic(topic, 1, 1)
    # The new partitions get their leader within moments: wait for that over the plaintext listener.
    RunningSandbox.wait_until(lambda: tls.cli("--context", "sandbox", "check", "--component", "kafka").returncode == 0,
                              timeout=60, what="the plaintext check to be OK")
    check = tls.cli("--context", "sandbox-tls", "check", "--component", "kafka")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.startswith("STREAMCTL OK: kafka OK")
    brokers = tls.cli("--context", "sandbox-tls", "brokers", "-o", "json")
    assert brokers.returncode == 0, brokers.stderr
    assert [b["port"] for b in json.loads(brokers.stdout)["brokers"]] == \
        [int(sandbox_tls.bootstrap_servers(tls.state).rsplit(":", 1)[1])]
    topics = tls.cli("--context", "sandbox-tls", "topics", "list")
    assert topics.returncode == 0, topics.stderr
    assert topic in topics.stdout


def test_the_jvm_quorum_tool_works_with_the_client_certificate(tls):
    result = tls.cli("--context", "sandbox-tls", "check", "--component", "quorum", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    metrics = {m["name"]: m["value"] for m in json.loads(result.stdout)["metrics"]}
    assert metrics["kafka_quorum_has_leader"] == 1


def test_without_a_client_certificate_the_broker_refuses_in_one_line(tls, tmp_path):
    config = tls.config_with(tmp_path / "c.yaml", **{"ssl.certificate.location": None, "ssl.key.location": None})
    result = tls.cli("brokers", config=config)
    assert result.returncode != 0
    assert "ssl.certificate.location not set: the broker requires a client certificate" in one_error_line(result)
    quorum = tls.cli("check", "--component", "quorum", config=config)  # the JVM tool says the same
    assert quorum.returncode == 3
    assert quorum.stdout.startswith("STREAMCTL UNKNOWN: quorum not evaluated: metadata quorum: TLS: "
                                    "kafka.properties.ssl.certificate.location not set"), quorum.stdout


def test_a_wrong_ca_path_names_the_setting_and_the_path(tls, tmp_path):
    missing = tmp_path / "no-such-ca.pem"
    kafka = tls.config_with(tmp_path / "k.yaml", **{"ssl.ca.location": str(missing)})
    connect = tls.config_with_connect(tmp_path / "c.yaml", ca=str(missing))
    for config, args, setting in ((kafka, ("brokers",), "kafka.properties.ssl.ca.location"),
                                  (kafka, ("check", "--component", "quorum"), "kafka.properties.ssl.ca.location"),
                                  (connect, ("connect", "list"), "connect.ca")):
        result = tls.cli(*args, config=config)
        assert result.returncode == 3, result.stdout + result.stderr
        line = one_error_line(result)
        assert line.endswith(f"contexts.it.{setting}: {missing}: no such file"), line


def test_a_ca_that_did_not_sign_the_broker_names_ssl_ca_location(tls, tmp_path):
    other = tmp_path / "other"
    sandbox_tls.ensure_certificates(other)
    other_ca = sandbox_tls.files(other, "ca")[0]
    config = tls.config_with(tmp_path / "c.yaml", **{"ssl.ca.location": str(other_ca)})
    result = tls.cli("brokers", config=config)
    assert result.returncode != 0
    line = one_error_line(result)
    assert f"not signed by the CA in kafka.properties.ssl.ca.location ({other_ca})" in line, line
    quorum = tls.cli("check", "--component", "quorum", config=config)
    assert "not signed by the CA in kafka.properties.ssl.ca.location" in quorum.stdout, quorum.stdout


# ---- Connect over HTTPS with a client certificate ---------------------------------------------------

def test_both_contexts_reach_the_https_worker_with_the_client_certificate(tls):
    worker_url = connect_worker.url(tls.state)
    assert worker_url is not None and worker_url.startswith("https://127.0.0.1:")
    for name in ("sandbox", sandbox_tls.CONTEXT):
        assert tls.context(name)["connect"] == {"urls": [worker_url], "timeout": 10.0,
                                                **sandbox_tls.connect_client(tls.root)}
    properties = (tls.root / "conf" / "connect.properties").read_text()
    assert "listeners.https.ssl.client.auth=required\n" in properties
    assert f"bootstrap.servers={sandbox_tls.bootstrap_servers(tls.state)}\n" in properties
    assert stat.S_IMODE((tls.root / "conf" / "connect.properties").stat().st_mode) == 0o600


def test_connect_over_https_with_a_client_certificate(tls, tmp_path):
    name = unique("tls-sink")
    connector = tmp_path / "sink.json"
    connector.write_text(json.dumps({"config": {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasks.max": "1",
        "topics": connect_worker.DEMO_TOPIC, "file": str(tmp_path / "out.txt")}}))
    created = tls.cli("--context", sandbox_tls.CONTEXT, "connect", "create", name, "--config", str(connector),
                      "--execute")
    assert created.returncode == 0, created.stdout + created.stderr

    def states() -> tuple[str, list[str]] | None:
        status = tls.cli("--context", sandbox_tls.CONTEXT, "connect", "status", name, "-o", "json")
        if status.returncode != 0:  # just created: the worker may not have its status yet
            return None
        answer = json.loads(status.stdout)
        return answer["state"], [t["state"] for t in answer["task_states"]]

    RunningSandbox.wait_until(lambda: states() == ("RUNNING", ["RUNNING"]), timeout=60,
                              what="the new sink and its task to run")
    listed = tls.cli("--context", sandbox_tls.CONTEXT, "connect", "list", "-o", "json")
    assert listed.returncode == 0, listed.stderr
    cluster = json.loads(listed.stdout)
    assert cluster["url"] == connect_worker.url(tls.state)
    assert {connect_worker.DEMO_CONNECTOR, name} <= {c["name"] for c in cluster["connectors"]}
    check = tls.cli("--context", sandbox_tls.CONTEXT, "check", "--component", "connect")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.startswith("STREAMCTL OK: connect OK"), check.stdout


def test_without_a_trusted_client_certificate_the_worker_refuses_in_one_line(tls, tmp_path):
    config = tls.config_with_connect(tmp_path / "c.yaml", client_cert=None, client_key=None)
    refused = tls.cli("connect", "list", config=config)
    assert refused.returncode != 0
    assert "connect.client_cert not set: the worker requires a client certificate" in one_error_line(refused)
    other = tmp_path / "other"  # a client certificate from a CA the worker does not trust
    sandbox_tls.ensure_certificates(other)
    cert, key = sandbox_tls.files(other, "client")
    config = tls.config_with_connect(tmp_path / "c2.yaml", client_cert=str(cert), client_key=str(key))
    untrusted = tls.cli("connect", "list", config=config)
    assert untrusted.returncode != 0
    assert "the worker refused the client certificate in connect.client_cert" in one_error_line(untrusted)


def test_a_ca_that_did_not_sign_the_worker_names_connect_ca(tls, tmp_path):
    other = tmp_path / "other"
    sandbox_tls.ensure_certificates(other)
    config = tls.config_with_connect(tmp_path / "c.yaml", ca=str(sandbox_tls.files(other, "ca")[0]))
    result = tls.cli("connect", "list", config=config)
    assert result.returncode != 0
    assert "the worker's certificate is not signed by the CA in connect.ca" in one_error_line(result)
