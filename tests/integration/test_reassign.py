"""`streamctl reassign` against a real 4-broker Kafka of this module's own (ZooKeeper mode, then KRaft), with
RF-2 topics: decommission a broker while a producer runs (throttled, every record still read),
cancel a slow move (the old replicas stay), and bad input as one line with nothing changed."""

from __future__ import annotations

import json
import threading

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from streamctl.backends.kafka.reassign_admin import BROKER_RATES, TOPIC_REPLICAS, ReassignAdmin
from streamctl.sandbox.stack import Sandbox
from tests.conftest import RunningSandbox
from tests.integration.kafka_helpers import ordered_producer
from tests.jvm_guard import service_fixture

pytestmark = pytest.mark.integration
RECORD = b"x" * 1000


@service_fixture(scope="module", params=["zookeeper", "kraft"])
def four_brokers(request, tmp_path_factory) -> RunningSandbox:
    tmp = tmp_path_factory.mktemp(f"reassign-{request.param}")
    sb = Sandbox(root=tmp / "state" / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    state, _ = sb.up(brokers=4, kraft=request.param == "kraft", with_addons=False)
    try:
        yield RunningSandbox(sb, state, tmp / "state")
    finally:
        sb.down()


def create(cluster: RunningSandbox, topic: str, assignment: list[list[int]], records: int) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic(topic, num_partitions=len(assignment), replica_assignment=assignment)])[topic].result(30)
    producer = ordered_producer(cluster.bootstrap_servers)
    for i in range(records):
        producer.produce(topic, RECORD, key=str(i).encode(), partition=i % len(assignment))
        producer.poll(0)
    assert producer.flush(60) == 0


def wire(cluster: RunningSandbox) -> ReassignAdmin:
    return ReassignAdmin({"bootstrap.servers": cluster.bootstrap_servers}, timeout=20)


def replicas(cluster: RunningSandbox, topic: str) -> dict[int, list[int]]:
    admin = wire(cluster)
    try:
        return {p: r for (t, p), r in admin.layout()["replicas"].items() if t == topic}
    finally:
        admin.close()


def throttles(cluster: RunningSandbox, brokers: list[int], topics: list[str]) -> dict[str, dict[str, str]]:
    admin = wire(cluster)
    try:
        return {name: keys for name, keys in admin.throttle_configs(brokers, topics).items() if keys}
    finally:
        admin.close()


def status(cluster: RunningSandbox) -> dict:
    done = cluster.cli("reassign", "status", "-o", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Traffic:
    """A producer sending numbered records until stopped; counts the ones the brokers acknowledged."""

    def __init__(self, bootstrap: str, topic: str):
        self.producer = ordered_producer(bootstrap, acks="all")
        self.topic, self.acked, self.sent = topic, 0, 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def delivered(self, err, _msg) -> None:
        if err is None:
            self.acked += 1

    def run(self) -> None:
        while not self.stopping.is_set():
            self.producer.produce(self.topic, RECORD, key=f"live-{self.sent}".encode(), on_delivery=self.delivered)
            self.sent += 1
            self.producer.poll(0.01)

    def stop(self) -> int:
        self.stopping.set()
        self.thread.join(30)
        assert self.producer.flush(60) == 0
        return self.acked


def read_all(bootstrap: str, topic: str, partitions: int) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"count-{topic}", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    try:
        _, high = zip(*(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=20) for p in range(partitions)))
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        keys: set[bytes] = set()
        seen = dict.fromkeys(range(partitions), 0)
        while any(seen[p] < high[p] for p in range(partitions)):
            msg = consumer.poll(5)
            assert msg is not None, f"stopped reading at {seen} of {high}"
            if msg.error() is None:
                keys.add(msg.key())
                seen[msg.partition()] = msg.offset() + 1
        return len(keys)
    finally:
        consumer.close()


def test_decommission_moves_every_replica_off_under_a_throttle_and_loses_no_record(four_brokers):
    cluster, topic = four_brokers, "decommission-me"
    create(cluster, topic, [[1, 2], [2, 3], [3, 4], [4, 1], [1, 3], [2, 4]], records=4000)  # ~4 MB
    before = replicas(cluster, topic)
    planned = cluster.cli("reassign", "plan", "--decommission", "1", "--throttle", "2MB", "-o", "json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    moving = {p["partition"]: p for p in plan["partitions"] if p["topic"] == topic}
    assert set(moving) == {p for p, r in before.items() if 1 in r}
    assert all(1 in p["old_replicas"] and 1 not in p["replicas"] and p["bytes"] > 0 for p in moving.values())
    assert plan["bytes_to_move"] >= sum(p["bytes"] for p in moving.values()) and plan["estimate_seconds"] > 0

    traffic = Traffic(cluster.bootstrap_servers, topic)
    try:
        started = cluster.cli("reassign", "execute", "--decommission", "1", "--throttle", "2MB", "--execute")
        assert started.returncode == 0, started.stderr
        assert "undo file" in started.stderr
        brokers = sorted({b for p in plan["partitions"] for b in p["replicas"] + p["old_replicas"]})
        set_now = throttles(cluster, brokers, [topic])
        assert set_now[f"broker {brokers[0]}"] == dict.fromkeys(BROKER_RATES, "2000000")
        assert set(set_now[f"topic {topic}"]) == set(TOPIC_REPLICAS)
        finished = cluster.wait_until(lambda: (s := status(cluster))["in_progress"] is False and s,
                                      timeout=240, interval=2, what="the reassignment to finish")
        assert "throttles removed" in finished["throttles"]
    finally:
        acked = traffic.stop()
    assert acked > 0
    assert not any(1 in r for r in replicas(cluster, topic).values())
    assert throttles(cluster, brokers, [topic]) == {}
    assert read_all(cluster.bootstrap_servers, topic, 6) == 4000 + acked


def test_cancel_stops_a_slow_move_and_the_old_replicas_stay(four_brokers, tmp_path):
    cluster, topic = four_brokers, "slow-move"
    create(cluster, topic, [[2, 3]], records=5000)  # ~5 MB at 50 kB/s: minutes to copy
    plan_file = tmp_path / "move.json"
    plan_file.write_text(json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [4, 1]}]}))
    started = cluster.cli("reassign", "execute", "--plan", str(plan_file), "--throttle", "50kB", "--execute")
    assert started.returncode == 0, started.stderr
    moving = status(cluster)
    assert moving["in_progress"] is True and moving["partitions"][0]["partition"] == f"{topic}/0"
    assert sorted(moving["partitions"][0]["adding"]) == [1, 4]
    progress = {"rate_bytes_per_s", "eta_seconds", "percent"}  # overall and per partition (null when unknown)
    assert progress <= moving.keys() and progress <= moving["partitions"][0].keys()

    cancelled = cluster.cli("reassign", "cancel", "--execute")
    assert cancelled.returncode == 0, cancelled.stderr
    assert "throttles removed" in cancelled.stderr
    cluster.wait_until(lambda: replicas(cluster, topic) == {0: [2, 3]}, timeout=60, what="the old replicas back")
    assert status(cluster)["in_progress"] is False
    assert throttles(cluster, [1, 2, 3, 4], [topic]) == {}


@pytest.mark.parametrize("args, error", [
    (["plan", "--decommission", "9"], "--decommission 9: no such broker"),
    (["plan", "--replication-factor", "any-topic=5"], "must be 1 to 4"),
    (["execute", "--decommission", "2", "--throttle", "0", "--execute"], "--throttle '0': must be above 0"),
])
def test_bad_input_is_one_line_and_changes_nothing(four_brokers, args, error):
    before = wire(four_brokers)
    try:
        layout = before.layout()["replicas"]
    finally:
        before.close()
    done = four_brokers.cli("reassign", *args)
    assert done.returncode != 0 and error in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    after = wire(four_brokers)
    try:
        assert after.layout()["replicas"] == layout
    finally:
        after.close()
