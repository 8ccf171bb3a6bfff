"""A dashboard source replaying snapshots captured from the real sandbox (tests/fixtures/kafka)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

from streamctl.backends.flume import parse as parse_flume
from streamctl.backends.flume import status as flume_status
from streamctl.backends.zookeeper import NoSuchZnode
from streamctl.backends.zookeeper_data import parent_of, validate_path
from streamctl.backends.zookeeper_ensemble import merge_answers
from streamctl.flume.definition import sink_bindings
from streamctl.flume.health import flume_health
from streamctl.kafka.acls.access import AclView
from streamctl.kafka.health import kafka_health
from streamctl.kafka.reassign.progress import Reading
from streamctl.kafka.serialize import snapshot_from_dict
from streamctl.kafka.streams.apps import find_apps
from streamctl.model.health import Evaluation
from streamctl.model.zookeeper import Subscription, ZAcl, ZNode, ZStat
from streamctl.thresholds import Thresholds
from streamctl.zookeeper.health import ensemble_health

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kafka"


@dataclass
class GroupStatus:
    status: object
    detail: str = ""


@dataclass
class Status:
    value: str


@dataclass
class RecordedSource:
    fixture: str = "healthy"
    context_name: str = "recorded"
    read_only: bool = False
    statuses: dict = field(default_factory=dict)
    thresholds: Thresholds = field(default_factory=Thresholds)
    pipeline_scene: str = "demo"

    def __post_init__(self):
        self.snapshot = snapshot_from_dict(json.loads((FIXTURES / f"{self.fixture}.json").read_text()))

    def kafka_snapshot(self, lag_time: bool = True, group_details: bool = True, topic_configs: bool = True):
        return self.snapshot

    def kafka_broker_roles(self, broker_ids) -> dict[int, str]:
        return {}  # the recorded snapshots hold no broker configs: roles show as unknown

    def kafka_acls(self, topic=None, principal=None) -> AclView:
        return AclView((), no_authorizer=True)  # the recorded cluster is the plain sandbox: no authorizer

    def streams_apps(self) -> list:
        return find_apps(self.snapshot, self.thresholds.allowed_lag)

    def spark_cluster(self):
        return None  # no standalone Master in the recorded context

    def pipeline_map(self):
        """The demo's map from readings captured on it (tests/fixtures/pipeline), whatever `fixture`."""
        from streamctl.pipeline.derive import derive
        from tests.fixtures.capture_pipeline import load

        return derive(load(self.pipeline_scene), self.thresholds)

    def kafka_groups(self):
        return self.snapshot, {g.id: GroupStatus(Status(self.statuses.get(g.id, "OK"))) for g in self.snapshot.groups}

    def health(self) -> Evaluation:
        findings, metrics = kafka_health(self.snapshot, Thresholds(), expected_brokers=3)
        return Evaluation(findings=findings, metrics=metrics, evaluated=["kafka"])

    def context_names(self) -> list[str]:
        return [self.context_name]

    def topic_records(self, topic, last=20, offset=None, from_time=None, value=None) -> list:
        return []  # the recorded snapshots hold no records

    def next_records(self, positions) -> dict:
        return {}

    def reassignment(self) -> Reading:
        return Reading(0.0, {})  # the recorded cluster moves no partition


# ---- ZooKeeper and Flume, replayed from tests/fixtures/zookeeper and tests/fixtures/flume -------

ZOOKEEPER_FIXTURES = FIXTURES.parent / "zookeeper"
FLUME_FIXTURES = FIXTURES.parent / "flume"
WEBLOGS_CONFIG = FIXTURES.parents[2] / "agents" / "weblogs.properties"
ZK_SERVER = "127.0.0.1:2181"  # the capture did not keep the sandbox's client port: a label only
OPEN_ACL = [{"scheme": "world", "id": "anyone", "perms": 31}]  # what Kafka writes without zookeeper.set.acl


def znode_records() -> dict:
    """path -> {data, stat, acls, children}: kafka-browse.json when it has been captured
    (capture_zookeeper.py --browse-only), else derived from kafka-znodes.json: the captured
    znodes and their ancestors, each with its data, dataVersion, ephemeralOwner, data length
    and child count; zxids, times, cversion and aclVersion were not captured there and read 0,
    the ACL is Kafka's default world:anyone cdrwa."""
    browse = ZOOKEEPER_FIXTURES / "kafka-browse.json"
    if browse.exists():
        return json.loads(browse.read_text())
    captured = json.loads((ZOOKEEPER_FIXTURES / "kafka-znodes.json").read_text())
    records: dict = {"/": {"data": "", "version": 0, "ephemeral_owner": 0}}
    for path, node in captured.items():
        records[path] = node
        while path != "/":
            path = parent_of(path)
            records.setdefault(path, {"data": "", "version": 0, "ephemeral_owner": 0})
    children: dict = {path: [] for path in records}
    for path in records:
        if path != "/":
            children[parent_of(path)].append(path.rsplit("/", 1)[1])
    return {path: {"data": node["data"], "acls": OPEN_ACL, "children": sorted(children[path]),
                   "stat": {"czxid": 0, "mzxid": 0, "ctime": 0, "mtime": 0, "version": node["version"],
                            "cversion": 0, "aversion": 0, "ephemeral_owner": node["ephemeral_owner"],
                            "data_length": len(node["data"].encode()), "num_children": len(children[path]),
                            "pzxid": 0}}
            for path, node in sorted(records.items())}


class RecordedZooKeeper:
    """The reads the ZooKeeper screen makes, answered from znode_records(); watches never fire."""

    def __init__(self, records: dict):
        self.records = records

    def _record(self, path: str) -> dict:
        validate_path(path)
        if path not in self.records:
            raise NoSuchZnode(f"no znode {path} in the recorded data")
        return self.records[path]

    def _stat(self, path: str):
        return ZStat(**self._record(path)["stat"])

    def children(self, path: str):
        return list(self._record(path)["children"]), self._stat(path)

    def get(self, path: str):
        record = self._record(path)
        data = base64.b64decode(record["data_base64"]) if "data_base64" in record else record["data"].encode()
        return ZNode(path, data, self._stat(path))

    def acls(self, path: str):
        return [ZAcl(**a) for a in self._record(path)["acls"]], self._stat(path)

    def subscribe_data(self, path: str, callback):
        return Subscription(path, "data")

    def subscribe_children(self, path: str, callback):
        self._record(path)
        return Subscription(path, "children")


def recorded_ensemble() -> list:
    """The sandbox's standalone server as its srvr, mntr, ruok and AdminServer answers were captured."""
    answers: dict = {command: (ZOOKEEPER_FIXTURES / f"sandbox-{command}.txt").read_text()
                     for command in ("srvr", "mntr", "ruok")}
    for command in ("monitor", "srvr", "ruok"):
        answers[f"admin/{command}"] = json.loads((ZOOKEEPER_FIXTURES / f"sandbox-admin-{command}.json").read_text())
    return [merge_answers(ZK_SERVER, answers, admin_configured=True)]


def recorded_flume(now: str, before: str | None) -> list:
    """The weblogs agent's status between two captured polls (rates from their difference),
    its sinks bound to channels by the shipped agents/weblogs.properties."""
    def load(name: str) -> dict:
        return json.loads((FLUME_FIXTURES / f"{name}.json").read_text())

    current = load(now)
    baseline = parse_flume(load(before)["payload"], load(before)["taken_at"]) if before else None
    return [flume_status("weblogs", current["url"], parse_flume(current["payload"], current["taken_at"]),
                         baseline, None, sink_bindings(WEBLOGS_CONFIG, "weblogs"))]


@dataclass
class RecordedStackSource(RecordedSource):
    """RecordedSource plus the sandbox's ZooKeeper and its Flume agent between two polls."""

    flume_polls: tuple = ("flowing-2", "flowing-1")  # (current, baseline)

    def __post_init__(self):
        super().__post_init__()
        self.zk = RecordedZooKeeper(znode_records())

    def zookeeper(self):
        return self.zk

    def zk_ensemble(self) -> list:
        return recorded_ensemble()

    def flume_agents(self) -> list:
        return recorded_flume(*self.flume_polls)

    def health(self) -> Evaluation:
        kafka = super().health()
        zk_findings, zk_metrics = ensemble_health(recorded_ensemble(), Thresholds())
        flume_findings, flume_metrics = flume_health(self.flume_agents(), Thresholds())
        return Evaluation(findings=kafka.findings + zk_findings + flume_findings,
                          metrics=kafka.metrics + zk_metrics + flume_metrics,
                          evaluated=["kafka", "zookeeper", "flume"])
