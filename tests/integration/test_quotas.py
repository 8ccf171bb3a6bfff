"""Client quotas through `streamctl quotas` on the real sandboxes, in both modes: a
producer_byte_rate on a client-id slows a producer with that client.id (bytes/s before, under
the quota and after its removal), `quotas list` shows it, and a dry run changes nothing."""

from __future__ import annotations

import json
import time

import pytest

from tests.integration.kafka_helpers import create_topic_once_settled, ordered_producer, unique

pytestmark = pytest.mark.integration

RECORD = b"q" * 10_000
RECORDS = 100  # ~1 MB a run
QUOTA = 51_200  # 50 KB/s


def produce_rate(cluster, topic: str, client_id: str) -> float:
    """Bytes per second of one producer with `client_id` sending ~1 MB to `topic`."""
    # Small batches: many requests, so the broker's throttling (which delays the requests after
    # the one that broke the quota) shows within the run.
    producer = ordered_producer(cluster.bootstrap_servers, **{"client.id": client_id, "linger.ms": 5,
                                                              "batch.size": 25_000})
    producer.list_topics(topic, timeout=30)  # connected and the leader known: not part of the rate
    started = time.monotonic()
    for _ in range(RECORDS):
        producer.produce(topic, RECORD)
    assert producer.flush(180) == 0, "records left unsent"
    return RECORDS * len(RECORD) / (time.monotonic() - started)


def quotas(cluster, *args: str) -> list[dict]:
    result = cluster.cli("quotas", "list", *args, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_producer_byte_rate_slows_that_client_until_removed(cluster):
    topic, client_id = unique("quota"), unique("throttled")
    create_topic_once_settled(cluster, topic, 1, 1)
    before = produce_rate(cluster, topic, client_id)

    alter = ["quotas", "alter", "--client-id", client_id, "--set", f"producer_byte_rate={QUOTA}"]
    dry = cluster.cli(*alter, "-o", "json")
    assert dry.returncode == 0, dry.stderr
    change = json.loads(dry.stdout)["changes"][0]
    assert (change["field"], change["before"], change["after"]) == ("producer_byte_rate", None, str(QUOTA))
    assert "dry run" in dry.stderr
    assert quotas(cluster, "--client-id", client_id) == []  # read back: the dry run changed nothing

    done = cluster.cli(*alter, "--execute")
    assert done.returncode == 0, done.stderr
    assert quotas(cluster, "--client-id", client_id) == [
        {"entity": {"client-id": client_id}, "values": {"producer_byte_rate": float(QUOTA)}}]
    assert {"entity": {"client-id": client_id}, "values": {"producer_byte_rate": float(QUOTA)}} in quotas(cluster)

    # The brokers learn the quota a moment after it is stored: measured until it shows. Kafka
    # lets a burst of about 10 s of quota through (its rate window), so ~1 MB averages ~100 KB/s.
    def slowed() -> float | None:
        rate = produce_rate(cluster, topic, client_id)
        return rate if rate < before / 3 and rate < QUOTA * 3 else None

    throttled = cluster.wait_until(slowed, timeout=180, interval=1, what="the producer throttled near the quota")

    removed = cluster.cli("quotas", "alter", "--client-id", client_id, "--delete", "producer_byte_rate", "--execute")
    assert removed.returncode == 0, removed.stderr
    assert quotas(cluster, "--client-id", client_id) == []
    cluster.wait_until(lambda: produce_rate(cluster, topic, client_id) > throttled * 3, timeout=180, interval=1,
                       what="the producer's rate recovered")


def test_bad_input_is_one_line_and_sends_nothing(cluster):
    client_id = unique("bad")
    cases = {
        ("--client-id", client_id, "--set", "byte_rate=5"): "unknown quota key 'byte_rate'",
        ("--client-id", client_id, "--set", "connection_creation_rate=5"): "applies to IPs only",
        ("--ip", "10.0.0.1", "--set", "producer_byte_rate=5"): "applies to users and client-ids, not IPs",
        ("--client-id", client_id, "--set", "producer_byte_rate=0"): "expected a number above 0",
        ("--client-id", client_id, "--set", "producer_byte_rate=fast"): "expected a number",
        ("--set", "producer_byte_rate=5"): "no quota entity",
    }
    for args, message in cases.items():
        result = cluster.cli("quotas", "alter", *args, "--execute")
        assert result.returncode != 0 and result.stdout == "", args
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (args, result.stderr)
    assert quotas(cluster, "--client-id", client_id) == []


def test_ip_and_default_quotas_are_listed_and_removed(cluster):
    ip = "10.9.8.7"
    for args in (["--ip", ip, "--set", "connection_creation_rate=40"],
                 ["--user-default", "--client-id", "batch", "--set", "request_percentage=150"]):
        result = cluster.cli("quotas", "alter", *args, "--execute")
        assert result.returncode == 0, result.stderr
    listed = quotas(cluster)
    assert {"entity": {"ip": ip}, "values": {"connection_creation_rate": 40.0}} in listed
    assert {"entity": {"user": "<default>", "client-id": "batch"}, "values": {"request_percentage": 150.0}} in listed
    for args in (["--ip", ip, "--delete", "connection_creation_rate"],
                 ["--user-default", "--client-id", "batch", "--delete", "request_percentage"]):
        result = cluster.cli("quotas", "alter", *args, "--execute")
        assert result.returncode == 0, result.stderr
    left = quotas(cluster)
    assert not [q for q in left if q["entity"] in ({"ip": ip}, {"user": "<default>", "client-id": "batch"})]
