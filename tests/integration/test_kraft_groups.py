"""KIP-848 on the KRaft sandbox (Kafka 4.x): a consumer-protocol group and a classic group
consume the same topic; both are shown with their type, state, members and lag, a reset of the
live consumer-protocol group is refused like a classic one's, and once its consumer has left
the reset runs and its undo file puts the offsets back."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

import pytest
from confluent_kafka import Consumer

from tests.integration.kafka_helpers import produce, unique, write_context

pytestmark = pytest.mark.integration

FIRST, MORE = 60, 30  # records before the one commit, and after it (the lag)


@contextmanager
def consuming(bootstrap: str, topic: str, group: str, protocol: str):
    """A member of `group` (group.protocol=`protocol`) that commits once, after reading FIRST
    records, and keeps polling (and a live membership) without committing again."""
    config = {"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": protocol,
              "client.id": f"{protocol}-reader", "auto.offset.reset": "earliest",
              "enable.auto.commit": False, "log_level": "0"}
    consumer, stop, seen = Consumer(config), threading.Event(), threading.Event()
    consumer.subscribe([topic])

    def poll():
        count = 0
        while not stop.is_set():
            message = consumer.poll(0.2)
            if message is not None and not message.error():
                count += 1
                if count == FIRST:
                    consumer.commit(asynchronous=False)
                    seen.set()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        assert seen.wait(60), f"{group} read no {FIRST} records"
        yield consumer
    finally:
        stop.set()
        thread.join()
        consumer.close()


@pytest.fixture
def ops(kraft_sandbox, tmp_path):
    config = write_context(tmp_path / "c.yaml", kraft_sandbox.bootstrap_servers)

    def run(*args):
        return kraft_sandbox.cli("--config", str(config), *args, XDG_STATE_HOME=str(tmp_path / "state"))

    run.state = tmp_path / "state" / "streamctl"
    return run


def _groups(ops, wanted: set[str]) -> dict[str, dict]:
    result = ops("groups", "list", "-o", "json")
    assert result.returncode == 0, result.stderr
    return {g["id"]: g for g in json.loads(result.stdout) if g["id"] in wanted}


def test_both_group_protocols_shown_and_a_live_consumer_group_kept_from_resets(kraft_sandbox, ops):
    bootstrap = kraft_sandbox.bootstrap_servers
    topic = unique("kip848")
    groups = {"consumer": unique("newproto"), "classic": unique("oldproto")}
    kraft_sandbox.kafka().create_topic(topic, 3, 3)
    produce(bootstrap, topic, FIRST, partitions=3)
    with consuming(bootstrap, topic, groups["consumer"], "consumer"), \
            consuming(bootstrap, topic, groups["classic"], "classic"):
        produce(bootstrap, topic, MORE, partitions=3)
        shown = kraft_sandbox.wait_until(
            lambda: (g := _groups(ops, set(groups.values()))) and all(v["lag"] == MORE for v in g.values()) and g,
            timeout=60, what="both groups listed with their lag")
        table = ops("groups", "list")
        refused = ops("groups", "reset-offsets", groups["consumer"], "--topic", topic, "--to-earliest", "--execute")

    for protocol, group in groups.items():
        assert shown[group]["type"] == protocol.upper()
        assert shown[group]["state"] == "STABLE"
        assert shown[group]["members"] == 1
        line = next(l for l in table.stdout.splitlines() if group in l)
        assert protocol in line.split(), line
    assert shown[groups["consumer"]]["protocol"] == "uniform"  # the broker-side assignor (KIP-848)

    assert refused.returncode != 0
    assert "active members" in refused.stderr and "consumer-reader" in refused.stderr, refused.stderr
    assert not (ops.state / "undo").exists() or not list((ops.state / "undo").rglob("*.csv"))

    # The consumer has left: the group is EMPTY (a consumer-protocol member leaves at close).
    group = groups["consumer"]
    kraft_sandbox.wait_until(lambda: _groups(ops, {group})[group]["state"] == "EMPTY", timeout=60,
                             what="the consumer-protocol group empty")
    reset = ops("groups", "reset-offsets", group, "--topic", topic, "--to-earliest", "--execute")
    assert reset.returncode == 0, reset.stderr
    assert _groups(ops, {group})[group]["lag"] == FIRST + MORE
    undo = ops("groups", "undo-reset", group, "--execute")
    assert undo.returncode == 0, undo.stderr
    assert _groups(ops, {group})[group]["lag"] == MORE
