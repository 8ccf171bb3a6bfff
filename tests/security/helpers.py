"""Small helpers of the security tests: SASL clients for test data, SCRAM logins, one-line error checks."""

from __future__ import annotations

import uuid

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion

from streamctl.backends.kafka.cluster import KafkaBackend
from streamctl.sandbox.secure import SCRAM_MECHANISM
from tests.conftest import RunningSandbox


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def topic_with_group(secure, partitions: int = 1) -> tuple[str, str]:
    """A topic and a group that committed offset 0 on it, through the SCRAM login."""
    topic, group = unique("sec"), unique("secg")
    KafkaBackend(secure.kafka_client(), timeout=10).create_topic(topic, partitions, 1)
    consumer = Consumer({**secure.kafka_client(), "group.id": group, "enable.auto.commit": False,
                         "log_level": "0"})
    try:
        consumer.commit(offsets=[TopicPartition(topic, p, 0) for p in range(partitions)], asynchronous=False)
    finally:
        consumer.close()
    return topic, group


def add_scram_user(secure, user: str, password: str) -> None:
    """A SCRAM-SHA-512 user on the secure sandbox, added by the admin principal."""
    client = AdminClient({**secure.kafka_client(), "log_level": "0"})
    upsert = UserScramCredentialUpsertion(user, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                                          password.encode())
    for future in client.alter_user_scram_credentials([upsert], request_timeout=10).values():
        future.result(timeout=15)


LOGIN_TIMEOUT = 5.0  # a refused login fails list_topics within it


def login(secure, user: str, password: str) -> str:
    """"ok" when `user` logs in with SCRAM and reads metadata (no ACL needed for that),
    "refused" when the brokers reject the authentication, else "no answer"."""
    errors: list = []
    client = AdminClient({"bootstrap.servers": secure.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
                          "sasl.mechanism": SCRAM_MECHANISM, "sasl.username": user, "sasl.password": password,
                          "log_level": "0", "error_cb": errors.append})
    try:
        client.list_topics(timeout=LOGIN_TIMEOUT)
        return "ok"
    except KafkaException:
        client.poll(1)
        return "refused" if any(e.code() == KafkaError._AUTHENTICATION for e in errors) else "no answer"


def logs_in_as(secure, user: str, password: str, expected: str) -> None:
    RunningSandbox.wait_until(lambda: login(secure, user, password) == expected, timeout=60, interval=1,
                              what=f"the login of {user} to be {expected}")


def one_error_line(result) -> str:
    """The single stderr line of a failed command (no traceback, nothing else)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("streamctl: error: ") and "Traceback" not in result.stderr
    return lines[0]


def line_of(path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def files_holding(folders, secrets: list[str], skip=frozenset()) -> tuple[dict, int]:
    """Every file under `folders` (but `skip`) holding one of `secrets`: path -> the secrets
    found, and how many files were read (a scan that read nothing proves nothing)."""
    found, scanned = {}, 0
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p not in skip):
            data = path.read_bytes()
            scanned += 1
            if held := [s for s in secrets if s.encode() in data]:
                found[path] = held
    return found, scanned
