"""The dashboard's Kafka client process (backends/kafka/process.py) against the real sandbox:
answers as the in-process client does, survives its child aborting, keeps secrets off the
command line and the child's stderr off ours."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest

from streamctl.backends.kafka.admin import KafkaAdmin
from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.process import KafkaProcess, KafkaProcessError
from streamctl.errors import StreamctlError
from streamctl.kafka.history import HistoryRequest, snapshot_with_history
from streamctl.kafka.lag.rules import LagStatus
from streamctl.kafka.lag.store import LagStore
from tests.integration.kafka_helpers import commit, produce, unique

pytestmark = pytest.mark.integration


@pytest.fixture
def client(sandbox, tmp_path):
    process = KafkaProcess({"bootstrap.servers": sandbox.bootstrap_servers}, timeout=10,
                           log_path=tmp_path / "kafka-client.log")
    yield process
    process.close()


def child_pid(client: KafkaProcess) -> int:
    client.start()
    return client._child.process.pid


def test_answers_and_errors_are_the_in_process_clients(sandbox, client):
    topic, group = unique("kp"), unique("kpg")
    KafkaAdmin({"bootstrap.servers": sandbox.bootstrap_servers}).create_topic(topic, 2, 3)
    commit(sandbox.bootstrap_servers, group, {(topic, 0): 0, (topic, 1): 0})

    snap = client.snapshot(lag_time=False)
    assert {b.id for b in snap.brokers} == {1, 2, 3}
    assert topic in {t.name for t in snap.topics} and group in {g.id for g in snap.groups}
    assert client.committed(group) == {(topic, 0): 0, (topic, 1): 0}
    with pytest.raises(KafkaError) as refused:
        client.add_partitions(topic, 1)  # fewer than it has: Kafka refuses
    assert "\n" not in str(refused.value) and "partition" in str(refused.value).lower()


def in_flight(client: KafkaProcess, calls: int) -> list:
    """`calls` snapshots sent to a child frozen with SIGSTOP: surely still in flight."""
    from concurrent.futures import ThreadPoolExecutor

    os.kill(child_pid(client), signal.SIGSTOP)
    pool = ThreadPoolExecutor(calls)
    futures = [pool.submit(client.snapshot, lag_time=False) for _ in range(calls)]
    pool.shutdown(wait=False)
    time.sleep(0.3)
    assert not any(f.done() for f in futures)
    return futures


def test_an_aborted_child_fails_the_calls_in_flight_and_the_next_call_restarts_it(sandbox, client, capfd):
    assert client.metadata().brokers
    first = child_pid(client)
    calls = in_flight(client, 3)

    os.kill(first, signal.SIGABRT)  # what librdkafka's assertion does
    os.kill(first, signal.SIGCONT)

    for call in calls:
        with pytest.raises(KafkaProcessError) as ended:
            call.result(timeout=10)
        assert str(ended.value).startswith("the Kafka client process aborted (SIGABRT")
        assert "restarts on the next refresh" in str(ended.value) and "\n" not in str(ended.value)
    assert {b.id for b in client.metadata().brokers} == {1, 2, 3}
    assert client.restarts == 1 and child_pid(client) != first
    out, err = capfd.readouterr()
    assert out == err == "", "the child writes to its log, never over the dashboard"


def test_a_killed_child_is_named_and_replaced(sandbox, client):
    pid = child_pid(client)
    calls = in_flight(client, 2)
    os.kill(pid, signal.SIGKILL)
    for call in calls:
        with pytest.raises(KafkaProcessError, match="killed by SIGKILL"):
            call.result(timeout=10)
    assert client.snapshot(lag_time=False).brokers, "a new child answers"


def test_a_property_librdkafka_rejects_fails_every_call_on_one_line(tmp_path):
    client = KafkaProcess({"bootstrap.servers": "127.0.0.1:1", "no.such.property": "x"}, timeout=2,
                          log_path=tmp_path / "state" / "kafka-client.log")
    try:
        for _ in range(2):
            with pytest.raises(StreamctlError, match=r"^kafka\.properties: .*no\.such\.property"):
                client.metadata()
        assert client.restarts == 0, "the child stays up and answers with the error"
    finally:
        client.close()


def test_secrets_cross_the_socket_never_the_command_line(sandbox, tmp_path):
    secret = f"pw-{unique('s')}"
    client = KafkaProcess({"bootstrap.servers": sandbox.bootstrap_servers, "sasl.username": "u",
                           "sasl.password": secret}, timeout=5, log_path=tmp_path / "k.log")
    try:
        pid = child_pid(client)
        command_line = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
        environment = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
        assert "streamctl.backends.kafka.process" in command_line
        assert secret not in command_line and secret not in environment
    finally:
        client.close()


def test_the_child_ends_with_its_parent_closing(sandbox, client):
    pid = child_pid(client)
    client.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_the_lag_history_is_joined_in_the_child(sandbox, client, tmp_path):
    topic, group = unique("kph"), unique("kphg")
    KafkaAdmin({"bootstrap.servers": sandbox.bootstrap_servers}).create_topic(topic, 1, 3)
    produce(sandbox.bootstrap_servers, topic, 5)
    commit(sandbox.bootstrap_servers, group, {(topic, 0): 2})
    request = HistoryRequest(tmp_path / "lag.sqlite", "it", allowed_lag=0, window=300.0)

    snap, statuses = client.call_with_admin(snapshot_with_history, request)

    ours = next(lag for lag in snap.lags if lag.group == group)
    assert (ours.committed, ours.log_end, ours.lag_seconds_source) == (2, 5, "record")
    assert statuses[group].status is LagStatus.UNKNOWN  # the first sample of this group
    with LagStore(request.store) as store:
        stored = [(committed, log_end) for grp, *_, samples in store.samples("it") if grp == group
                  for _, committed, log_end in samples]
    assert stored == [(2, 5)]

    client.call_with_admin(snapshot_with_history, replace(request, record=False))
    with LagStore(request.store) as store:
        assert sum(len(samples) for grp, *_, samples in store.samples("it") if grp == group) == 1


def test_a_mutation_in_flight_when_the_child_dies_is_an_answer_lost_never_resent(sandbox, client):
    """The dashboard's plan core then reads the outcome back (streamctl.ops.execute); a read in
    flight fails as before."""
    from concurrent.futures import ThreadPoolExecutor

    from streamctl.backends.kafka.client import KafkaAnswerLost

    topic = unique("kp-lost")
    pid = child_pid(client)
    os.kill(pid, signal.SIGSTOP)
    pool = ThreadPoolExecutor(2)
    create = pool.submit(client.create_topic, topic, 1, 1)
    read = pool.submit(client.metadata)
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(KafkaAnswerLost, match=r"^create_topic: the Kafka client process killed by SIGKILL.*"
                                              r"the change was sent and may have been made: not sent again"):
        create.result(timeout=10)
    with pytest.raises(KafkaProcessError) as failed:
        read.result(timeout=10)
    assert not isinstance(failed.value, KafkaAnswerLost)
    pool.shutdown()
    assert child_pid(client) != pid and client.restarts == 1  # the next call starts a new child
    assert client.metadata().topic(topic) is None  # the frozen child never sent it; nor did anyone again
