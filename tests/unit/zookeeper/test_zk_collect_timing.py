"""When the ZooKeeper collector reads Kafka's metadata for its cross-check: from its start,
beside the ensemble probe (not after it), and never waited for when the ensemble is down."""

from __future__ import annotations

import socket
import threading
import time

from streamctl.config import load_config
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
