"""`streamctl reassign` against a real 4-broker Kafka of this module's own (ZooKeeper mode, then KRaft):
give broker 4 its share (first, while it holds nothing) and elect the preferred leaders, decommission a
broker while a producer runs (throttled, no partition under min ISR, every record still read), cancel a
slow move (the old replicas stay), an `execute` killed before and after its move began (`status` cleans
up), and bad input as one line with nothing changed."""

from __future__ import annotations

import json
import threading

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from streamctl.backends.kafka.reassign_admin import BROKER_RATES, TOPIC_REPLICAS, ReassignAdmin
from streamctl.sandbox.stack import Sandbox
from tests.conftest import RunningSandbox
from tests.integration import killed_process
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


def create(cluster: RunningSandbox, topic: str, assignment: list[list[int]], records: int,
           config: dict[str, str] | None = None) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    new = NewTopic(topic, num_partitions=len(assignment), replica_assignment=assignment, config=config or {})
    admin.create_topics([new])[topic].result(30)
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


def fully_throttled(admin: ReassignAdmin, topic: str) -> bool:
    """Both rates on brokers 1-4 and both replica lists on `topic`, as `execute` sets them, read back."""
    set_now = admin.throttle_configs([1, 2, 3, 4], [topic])
    return all(len(set_now.get(f"broker {b}", {})) == 2 for b in [1, 2, 3, 4]) and len(set_now.get(f"topic {topic}", {})) == 2


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


class IsrWatch:
    """Every partition's ISR size, sampled from the metadata in a thread until stopped: the smallest seen."""

    def __init__(self, bootstrap: str, topic: str):
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.topic, self.samples, self.errors = topic, 0, []
        self.smallest: dict[int, int] = {}
        described = self.admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
        self.min_isr = int(next(iter(described.values())).result(30)["min.insync.replicas"].value)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stopping.wait(0.2):
            try:
                partitions = self.admin.list_topics(self.topic, timeout=10).topics[self.topic].partitions
            except KafkaException as exc:
                self.errors.append(str(exc))
                continue
            for p, meta in partitions.items():
                self.smallest[p] = min(len(meta.isrs), self.smallest.get(p, len(meta.isrs)))
            self.samples += 1

    def stop(self) -> dict[int, int]:
        self.stopping.set()
        self.thread.join(30)
        return self.smallest


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


def leaders(cluster: RunningSandbox, topic: str) -> dict[int, int]:
    metadata = AdminClient({"bootstrap.servers": cluster.bootstrap_servers}).list_topics(topic, timeout=20)
    return {p: m.leader for p, m in metadata.topics[topic].partitions.items()}


def test_add_broker_gives_it_its_share_and_the_preferred_leaders_are_elected(four_brokers):
    # first in the module: broker 4 holds nothing yet, so its share comes from this topic
    cluster, topic = four_brokers, "add-broker-me"
    create(cluster, topic, [[1, 2], [2, 3], [3, 1], [1, 3], [2, 1], [3, 2]], records=600)  # ~600 kB on brokers 1-3
    started = cluster.cli("reassign", "execute", "--add-broker", "4", "--throttle", "10MB", "--elect-leaders",
                          "--execute")
    assert started.returncode == 0, started.stderr

    def read_only_status():
        done = cluster.cli("--read-only", "reassign", "status", "-o", "json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    held = cluster.wait_until(lambda: (s := read_only_status())["in_progress"] is False and s,
                              timeout=120, interval=1, what="the move to broker 4 to finish")
    assert "read-only" in held["leaders"] and "throttles left in place" in held["throttles"]
    finished = status(cluster)
    assert "throttles removed" in finished["throttles"]
    assert finished["leaders"].startswith("elected preferred leaders of"), finished["leaders"]
    now = replicas(cluster, topic)
    moved = [p for p, r in now.items() if 4 in r]
    assert 2 <= len(moved) <= 4 and all(len(r) == 2 for r in now.values())

    def preferred_lead():
        found = leaders(cluster, topic)
        return found if all(found[p] == now[p][0] for p in moved) else None

    led = cluster.wait_until(preferred_lead, timeout=30, what="every moved partition led by its first replica")
    assert 4 in led.values()
    assert throttles(cluster, [1, 2, 3, 4], [topic]) == {}
    assert status(cluster)["leaders"] is None  # the wish is gone once granted


def test_decommission_moves_every_replica_off_under_a_throttle_and_loses_no_record(four_brokers):
    cluster, topic = four_brokers, "decommission-me"
    create(cluster, topic, [[1, 2, 3], [2, 3, 4], [3, 4, 1], [4, 1, 2], [1, 3, 4], [2, 4, 1]], records=4000,
           config={"min.insync.replicas": "2"})  # ~4 MB, RF 3: one replica out of the ISR is allowed, two are not
    before = replicas(cluster, topic)
    planned = cluster.cli("reassign", "plan", "--decommission", "1", "--throttle", "2MB", "-o", "json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    moving = {p["partition"]: p for p in plan["partitions"] if p["topic"] == topic}
    assert set(moving) == {p for p, r in before.items() if 1 in r}
    assert all(1 in p["old_replicas"] and 1 not in p["replicas"] and p["bytes"] > 0 for p in moving.values())
    assert plan["bytes_to_move"] >= sum(p["bytes"] for p in moving.values()) and plan["estimate_seconds"] > 0

    traffic, isr = Traffic(cluster.bootstrap_servers, topic), IsrWatch(cluster.bootstrap_servers, topic)
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
        acked, smallest_isr = traffic.stop(), isr.stop()
    assert acked > 0
    assert isr.samples > 0 and not isr.errors and isr.min_isr == 2 and set(smallest_isr) == set(range(6))
    assert min(smallest_isr.values()) >= isr.min_isr, f"under min ISR {isr.min_isr} during the move: {smallest_isr}"
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


def test_an_execute_killed_before_or_during_its_move_is_cleaned_up_by_status(four_brokers, tmp_path):
    cluster, topic, old, new = four_brokers, "killed-mid-move", [3, 4], [1, 2]
    create(cluster, topic, [old], records=2000)  # ~2 MB at 50 kB/s: the move outlasts the process
    plan_file = tmp_path / "move.json"
    plan_file.write_text(json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": new}]}))
    execute = ("reassign", "execute", "--plan", str(plan_file), "--throttle", "50kB", "--execute")
    record = cluster.xdg_state / "streamctl" / "reassign" / f"{cluster.context}-throttles.json"
    assert not record.exists()
    probe = wire(cluster)
    try:
        # frozen once the throttle record is written: its next call (the throttles) is its last, the move never starts
        process = killed_process.start(cluster, *execute)
        killed_process.freeze_when(cluster, process, record.exists, "the throttle record", with_a_call_begun=True)
        cluster.wait_until(lambda: fully_throttled(probe, topic), timeout=30, what="the throttles readable")
        meanwhile = status(cluster)  # nothing moves yet, but the execute lives: its throttles stay
        assert meanwhile["in_progress"] is False and f"(pid {process.pid}) is starting its move" in meanwhile["throttles"]
        assert fully_throttled(probe, topic)
        killed_process.kill(process)
        assert probe.in_flight() == {} and replicas(cluster, topic) == {0: old}
        cleaned = status(cluster)
        assert cleaned["in_progress"] is False and "throttles removed from 4 broker(s) and 1 topic(s)" in cleaned["throttles"]
        assert throttles(cluster, [1, 2, 3, 4], [topic]) == {} and not record.exists()

        # a new execute is not refused; killed once the broker lists its move
        killed_process.kill_when(cluster, killed_process.start(cluster, *execute),
                                 lambda: (topic, 0) in probe.in_flight(), "the move in flight")
        moving = status(cluster)
        assert moving["in_progress"] is True and [p["partition"] for p in moving["partitions"]] == [f"{topic}/0"]
        assert moving["throttles"] is None and fully_throttled(probe, topic)  # left in place while the move runs
        probe.set_throttles(100_000_000, [1, 2, 3, 4], {})  # the operator speeds the move up
        finished = cluster.wait_until(lambda: (s := status(cluster))["in_progress"] is False and s,
                                      timeout=90, interval=1, what="the move to finish")
        assert "throttles removed from 4 broker(s) and 1 topic(s)" in finished["throttles"]
        assert throttles(cluster, [1, 2, 3, 4], [topic]) == {} and not record.exists()
        assert replicas(cluster, topic) == {0: new}
    finally:
        probe.close()


@pytest.mark.parametrize("args, error", [
    (["plan", "--decommission", "9"], "--decommission 9: no such broker"),
    (["execute", "--add-broker", "9", "--throttle", "1MB", "--elect-leaders", "--execute"],
     "--add-broker 9: no such broker"),
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
