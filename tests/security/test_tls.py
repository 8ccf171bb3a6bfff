"""Mutual TLS against a real broker: one KRaft `sandbox up --tls --kafka-only` (one broker, an SSL
listener with ssl.client.auth=required) for the module.

check, the resource commands and Kafka's own metadata-quorum tool (a JVM) work through the
`sandbox-tls` context's client certificate; without one, or with a wrong CA, the command fails
in one line naming the setting. Connect over HTTPS is tested against a loopback HTTPS server
made here with Python's ssl module (client certificates required), answering as a Connect
worker does: the sandbox's Connect worker listens on plain HTTP.
"""

from __future__ import annotations

import http.server
import json
import os
import ssl
import stat
import threading
from pathlib import Path

import pytest
import yaml

from streamctl.backends.kafka.cluster import KafkaBackend
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


@service_fixture(scope="module")
def tls(tmp_path_factory):
    sb = TlsSandbox(tmp_path_factory.mktemp("tls"))
    try:
        state, _ = sb.sandbox.up(brokers=1, kraft=True, with_addons=False, tls=True)
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
    config = tls.config_with(tmp_path / "c.yaml", **{"ssl.ca.location": str(missing)})
    for args in (("brokers",), ("check", "--component", "quorum")):
        result = tls.cli(*args, config=config)
        assert result.returncode == 3, result.stdout + result.stderr
        line = one_error_line(result)
        assert line.endswith(f"contexts.it.kafka.properties.ssl.ca.location: {missing}: no such file"), line


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


# ---- Connect over HTTPS with a client certificate --------------------------------------------------

class _Worker(http.server.BaseHTTPRequestHandler):
    """Answers as a Kafka Connect worker does: GET / and GET /connectors?expand=status&expand=info."""

    ANSWERS = {"/": {"version": "4.1.0", "commit": "tls", "kafka_cluster_id": "tls-cluster"},
               "/connectors": {"archive": {"status": {"name": "archive", "type": "sink",
                                                      "connector": {"state": "RUNNING", "worker_id": "w:1"},
                                                      "tasks": []},
                                           "info": {"name": "archive", "type": "sink", "config": {}}}}}

    def do_GET(self):  # http.server's name
        body = json.dumps(self.ANSWERS.get(self.path.split("?")[0], {})).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def https_worker(tls):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Worker)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*map(str, sandbox_tls.files(tls.root, "broker")))
    context.load_verify_locations(str(sandbox_tls.files(tls.root, "ca")[0]))
    context.verify_mode = ssl.CERT_REQUIRED
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_connect_over_https_with_a_client_certificate(tls, https_worker, tmp_path):
    context = tls.context()
    cert, key = sandbox_tls.files(tls.root, "client")
    context["connect"] = {"urls": [https_worker], "timeout": 5, "ca": str(sandbox_tls.files(tls.root, "ca")[0]),
                          "client_cert": str(cert), "client_key": str(key)}
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"current-context": "it", "contexts": {"it": context}}))
    result = tls.cli("connect", "list", config=config)
    assert result.returncode == 0, result.stderr
    assert "archive" in result.stdout and "RUNNING" in result.stdout

    del context["connect"]["client_cert"], context["connect"]["client_key"]
    config.write_text(yaml.safe_dump({"current-context": "it", "contexts": {"it": context}}))
    refused = tls.cli("connect", "list", config=config)
    assert refused.returncode != 0
    assert "connect.client_cert not set: the worker requires a client certificate" in one_error_line(refused)
