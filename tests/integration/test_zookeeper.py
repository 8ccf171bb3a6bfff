"""`streamctl zk`, the Kafka-on-ZooKeeper views and `check --component zookeeper` against the
session sandbox's real ZooKeeper (3.8) and brokers (Kafka 3.9.2, ZooKeeper mode).

kazoo, read directly in the test, is the reference for what ZooKeeper holds; the Admin API
(KafkaBackend.metadata) is the reference for the Kafka views. The two tests that stop a broker
and ZooKeeper itself come last and leave the cluster healthy.
"""

from __future__ import annotations

import base64
import json
import os
import time
import uuid

import pytest
from kazoo.client import KazooClient

from streamctl.backends.zookeeper import ZooKeeperBackend
from streamctl.errors import StreamctlError
from streamctl.zookeeper.kafka_znodes import KafkaZooKeeper
from tests.conftest import run_cli
from tests.integration.kafka_helpers import unique, write_context

pytestmark = pytest.mark.integration


@pytest.fixture
def zk_settings(sandbox) -> dict:
    return {"hosts": sandbox.state.zookeeper_hosts, "timeout": 5,
            "admin_url": f"http://127.0.0.1:{sandbox.state.admin_port}/commands"}


@pytest.fixture
def config(sandbox, tmp_path, zk_settings):
    return write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, kafka={"timeout": 5},
                         zookeeper=zk_settings, include={"groups": ["none"]})


@pytest.fixture
def kazoo(sandbox):
    client = KazooClient(hosts=sandbox.state.zookeeper_hosts, timeout=10)
    client.start(timeout=15)
    yield client
    client.stop()
    client.close()


@pytest.fixture
def scratch(kazoo):
    """A unique znode path for the test, deleted afterwards."""
    path = f"/zkit-{uuid.uuid4().hex[:8]}"
    yield path
    if kazoo.exists(path):
        kazoo.delete(path, recursive=True)


def cli(tmp_path, config, *args, timeout=120):
    env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path / "state")}
    started = time.monotonic()
    result = run_cli(*args, env=env, timeout=timeout)
    return result, time.monotonic() - started


def kazoo_tree(client, path: str) -> dict[str, tuple[int, int]]:
    """path -> (numChildren, dataLength), read one blocking call after another."""
    _, stat = client.get(path)
    found = {path: (stat.numChildren, stat.dataLength)}
    for child in client.get_children(path):
        found |= kazoo_tree(client, f"{path.rstrip('/')}/{child}")
    return found


def flatten(node: dict) -> dict[str, tuple[int, int]]:
    found = {node["path"]: (node["num_children"], node["data_length"])}
    for child in node["children"]:
        found |= flatten(child)
    return found


def stat_fields(stat) -> dict:
    return {"czxid": stat.czxid, "mzxid": stat.mzxid, "ctime": stat.ctime, "mtime": stat.mtime,
            "version": stat.version, "cversion": stat.cversion, "aversion": stat.aversion,
            "ephemeral_owner": stat.ephemeralOwner, "data_length": stat.dataLength,
            "num_children": stat.numChildren, "pzxid": stat.pzxid}


# ---- browse ------------------------------------------------------------------------------------

def test_tree_get_and_stat_match_kazoo(sandbox, tmp_path, config, kazoo):
    topic = unique("zkt")
    sandbox.kafka().create_topic(topic, 3, 3)
    sandbox.wait_until(lambda: kazoo.exists(f"/brokers/topics/{topic}/partitions/2/state"), what="partition states")

    # The cluster lives on while both read: a preferred-leader election may rewrite another
    # topic's partition state in between. Every znode must match kazoo's reading just before or
    # just after streamctl's, and this test's own topic must match exactly.
    before = kazoo_tree(kazoo, "/brokers")
    result, _ = cli(tmp_path, config, "zk", "tree", "/brokers", "-o", "json")
    after = kazoo_tree(kazoo, "/brokers")
    assert result.returncode == 0, result.stderr
    tree = json.loads(result.stdout)
    got = flatten(tree)
    assert before.keys() & after.keys() <= got.keys() <= before.keys() | after.keys()
    assert {path: value for path, value in got.items()
            if value not in (before.get(path), after.get(path))} == {}
    own = f"/brokers/topics/{topic}"
    assert {p: v for p, v in got.items() if p.startswith(own)} == {p: v for p, v in after.items() if p.startswith(own)}
    assert tree["subtree_znodes"] == len(got)

    text, _ = cli(tmp_path, config, "zk", "tree", f"/brokers/topics/{topic}")
    lines = text.stdout.splitlines()
    assert lines[0].startswith(f"/brokers/topics/{topic}  [1 child · 8 znodes · ")
    assert lines[1].startswith("└── partitions  [3 children · 7 znodes · ")
    assert sum("state  " in line for line in lines) == 3

    shallow, _ = cli(tmp_path, config, "zk", "tree", "/brokers", "--depth", "1", "-o", "json")
    topics = next(c for c in json.loads(shallow.stdout)["children"] if c["name"] == "topics")
    assert topics["listed"] is False and topics["children"] == []
    assert topics["num_children"] == kazoo.exists("/brokers/topics").numChildren

    data, stat = kazoo.get("/brokers/ids/1")
    result, _ = cli(tmp_path, config, "zk", "get", "/brokers/ids/1", "-o", "json")
    got = json.loads(result.stdout)
    assert base64.b64decode(got["data_base64"]) == data
    assert got["kind"] == "json" and json.loads(got["text"]) == json.loads(data)
    assert {k: got["stat"][k] for k in stat_fields(stat)} == stat_fields(stat)
    assert got["stat"]["ephemeral_owner_hex"] == hex(stat.ephemeralOwner)

    acls, stat = kazoo.get_acls("/controller")
    result, _ = cli(tmp_path, config, "zk", "stat", "/controller", "-o", "json")
    got = json.loads(result.stdout)
    assert {k: got["stat"][k] for k in stat_fields(stat)} == stat_fields(stat)
    assert [(a["scheme"], a["id"], a["perms_bits"]) for a in got["acls"]] == \
        [(a.id.scheme, a.id.id, a.perms) for a in acls]

    result, _ = cli(tmp_path, config, "zk", "ls", "/brokers/ids", "-o", "json")
    children = json.loads(result.stdout)["children"]
    assert [c["name"] for c in children] == sorted(kazoo.get_children("/brokers/ids"))
    assert all(c["ephemeral_owner"] == kazoo.exists(c["path"]).ephemeralOwner for c in children)


def test_find_by_glob(sandbox, tmp_path, config, kazoo):
    topic = unique("zkf")
    sandbox.kafka().create_topic(topic, 2, 3)
    sandbox.wait_until(lambda: kazoo.exists(f"/brokers/topics/{topic}/partitions/1/state"), what="partition states")
    result, _ = cli(tmp_path, config, "zk", "find", "/brokers", f"/brokers/topics/{topic}/partitions/*/state")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"/brokers/topics/{topic}/partitions/{p}/state" for p in (0, 1)]
    by_name, _ = cli(tmp_path, config, "zk", "find", f"/brokers/topics/{topic}", "state", "-o", "json")
    assert [r["path"] for r in json.loads(by_name.stdout)] == result.stdout.splitlines()


def test_binary_data_is_shown_as_hex(tmp_path, config, kazoo, scratch):
    blob = bytes([0xFF, 0xFE, 0x00, 0x01]) + "é".encode("latin-1") + bytes(range(0x80, 0x90))
    kazoo.create(scratch, blob)
    result, _ = cli(tmp_path, config, "zk", "get", scratch)
    assert result.returncode == 0, result.stderr
    assert "binary, 21 B" in result.stdout
    assert "00000000  ff fe 00 01 e9 80 81 82 83 84 85 86 87 88 89 8a  |................|" in result.stdout
    assert "\ufffd" not in result.stdout
    as_json, _ = cli(tmp_path, config, "zk", "get", scratch, "-o", "json")
    assert json.loads(as_json.stdout)["kind"] == "binary"
    env = {**os.environ, "STREAMCTL_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path / "state")}
    import subprocess

    from tests.conftest import STREAMCTL

    raw = subprocess.run([STREAMCTL, "zk", "get", scratch, "--raw"], env=env, capture_output=True, timeout=60)
    assert raw.stdout == blob


@pytest.mark.parametrize("args, message", [
    (("zk", "get", "brokers"), "znode path 'brokers' must start with '/'"),
    (("zk", "tree", "/no-such-znode-here"), "no znode /no-such-znode-here"),
    (("zk", "stat", "/brokers//ids"), "empty segment"),
    (("zk", "delete", "/no-such-znode-here"), "no znode /no-such-znode-here"),
])
def test_bad_paths_are_one_line_errors(tmp_path, config, args, message):
    result, _ = cli(tmp_path, config, *args)
    assert result.returncode != 0
    assert result.stderr.strip().startswith("streamctl: error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


# ---- changes ---------------------------------------------------------------------------------

def audit_records(tmp_path) -> list[dict]:
    path = tmp_path / "state" / "streamctl" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_create_set_delete_dry_run_then_execute(tmp_path, config, kazoo, scratch):
    result, _ = cli(tmp_path, config, "zk", "create", f"{scratch}/a", "hello", "--parents")
    assert result.returncode == 0, result.stderr
    assert "dry run" in result.stderr and kazoo.exists(scratch) is None
    result, _ = cli(tmp_path, config, "zk", "create", f"{scratch}/a", "hello", "--parents", "--execute")
    assert result.returncode == 0, result.stderr
    assert kazoo.get(f"{scratch}/a")[0] == b"hello"

    result, _ = cli(tmp_path, config, "zk", "set", f"{scratch}/a", '{"k": 1}', "--version", "0", "--execute")
    assert result.returncode == 0, result.stderr
    data, stat = kazoo.get(f"{scratch}/a")
    assert (data, stat.version) == (b'{"k": 1}', 1)
    assert [r["operation"] for r in audit_records(tmp_path)] == ["zk.create", "zk.set"]
    assert audit_records(tmp_path)[-1]["result"] == "ok"
    assert audit_records(tmp_path)[-1]["before"] == [[f"{scratch}/a", "data", "hello"]]


def test_set_with_a_stale_version_is_refused(tmp_path, config, kazoo, scratch):
    kazoo.create(scratch, b"v0")
    kazoo.set(scratch, b"changed by someone else")  # now at version 1
    result, _ = cli(tmp_path, config, "zk", "set", scratch, "mine", "--version", "0", "--execute")
    assert result.returncode == 1
    assert result.stderr.strip() == (f"streamctl: error: refused: {scratch} is at version 1, not 0 "
                                     "(it changed since it was read)")
    assert kazoo.get(scratch)[0] == b"changed by someone else"
    assert audit_records(tmp_path) == []


def test_set_refuses_a_change_between_plan_and_write(sandbox, kazoo, scratch):
    """The version read at plan time is what ZooKeeper checks when the write arrives."""
    from streamctl.backends.zookeeper import ZnodeConflict
    from streamctl.zookeeper import plans as zk_ops

    kazoo.create(scratch, b"v0")
    with ZooKeeperBackend(sandbox.state.zookeeper_hosts, timeout=5, read_only=False) as backend:
        plan = zk_ops.plan_set(backend, scratch, b"mine")
        kazoo.set(scratch, b"sneaked in")
        with pytest.raises(ZnodeConflict, match="changed since it was read"):
            backend.set(scratch, b"mine", plan.parameters["version"])
    assert kazoo.get(scratch)[0] == b"sneaked in"


def test_delete_of_a_non_empty_node_needs_recursive(tmp_path, config, kazoo, scratch):
    kazoo.create(f"{scratch}/a/b", b"x", makepath=True)
    result, _ = cli(tmp_path, config, "zk", "delete", scratch, "--execute")
    assert result.returncode == 1
    assert "refused" in result.stderr and "--recursive" in result.stderr
    assert kazoo.exists(f"{scratch}/a/b")

    plan, _ = cli(tmp_path, config, "zk", "delete", scratch, "--recursive", "-o", "json")
    assert [c["object"] for c in json.loads(plan.stdout)["changes"]] == [scratch, f"{scratch}/a", f"{scratch}/a/b"]
    assert kazoo.exists(f"{scratch}/a/b")

    result, _ = cli(tmp_path, config, "zk", "delete", scratch, "--recursive", "--execute")
    assert result.returncode == 0, result.stderr
    assert kazoo.exists(scratch) is None
    assert audit_records(tmp_path)[-1]["parameters"] == {"path": scratch, "recursive": True, "version": 0,
                                                         "znodes": 3}


def test_read_only_context_refuses_before_connecting(sandbox, tmp_path, kazoo, zk_settings):
    config = write_context(tmp_path / "ro.yaml", sandbox.bootstrap_servers, read_only=True,
                           zookeeper={**zk_settings, "hosts": "127.0.0.1:1"})  # nothing listens there
    path = f"/zkit-{uuid.uuid4().hex[:8]}"
    result, took = cli(tmp_path, config, "zk", "create", path, "--execute")
    assert result.returncode == 3
    assert result.stderr.strip() == "streamctl: error: context 'it' is read-only: refusing zk create"
    assert took < 5 and kazoo.exists(path) is None


# ---- health and Kafka views --------------------------------------------------------------------

def test_health_table_and_json(tmp_path, config):
    result, _ = cli(tmp_path, config, "zk", "health", "-o", "json")
    assert result.returncode == 0, result.stderr
    server, = json.loads(result.stdout)["servers"]
    assert (server["mode"], server["serving"]) == ("standalone", True)
    assert server["watch_count"] is not None and server["zxid"] > 0  # from the AdminServer
    probes = {p["command"]: p["status"] for p in server["probes"]}
    assert probes["srvr"] == "ok" and probes["mntr"] == "not available" and probes["admin/monitor"] == "ok"
    table, _ = cli(tmp_path, config, "zk", "health")
    assert "standalone" in table.stdout


def test_check_zookeeper_on_the_healthy_sandbox(tmp_path, config):
    result, _ = cli(tmp_path, config, "check", "--component", "zookeeper", "--format", "json")
    report = json.loads(result.stdout)
    codes = {f["code"]: f["severity"] for f in report["findings"]}
    assert result.returncode == 1, result.stdout  # a one-server ensemble has no fault tolerance
    assert codes == {"ZK_ENSEMBLE_SIZE": "WARN", "ZK_KAFKA_OK": "OK"}
    assert report["components"]["zookeeper"]["evaluated"] is True


def test_broker_and_partition_views_equal_the_admin_api(sandbox, tmp_path, config):
    topic = unique("zkv")
    sandbox.kafka().create_topic(topic, 3, 3)

    def agree():
        with ZooKeeperBackend(sandbox.state.zookeeper_hosts, timeout=5) as backend:
            view = KafkaZooKeeper(backend).view()
        md = sandbox.kafka().metadata()
        zk_states = {k: (s.leader, sorted(s.isr)) for k, s in view.states.items()}
        md_states = {(p.topic, p.partition): (p.leader, sorted(p.isr)) for p in md.partitions}
        brokers_equal = [(b.id, b.host, b.port) for b in view.brokers] == [(b.id, b.host, b.port) for b in md.brokers]
        return brokers_equal and zk_states == md_states and (topic, 2) in zk_states and view

    view = sandbox.wait_until(agree, timeout=30, what="ZooKeeper and the metadata to agree")
    assert view.controller.broker_id == sandbox.kafka().metadata().controller_id
    assert {t.name for t in view.topics} >= {topic}
    result, _ = cli(tmp_path, config, "zk", "kafka", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert [f["code"] for f in json.loads(result.stdout)["crosscheck"]] == ["ZK_KAFKA_OK"]


def test_watch_sees_a_stopped_broker_leave_and_come_back(sandbox, kazoo):
    seen: list[set[int]] = []
    with ZooKeeperBackend(sandbox.state.zookeeper_hosts, timeout=5) as backend:
        subscription = KafkaZooKeeper(backend).watch_brokers(lambda brokers: seen.append({b.id for b in brokers}))
        sandbox.wait_until(lambda: seen and seen[-1] == {1, 2, 3}, what="the first callback")
        with sandbox.broker_stopped("kafka-2"):
            sandbox.wait_until(lambda: seen[-1] == {1, 3}, timeout=30, what="the watch to drop broker 2")
            assert kazoo.exists("/brokers/ids/2") is None
        sandbox.wait_until(lambda: seen[-1] == {1, 2, 3}, timeout=60, what="the watch to see broker 2 again")
        subscription.cancel()


def test_stopped_zookeeper_is_critical_and_kafka_is_still_evaluated(sandbox, tmp_path, config):
    sandbox.sandbox.stop_service("zookeeper")
    try:
        result, took = cli(tmp_path, config, "check", "--component", "zookeeper", "--format", "json",
                           "--timeout", "10")
        assert result.returncode == 2, result.stdout + result.stderr
        assert took < 10 + 1
        report = json.loads(result.stdout)
        codes = {f["code"] for f in report["findings"] if f["severity"] == "CRIT"}
        assert codes == {"ZK_SERVER_DOWN", "ZK_NO_QUORUM"}

        kafka, _ = cli(tmp_path, config, "check", "--component", "kafka", "--format", "json", "--timeout", "30")
        kafka_report = json.loads(kafka.stdout)
        assert kafka_report["components"]["kafka"] == {"state": kafka_report["state"], "evaluated": True,
                                                       "reason": None}, kafka.stdout
        if kafka.returncode == 3:
            # ZooKeeper-mode brokers read topic configs (and, once their request threads are stuck
            # on ZooKeeper, group listings) from ZooKeeper: the Kafka rules call those KAFKA_PARTIAL.
            unknown = [f for f in kafka_report["findings"] if f["severity"] == "UNKNOWN"]
            assert unknown and {f["code"] for f in unknown} == {"KAFKA_PARTIAL"}, kafka.stdout
    finally:
        sandbox.sandbox.start_service("zookeeper")
        def registered():
            try:
                with ZooKeeperBackend(sandbox.state.zookeeper_hosts, timeout=5) as backend:
                    return backend.children("/brokers/ids")[0] == ["1", "2", "3"]
            except StreamctlError:
                return False

        sandbox.wait_until(registered, timeout=90, what="every broker registered in ZooKeeper again")

        def healthy():
            md = sandbox.kafka().metadata()
            return len(md.brokers) == 3 and not any(p.under_replicated for p in md.partitions)

        sandbox.wait_until(healthy, timeout=90, what="3 brokers in the metadata and no URP")
