"""The KRaft controller quorum, read with Kafka's own metadata-quorum tool.

librdkafka has no DescribeQuorum (KIP-595) admin call, so the tool class from the fetched Kafka
jars (org.apache.kafka.tools.MetadataQuorumCommand, what kafka-metadata-quorum.sh runs) is
started twice, in parallel: `describe --status` (leader, epoch, high watermark) and
`describe --replication` (each voter's and observer's log end, lag and role). Each costs a JVM
start (1-3 s), which is why `check` runs this only when asked (`--component quorum`).
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import subprocess
import tempfile
from pathlib import Path

from streamctl.backends.kafka.client import KafkaError
from streamctl.model.kafka import Quorum, QuorumNode

TOOL = "org.apache.kafka.tools.MetadataQuorumCommand"
NOT_KRAFT_HINTS = ("UnsupportedVersionException", "does not support DESCRIBE_QUORUM")


def describe_quorum(client_config: dict[str, str], timeout: float, tool_argv) -> Quorum:
    """The quorum as the tool reports it; KafkaError with one line when it cannot be read.
    `tool_argv(main_class, *args)`: the java command line for a class of the fetched jars."""
    with _command_config(client_config) as properties:
        base = tool_argv(TOOL, "--bootstrap-server", client_config["bootstrap.servers"],
                         *(("--command-config", properties) if properties else ()), "describe")
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            status, replication = pool.map(lambda part: _run([*base, part], timeout, client_config),
                                           ("--status", "--replication"))
    return parse_quorum(status, replication)


def parse_quorum(status: str, replication: str) -> Quorum:
    """The two outputs of the tool (Kafka 3.7 to 4.x formats) as one Quorum."""
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    try:
        leader = int(fields["LeaderId"])
        epoch, high_watermark = int(fields["LeaderEpoch"]), int(fields["HighWatermark"])
    except (KeyError, ValueError):
        raise KafkaError(f"metadata quorum: unexpected answer from {TOOL}: {status.strip()[:200]!r}") from None
    return Quorum(leader_id=leader if leader >= 0 else None, epoch=epoch, high_watermark=high_watermark,
                  nodes=tuple(_replication_rows(replication)))


def _replication_rows(text: str):
    lines = [line.split() for line in text.splitlines() if line.strip()]
    header = next((row for row in lines if row and row[0] == "NodeId"), None)
    if header is None:
        raise KafkaError(f"metadata quorum: unexpected replication answer: {text.strip()[:200]!r}")
    column = {name: i for i, name in enumerate(header)}
    for row in lines[lines.index(header) + 1:]:
        if len(row) != len(header):
            continue
        status = row[column["Status"]]
        yield QuorumNode(node_id=int(row[column["NodeId"]]), role=status.lower(),
                         log_end_offset=int(row[column["LogEndOffset"]]), lag=int(row[column["Lag"]]),
                         last_caught_up_ms=_timestamp(row[column["LastCaughtUpTimestamp"]]))


def _timestamp(value: str) -> int | None:
    return int(value) if value.lstrip("-").isdigit() and int(value) >= 0 else None


def _run(argv: list[str], timeout: float, client_config: dict[str, str]) -> str:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise KafkaError(f"metadata quorum: no answer within {timeout:g} s") from None
    if result.returncode != 0:
        output = (result.stderr + result.stdout).strip()
        if any(hint in output for hint in NOT_KRAFT_HINTS):
            raise KafkaError("metadata quorum: the cluster has no KRaft quorum (ZooKeeper mode)")
        if tls := _java_tls_reason(output, client_config):
            raise KafkaError(f"metadata quorum: {tls}")
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "no output")
        raise KafkaError(f"metadata quorum: {TOOL} failed: {last.strip()[:300]}")
    return result.stdout


def _java_tls_reason(output: str, config: dict[str, str]) -> str | None:
    """The Java client's TLS failure (javax.net.ssl's words) as a line naming the setting."""
    if "SslAuthenticationException" not in output and "SSLHandshakeException" not in output:
        return None
    if "PKIX path" in output or "unable to find valid certification path" in output:
        return ("TLS: the broker's certificate is not signed by the CA in kafka.properties.ssl.ca.location "
                "(PKIX path building failed)")
    if "No subject alternative" in output:
        return ("TLS: the broker's certificate does not name the host it was reached at (check its "
                "subjectAltName, or kafka.properties.ssl.endpoint.identification.algorithm)")
    if "certificate_required" in output or "bad_certificate" in output or "unknown_ca" in output:
        if not config.get("ssl.certificate.location") and not config.get("ssl.certificate.pem"):
            return "TLS: kafka.properties.ssl.certificate.location not set: the broker requires a client certificate"
        return ("TLS: the broker refused the client certificate (check kafka.properties.ssl.certificate.location "
                "and ssl.key.location)")
    return "TLS: the handshake with the broker failed (check kafka.properties.security.protocol and ssl.*)"


class _command_config:
    """The Java client properties the librdkafka config implies, in a 0600 file for the tool's
    --command-config (None when plaintext needs none); removed afterwards."""

    def __init__(self, client_config: dict[str, str]):
        self.properties = java_client_properties(client_config)
        self.path: str | None = None

    def __enter__(self) -> str | None:
        if not self.properties:
            return None
        fd, self.path = tempfile.mkstemp(prefix="streamctl-quorum-", suffix=".properties")
        with os.fdopen(fd, "w") as handle:  # mkstemp creates it 0600
            handle.writelines(f"{key}={_escaped(value)}\n" for key, value in self.properties.items())
        return self.path

    def __exit__(self, *exc) -> None:
        if self.path:
            os.unlink(self.path)


JAAS_MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
                "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
                "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}


def java_client_properties(config: dict[str, str]) -> dict[str, str]:
    """librdkafka's security settings in the Java client's terms (SASL PLAIN/SCRAM, TLS with a
    PEM CA file); others are refused by name rather than silently dropped."""
    protocol = config.get("security.protocol", "plaintext").upper()
    if protocol == "PLAINTEXT":
        return {}
    properties = {"security.protocol": protocol}
    if protocol.startswith("SASL"):
        mechanism = config.get("sasl.mechanism", config.get("sasl.mechanisms", "GSSAPI")).upper()
        if mechanism not in JAAS_MODULES:
            raise KafkaError(f"metadata quorum: SASL mechanism {mechanism} is not supported here "
                             "(PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)")
        username, password = (config.get("sasl.username", ""), config.get("sasl.password", ""))
        escape = lambda text: text.replace("\\", "\\\\").replace('"', '\\"')  # noqa: E731
        properties["sasl.mechanism"] = mechanism
        properties["sasl.jaas.config"] = (f'{JAAS_MODULES[mechanism]} required username="{escape(username)}" '
                                          f'password="{escape(password)}";')
    if "SSL" in protocol:
        properties |= _java_tls(config)
    return properties


def _java_tls(config: dict[str, str]) -> dict[str, str]:
    """TLS: the CA file as a PEM truststore; the client certificate and key (for brokers that
    require one) as an inline PEM keystore, which Java takes without a key password where its
    file form requires one. Kafka reads PKCS#8 keys only ('BEGIN PRIVATE KEY')."""
    properties: dict[str, str] = {}
    if "ssl.ca.location" in config:
        properties |= {"ssl.truststore.type": "PEM", "ssl.truststore.location": config["ssl.ca.location"]}
    elif "ssl.ca.pem" in config:
        properties |= {"ssl.truststore.type": "PEM", "ssl.truststore.certificates": config["ssl.ca.pem"]}
    if config.get("ssl.endpoint.identification.algorithm", "https").lower() == "none":
        properties["ssl.endpoint.identification.algorithm"] = ""
    cert = config.get("ssl.certificate.location")
    if cert:
        key = config.get("ssl.key.location", cert)  # one PEM file may hold both
        chain, key_pem = _pem(cert, "ssl.certificate.location"), _pem(key, "ssl.key.location")
    elif "ssl.certificate.pem" in config:
        key, chain, key_pem = "ssl.key.pem", config["ssl.certificate.pem"], config.get("ssl.key.pem", "")
    else:
        return properties
    blocks = _PRIVATE_KEY.findall(key_pem)
    if not blocks:
        raise KafkaError(f"kafka.properties.ssl.key.location: {key}: no PEM private key in it")
    if (kind := blocks[0].strip()) not in ("PRIVATE KEY", "ENCRYPTED PRIVATE KEY"):
        raise KafkaError(f"kafka.properties.ssl.key.location: {key}: a {kind}: Kafka's Java tools read PKCS#8 "
                         "keys only (convert it with `openssl pkcs8 -topk8 -in KEY -out KEY8`)")
    properties |= {"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": chain,
                   "ssl.keystore.key": key_pem}
    if config.get("ssl.key.password"):
        properties["ssl.key.password"] = config["ssl.key.password"]
    return properties


_PRIVATE_KEY = re.compile(r"-----BEGIN ([A-Z ]*PRIVATE KEY)-----")


def _pem(path: str, setting: str) -> str:
    try:
        return Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not PEM text"
        raise KafkaError(f"kafka.properties.{setting}: {path}: {why}") from None


def _escaped(value: str) -> str:
    """A value as java.util.Properties reads it back (backslashes, line breaks, leading blanks)."""
    value = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "\\" + value if value[:1] in (" ", "\t") else value
