"""The kafka-python route's settings: a context's librdkafka config translated, or refused in one line."""

from __future__ import annotations

import pytest

from streamctl.backends.kafka.wire import WireError, kafka_python_config


def test_scram_over_tls_translates_every_setting():
    config = kafka_python_config({
        "bootstrap.servers": "k1:9093,k2:9093", "security.protocol": "sasl_ssl",
        "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "ops", "sasl.password": "pw",
        "ssl.ca.location": "/etc/ca.pem", "ssl.endpoint.identification.algorithm": "none",
        "socket.timeout.ms": "30000"}, timeout=4.0)
    assert config["bootstrap_servers"] == "k1:9093,k2:9093" and config["security_protocol"] == "SASL_SSL"
    assert config["sasl_plain_username"] == "ops" and config["ssl_cafile"] == "/etc/ca.pem"
    assert config["ssl_check_hostname"] is False
    assert config["request_timeout_ms"] == config["bootstrap_timeout_ms"] == 4000


@pytest.mark.parametrize("key, value, says", [
    ("sasl.mechanism", "GSSAPI", "PLAIN and SCRAM only"),
    ("enable.ssl.certificate.verification", "false", "always verifies"),
    ("sasl.oauthbearer.method", "oidc", "sasl.oauthbearer.method: not supported"),
])
def test_what_kafka_python_cannot_honour_is_one_line(key, value, says):
    with pytest.raises(WireError, match=says) as raised:
        kafka_python_config({"bootstrap.servers": "k:9092", key: value}, timeout=5.0)
    assert "\n" not in str(raised.value)
