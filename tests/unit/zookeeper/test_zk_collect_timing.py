"""Where the ZooKeeper collector's cross-check gets Kafka's metadata: the Kafka collector's
snapshot when check reads one, else a read of its own started beside the ensemble probe (not
after it) and never waited for when the ensemble is down."""

from __future__ import annotations

import concurrent.futures
import socket
import threading
import time

import pytest

from streamctl.config import load_config
from streamctl.model.kafka import KafkaSnapshot
from streamctl.zookeeper import collect as zk_collect


class SlowMetadata:
    """A Kafka backend whose metadata read starts and then waits until released."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def metadata(self, deadline=None):
        self.started.set()
        self.release.wait(60)
        raise TimeoutError("released")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_crosscheck_metadata_read_starts_with_the_probe_and_a_down_ensemble_does_not_wait_for_it(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(f"contexts:\n  z:\n    kafka: {{bootstrap_servers: '127.0.0.1:{closed_port()}'}}\n"
                    f"    zookeeper: {{hosts: '127.0.0.1:{closed_port()}', timeout: 2}}\n")
    ctx = load_config(path).context("z")
    kafka = SlowMetadata()
    answer: list = []
    worker = threading.Thread(target=lambda: answer.append(
        zk_collect.collect(ctx, time.monotonic() + 30, kafka_backend=kafka)), daemon=True)
    try:
        worker.start()
        worker.join(25)  # the ensemble refuses at once; the metadata read would hold it 60 s
        assert kafka.started.is_set(), "the cross-check's metadata read did not start beside the probe"
        assert answer, "the collector waited for a metadata read it no longer needed"
        findings, _ = answer[0]
        assert "ZK_SERVER_DOWN" in {f.code for f in findings}, findings
    finally:
        kafka.release.set()


class CountedMetadata:
    """A Kafka backend that answers its metadata read with `snap`, counting the reads."""

    def __init__(self, snap: KafkaSnapshot) -> None:
        self.snap, self.reads = snap, 0

    def metadata(self, deadline=None) -> KafkaSnapshot:
        self.reads += 1
        return self.snap


def shared(snap: KafkaSnapshot | None) -> concurrent.futures.Future:
    future: concurrent.futures.Future = concurrent.futures.Future()
    future.set_result(snap)
    return future


@pytest.mark.parametrize(("given", "own_reads"), [
    (KafkaSnapshot(0.0, "c", (), 1, False, ()), 0),  # the Kafka collector's complete snapshot: compared
    (None, 1),  # the Kafka collector read nothing: a read of our own
    (KafkaSnapshot(0.0, "c", (), 1, False, (), errors=("configs of broker 1: timed out",)), 1),  # partial
])
def test_the_crosscheck_compares_the_kafka_collectors_snapshot_rather_than_reading_again(tmp_path, given, own_reads):
    path = tmp_path / "config.yaml"
    path.write_text("contexts:\n  z:\n    kafka: {bootstrap_servers: '127.0.0.1:9'}\n"
                    "    zookeeper: {hosts: '127.0.0.1:2181'}\n")
    ctx = load_config(path).context("z")
    own = CountedMetadata(KafkaSnapshot(1.0, "own", (), 1, False, ()))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        snap = zk_collect.read_metadata(pool, ctx, time.monotonic() + 10, own, shared(given)).result(timeout=10)
    assert own.reads == own_reads
    assert snap is (given if own_reads == 0 else own.snap)
