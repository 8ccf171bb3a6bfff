"""TLS settings: certificate paths checked at load (errors name file, line, key and path), the
Java tools' PEM keystore, OpenSSL errors turned into lines naming the setting, Connect's TLS."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from streamctl.backends.connect import ConnectError, ConnectTls, tls_context
from streamctl.backends.kafka.client import KafkaError, tls_reason
from streamctl.backends.kafka.quorum import _command_config, java_client_properties
from streamctl.config import ConfigError, load_config
from streamctl.sandbox import tls as sandbox_tls


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A CA, a broker and a client certificate, made as the --tls sandbox makes them."""
    root = tmp_path_factory.mktemp("tls")
    sandbox_tls.ensure_certificates(root)
    return root


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def two_contexts(tmp_path: Path, ca: str, cert: str = "client.pem") -> Path:
    return write(tmp_path / "config.yaml", f"""\
        current-context: prod
        contexts:
          prod:
            kafka:
              bootstrap_servers: b:9093
              properties:
                security.protocol: SSL
                ssl.ca.location: {ca}
                ssl.certificate.location: {cert}
          other:
            kafka:
              bootstrap_servers: b:9092
        """)


def test_a_missing_ca_names_file_line_key_and_path_and_spares_other_contexts(tmp_path):
    path = two_contexts(tmp_path, "/etc/kafka/ca.pem")
    config = load_config(path)
    with pytest.raises(ConfigError) as raised:
        config.context("prod")
    assert str(raised.value) == (f"{path}:8: contexts.prod.kafka.properties.ssl.ca.location: "
                                 "/etc/kafka/ca.pem: no such file")
    assert config.context("other").kafka.bootstrap_servers == "b:9092"


def test_relative_paths_are_next_to_the_config_file(tmp_path, certs, monkeypatch):
    for name in ("ca.pem", "client.pem"):
        (tmp_path / name).write_bytes((certs / "tls" / name).read_bytes())
    monkeypatch.chdir("/")
    props = load_config(two_contexts(tmp_path, "ca.pem")).context("prod").kafka.properties
    assert props["ssl.ca.location"] == str(tmp_path / "ca.pem")
    assert props["ssl.certificate.location"] == str(tmp_path / "client.pem")


def test_a_folder_is_a_ca_path_but_not_a_certificate(tmp_path, certs):
    config = load_config(two_contexts(tmp_path, str(certs / "tls"), cert=str(tmp_path)))
    with pytest.raises(ConfigError, match=r":9: contexts.prod.kafka.properties.ssl.certificate.location: "
                                          rf"{tmp_path}: is a folder, not a file$"):
        config.context("prod")


def test_connect_tls_paths_are_checked_too(tmp_path, certs):
    path = write(tmp_path / "c.yaml", f"""\
        contexts:
          prod:
            kafka: {{bootstrap_servers: "b:9092"}}
            connect:
              urls: [https://connect:8443]
              ca: {certs / "tls" / "ca.pem"}
              client_cert: {tmp_path / "nope.pem"}
        """)
    with pytest.raises(ConfigError) as raised:
        load_config(path).context("prod")
    assert str(raised.value) == f"{path}:7: contexts.prod.connect.client_cert: {tmp_path / 'nope.pem'}: no such file"


def test_a_connect_key_needs_its_certificate(tmp_path):
    path = write(tmp_path / "c.yaml", """\
        contexts:
          prod:
            kafka: {bootstrap_servers: "b:9092"}
            connect: {urls: ["https://connect:8443"], client_key: k.pem}
        """)
    with pytest.raises(ConfigError, match=r":4: contexts\.prod\.connect: client_key needs client_cert"):
        load_config(path)


# ---- the Java tools -----------------------------------------------------------------------------

def client_config(certs: Path, **more: str) -> dict[str, str]:
    return {"bootstrap.servers": "127.0.0.1:9093", **sandbox_tls.client_properties(certs), **more}


def test_the_client_certificate_reaches_the_java_tools_as_a_pem_keystore(certs):
    properties = java_client_properties(client_config(certs))
    cert, key = sandbox_tls.files(certs, "client")
    assert properties["security.protocol"] == "SSL"
    assert properties["ssl.truststore.type"] == properties["ssl.keystore.type"] == "PEM"
    assert properties["ssl.truststore.location"] == str(sandbox_tls.files(certs, "ca")[0])
    assert properties["ssl.keystore.certificate.chain"] == cert.read_text()
    assert properties["ssl.keystore.key"] == key.read_text()
    assert "ssl.key.password" not in properties


def test_the_command_config_file_is_private_and_java_readable(certs):
    """Java's Properties format: line breaks escaped, so the PEM values survive the file; the file
    holding the key is 0600 and gone afterwards."""
    with _command_config(client_config(certs, **{"ssl.key.password": "a\\b"})) as path:
        assert os.stat(path).st_mode & 0o777 == 0o600
        text = Path(path).read_text()
    assert not os.path.exists(path)
    lines = dict(line.split("=", 1) for line in text.splitlines())
    assert lines["ssl.keystore.key"].startswith("-----BEGIN PRIVATE KEY-----\\n")
    assert lines["ssl.key.password"] == "a\\\\b"


def test_a_pkcs1_key_is_refused_by_name_with_the_fix(certs, tmp_path):
    rsa_key = tmp_path / "rsa.key"
    subprocess.run(["openssl", "pkey", "-in", str(sandbox_tls.files(certs, "client")[1]), "-traditional",
                    "-out", str(rsa_key)], check=True, capture_output=True)
    with pytest.raises(KafkaError, match=rf"^kafka.properties.ssl.key.location: {rsa_key}: a RSA PRIVATE KEY: "
                                         r".*openssl pkcs8 -topk8"):
        java_client_properties(client_config(certs, **{"ssl.key.location": str(rsa_key)}))


# ---- OpenSSL errors -> the setting to look at (messages as librdkafka 2.x reports them) ------------

VERIFY_FAILED = ("ssl://127.0.0.1:40123/bootstrap: SSL handshake failed: error:0A000086:SSL routines::"
                 "certificate verify failed: broker certificate could not be verified, verify that "
                 "ssl.ca.location is correctly configured or root CA certificates are installed "
                 "(install ca-certificates package) (after 4ms in state SSL_HANDSHAKE)")
CERT_REQUIRED = ("ssl://127.0.0.1:40123/bootstrap: SSL handshake failed: error:0A00045C:SSL routines::"
                 "tlsv13 alert certificate required: SSL alert number 116 (after 3ms in state SSL_HANDSHAKE)")


def test_a_ca_mismatch_names_ssl_ca_location():
    line = tls_reason(VERIFY_FAILED, {"ssl.ca.location": "/etc/kafka/ca.pem"})
    assert line == ("TLS: the broker's certificate is not signed by the CA in kafka.properties.ssl.ca.location "
                    "(/etc/kafka/ca.pem) (certificate verify failed)")


def test_a_missing_client_certificate_names_ssl_certificate_location():
    assert tls_reason(CERT_REQUIRED, {"ssl.ca.location": "/ca.pem"}) == (
        "TLS: kafka.properties.ssl.certificate.location not set: the broker requires a client certificate")
    refused = tls_reason(CERT_REQUIRED.replace("certificate required", "unknown ca"),
                         {"ssl.certificate.location": "/c.pem"})
    assert refused.startswith("TLS: the broker refused the client certificate in "
                              "kafka.properties.ssl.certificate.location (/c.pem)")


def test_other_errors_are_no_tls_failure():
    assert tls_reason("127.0.0.1:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused", {}) \
        is None


# ---- Connect ------------------------------------------------------------------------------------

def test_connect_tls_context_names_the_setting_of_a_bad_file(certs, tmp_path):
    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("not a certificate\n")
    with pytest.raises(ConnectError, match=rf"^connect.ca: {not_pem}: "):
        tls_context(ConnectTls(ca=str(not_pem)))
    cert, _ = sandbox_tls.files(certs, "client")
    wrong_key = sandbox_tls.files(certs, "broker")[1]
    with pytest.raises(ConnectError, match=rf"^connect.client_key: {wrong_key}: .*mismatch"):
        tls_context(ConnectTls(client_cert=str(cert), client_key=str(wrong_key)))
    assert tls_context(ConnectTls(ca=str(sandbox_tls.files(certs, "ca")[0]), client_cert=str(cert),
                                  client_key=str(sandbox_tls.files(certs, "client")[1])))


def test_a_key_that_does_not_match_the_certificate_names_ssl_key_location(certs):
    """librdkafka loads the files when the client is made: its OpenSSL error, after the setting."""
    from confluent_kafka.admin import AdminClient

    from streamctl.backends.kafka.client import new_client
    from streamctl.errors import UsageError

    wrong_key = sandbox_tls.files(certs, "broker")[1]
    with pytest.raises(UsageError) as raised:
        new_client(AdminClient, client_config(certs, **{"ssl.key.location": str(wrong_key)}))
    assert str(raised.value) == f"kafka.properties.ssl.key.location: {wrong_key}: key values mismatch"


@pytest.mark.parametrize("kraft", [False, True])
def test_the_sandbox_broker_gains_an_ssl_listener_requiring_client_certificates(certs, kraft):
    from streamctl.sandbox import server_configs
    from streamctl.sandbox.state import SandboxState, Service

    broker = Service("kafka-1", "broker", 9092, [], "log", node_id=1, controller_port=9093 if kraft else None)
    zookeeper = [] if kraft else [Service("zookeeper", "zookeeper", 2181, [], "log")]
    state = SandboxState(mode="kraft" if kraft else "zookeeper", brokers=1, services=[*zookeeper, broker],
                         extras={"tls_ports": {"1": 9443}})
    lines = dict(line.split("=", 1) for line in server_configs.broker_properties(certs, broker, state).splitlines())
    assert lines["listeners"].startswith("PLAINTEXT://127.0.0.1:9092,") and \
        lines["listeners"].endswith(",SSL://127.0.0.1:9443")
    assert lines["advertised.listeners"] == "PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9443"
    assert lines["listener.name.ssl.ssl.client.auth"] == "required"
    assert lines["listener.name.ssl.ssl.keystore.type"] == "PEM"
    assert lines["listener.name.ssl.ssl.keystore.key"].startswith("-----BEGIN PRIVATE KEY-----\\n")
    assert "\n" not in lines["listener.name.ssl.ssl.keystore.certificate.chain"]
    assert ("SSL:SSL" in lines["listener.security.protocol.map"]) if kraft else \
        ("listener.security.protocol.map" not in lines)  # ZooKeeper mode: Kafka's default map has SSL
    assert sandbox_tls.bootstrap_servers(state) == "127.0.0.1:9443"


def test_the_sandbox_connect_worker_serves_https_requiring_client_certificates(tmp_path):
    from streamctl.demo import connect_worker
    from streamctl.sandbox.state import SandboxState, Service

    broker = Service("kafka-1", "broker", 9092, [], "log", node_id=1, controller_port=9093)
    worker = Service("connect", "connect", 8443, [], "log")
    state = SandboxState(mode="kraft", brokers=1, services=[broker, worker], extras={"tls_ports": {"1": 9443}})
    stores = (tmp_path / "k.p12", tmp_path / "t.p12", "pw")
    text = connect_worker.worker_properties(tmp_path, state, 8443, tmp_path / "plugins", stores)
    lines = dict(line.split("=", 1) for line in text.splitlines())
    assert lines["listeners"] == "https://127.0.0.1:8443"
    assert lines["listeners.https.ssl.client.auth"] == "required"  # the name RestServerConfig reads
    assert lines["listeners.https.ssl.truststore.location"] == str(tmp_path / "t.p12")
    assert lines["bootstrap.servers"] == "127.0.0.1:9443"  # the brokers' mutual-TLS listener
    for prefix in ("", "producer.", "consumer.", "admin."):
        assert lines[prefix + "security.protocol"] == "SSL"
        assert lines[prefix + "ssl.keystore.location"] == str(tmp_path / "k.p12")
    assert connect_worker.url(state) == "https://127.0.0.1:8443"
