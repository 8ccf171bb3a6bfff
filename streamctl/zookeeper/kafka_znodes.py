"""Kafka in ZooKeeper mode, read from its znodes: brokers, topics, partition states, controller,
pending admin work. A layer over the generic ZooKeeper adapter (no UI, no Kafka client).

Payload versions accepted (from Kafka's kafka.zk.ZkData, which documents each):
    /brokers/ids/<id>              v1 host/port/jmx_port/timestamp; v2 + endpoints; v3 + rack;
                                   v4 + listener_security_protocol_map; v5 + features (2.7+)
    /brokers/topics/<t>            v1 partitions; v2 + adding_replicas/removing_replicas (2.4+);
                                   v3 + topic_id (2.8+; topic_id also appears with v2)
    .../partitions/<p>/state       v1 leader, leader_epoch, isr, controller_epoch;
                                   + leader_recovery_state when not RECOVERED (3.2+)
    /controller                    v1 brokerid, timestamp; v2 + kraftControllerEpoch (3.4+)
    /admin/reassign_partitions     v1 {"partitions": [{"topic", "partition", "replicas"}]}
    /admin/preferred_replica_election  v1 {"partitions": [{"topic", "partition"}]}
Unknown extra keys are kept in `raw`, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, overload

from streamctl.backends.zookeeper import ZooKeeperBackend
from streamctl.model.zookeeper import Subscription

BROKER_IDS = "/brokers/ids"
TOPICS = "/brokers/topics"
CONTROLLER = "/controller"
CONTROLLER_EPOCH = "/controller_epoch"
DELETE_TOPICS = "/admin/delete_topics"
REASSIGN = "/admin/reassign_partitions"
PREFERRED_ELECTION = "/admin/preferred_replica_election"


@dataclass(frozen=True)
class Endpoint:
    listener: str
    host: str
    port: int
    security_protocol: str | None = None

    def __str__(self) -> str:
        return f"{self.listener}://{self.host}:{self.port}"


@dataclass(frozen=True)
class ZkBroker:
    id: int
    version: int
    host: str | None  # the PLAINTEXT endpoint, kept for old clients (None when there is none)
    port: int | None
    endpoints: tuple[Endpoint, ...]
    rack: str | None = None
    jmx_port: int | None = None
    timestamp: int | None = None  # registration time, ms
    features: dict = field(default_factory=dict)
    session: int | None = None  # the ephemeral owner: the broker's ZooKeeper session
    raw: dict = field(default_factory=dict)

    def addresses(self) -> set[tuple[str, int]]:
        found = {(e.host, e.port) for e in self.endpoints}
        if self.host and self.port and self.port > 0:
            found.add((self.host, self.port))
        return found


@dataclass(frozen=True)
class ZkTopic:
    name: str
    version: int
    partitions: dict[int, tuple[int, ...]]  # partition -> replicas (assignment)
    adding: dict[int, tuple[int, ...]] = field(default_factory=dict)
    removing: dict[int, tuple[int, ...]] = field(default_factory=dict)
    topic_id: str | None = None


@dataclass(frozen=True)
class ZkPartitionState:
    topic: str
    partition: int
    leader: int  # -1: none
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int
    version: int = 1
    leader_recovery_state: int = 0  # 1: recovering from an unclean election
    zk_version: int | None = None  # the znode's data version (Kafka's partition epoch)


@dataclass(frozen=True)
class ZkController:
    broker_id: int
    version: int
    timestamp: int | None = None
    kraft_controller_epoch: int | None = None  # migration to KRaft; -1 when not migrating
    session: int | None = None


@dataclass(frozen=True)
class PendingAdmin:
    deletions: tuple[str, ...] = ()
    reassignments: tuple[tuple[str, int, tuple[int, ...]], ...] = ()
    preferred_elections: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class KafkaZkView:
    """What ZooKeeper says about the Kafka cluster, read in a few pipelined rounds."""

    brokers: tuple[ZkBroker, ...]
    controller: ZkController | None
    controller_epoch: int | None
    topics: tuple[ZkTopic, ...]
    states: dict[tuple[str, int], ZkPartitionState]
    pending: PendingAdmin
    errors: tuple[str, ...] = ()  # znodes that could not be parsed

    def broker(self, broker_id: int) -> ZkBroker | None:
        return next((b for b in self.brokers if b.id == broker_id), None)


# ---- parsers (pure) -----------------------------------------------------------------------

# What a parser raises for a payload it cannot read; the view lists such znodes in `errors`.
PAYLOAD_ERRORS = (ValueError, KeyError, TypeError)


def _json(data: bytes) -> dict:
    try:
        doc = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    return doc


def _int(value) -> int:
    """int() for payload fields; an infinite float (JSON 1e999) is a ValueError like any bad number."""
    try:
        return int(value)
    except OverflowError:
        raise ValueError(f"not a number: {value!r}") from None


@overload
def _str(value: object, what: str, required: Literal[True]) -> str: ...
@overload
def _str(value: object, what: str, required: bool = False) -> str | None: ...
def _str(value, what: str, required: bool = False) -> str | None:
    if (value is not None or required) and not isinstance(value, str):
        raise TypeError(f"{what} is not a string")
    return value


def _dict(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not a JSON object")
    return value


def parse_endpoint(text: str, protocols: dict[str, str] | None = None) -> Endpoint:
    """'PLAINTEXT://host:9092', 'SSL://[::1]:9093' -> Endpoint."""
    if not isinstance(text, str):
        raise TypeError(f"endpoint {text!r} is not a string")
    listener, sep, address = text.partition("://")
    if not sep:
        raise ValueError(f"endpoint {text!r} has no listener")
    host, _, port = address.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    name = listener.upper()
    return Endpoint(name, host, _int(port), (protocols or {}).get(name, name if name in _PROTOCOLS else None))


_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


def parse_broker(broker_id: int, data: bytes, session: int | None = None) -> ZkBroker:
    """A /brokers/ids/<id> registration, any version (1-5)."""
    doc = _json(data)
    version = _int(doc.get("version", 1))
    host, port = _str(doc.get("host"), "host"), doc.get("port")
    port = _int(port) if port is not None else None
    if version <= 1 or "endpoints" not in doc:
        endpoints: tuple[Endpoint, ...] = (Endpoint("PLAINTEXT", host, port, "PLAINTEXT"),) if host and port and port > 0 else ()
    else:
        protocols = {str(k).upper(): v for k, v in
                     _dict(doc.get("listener_security_protocol_map") or {}, "listener_security_protocol_map").items()}
        endpoints = tuple(parse_endpoint(e, protocols) for e in doc["endpoints"])
    timestamp = doc.get("timestamp")
    jmx = doc.get("jmx_port")
    return ZkBroker(
        id=broker_id, version=version, host=host or None, port=port if port and port > 0 else None,
        endpoints=endpoints, rack=_str(doc.get("rack"), "rack"),
        jmx_port=_int(jmx) if jmx is not None and _int(jmx) >= 0 else None,
        timestamp=_int(timestamp) if timestamp not in (None, "") else None,
        features=doc.get("features") or {}, session=session, raw=doc,
    )


def _replica_map(section) -> dict[int, tuple[int, ...]]:
    return {_int(p): tuple(_int(r) for r in replicas)
            for p, replicas in _dict(section or {}, "replica map").items()}


def parse_topic(name: str, data: bytes) -> ZkTopic:
    """A /brokers/topics/<t> assignment, any version (1-3)."""
    doc = _json(data)
    return ZkTopic(name=name, version=_int(doc.get("version", 1)),
                   partitions=dict(sorted(_replica_map(doc.get("partitions")).items())),
                   adding=_replica_map(doc.get("adding_replicas")),
                   removing=_replica_map(doc.get("removing_replicas")),
                   topic_id=doc.get("topic_id"))


def parse_partition_state(topic: str, partition: int, data: bytes, zk_version: int | None = None) -> ZkPartitionState:
    doc = _json(data)
    return ZkPartitionState(topic=topic, partition=partition, leader=_int(doc["leader"]),
                            leader_epoch=_int(doc["leader_epoch"]),
                            isr=tuple(_int(r) for r in doc["isr"]),
                            controller_epoch=_int(doc["controller_epoch"]),
                            version=_int(doc.get("version", 1)),
                            leader_recovery_state=_int(doc.get("leader_recovery_state", 0)),
                            zk_version=zk_version)


def parse_controller(data: bytes, session: int | None = None) -> ZkController:
    doc = _json(data)
    timestamp = doc.get("timestamp")
    epoch = doc.get("kraftControllerEpoch")
    return ZkController(broker_id=_int(doc["brokerid"]), version=_int(doc.get("version", 1)),
                        timestamp=_int(timestamp) if timestamp not in (None, "") else None,
                        kraft_controller_epoch=_int(epoch) if epoch is not None else None,
                        session=session)


def parse_reassignment(data: bytes) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    doc = _json(data)
    return tuple((_str(p["topic"], "topic", required=True), _int(p["partition"]),
                  tuple(_int(r) for r in p["replicas"])) for p in doc.get("partitions", []))


def parse_preferred_election(data: bytes) -> tuple[tuple[str, int], ...]:
    doc = _json(data)
    return tuple((_str(p["topic"], "topic", required=True), _int(p["partition"])) for p in doc.get("partitions", []))


# ---- reading -------------------------------------------------------------------------------

class KafkaZooKeeper:
    """The Kafka cluster's znodes under an optional chroot (ZooKeeperSettings.chroot)."""

    def __init__(self, zk: ZooKeeperBackend, chroot: str | None = None):
        self.zk = zk
        self.chroot = (chroot or "").rstrip("/")

    def path(self, kafka_path: str) -> str:
        return f"{self.chroot}{kafka_path}"

    def is_kafka(self) -> bool:
        return self.zk.exists(self.path(BROKER_IDS)) is not None

    def brokers(self) -> tuple[tuple[ZkBroker, ...], list[str]]:
        """Registered brokers, sorted by id, and the registrations that could not be parsed."""
        ids = self.zk.children_many([self.path(BROKER_IDS)])[self.path(BROKER_IDS)] or []
        return self._brokers(ids)

    def _brokers(self, ids: list[str]) -> tuple[tuple[ZkBroker, ...], list[str]]:
        nodes = self.zk.get_many(self.path(f"{BROKER_IDS}/{i}") for i in ids)
        brokers, errors = [], []
        for name in ids:
            node = nodes[self.path(f"{BROKER_IDS}/{name}")]
            if node is None:
                continue  # deregistered meanwhile
            try:
                brokers.append(parse_broker(int(name), node.data, node.stat.ephemeral_owner or None))
            except PAYLOAD_ERRORS as exc:
                errors.append(f"{node.path}: unreadable registration ({exc})")
        return tuple(sorted(brokers, key=lambda b: b.id)), errors

    def view(self) -> KafkaZkView:
        """Everything, in three pipelined rounds: listings, registrations, partition states."""
        lists = self.zk.children_many([self.path(BROKER_IDS), self.path(TOPICS), self.path(DELETE_TOPICS)])
        singles = self.zk.get_many([self.path(p) for p in (CONTROLLER, CONTROLLER_EPOCH, REASSIGN,
                                                          PREFERRED_ELECTION)])
        brokers, errors = self._brokers(lists[self.path(BROKER_IDS)] or [])
        topic_names = lists[self.path(TOPICS)] or []
        topic_nodes = self.zk.get_many(self.path(f"{TOPICS}/{t}") for t in topic_names)
        topics = []
        for name in topic_names:
            node = topic_nodes[self.path(f"{TOPICS}/{name}")]
            if node is None:
                continue
            try:
                topics.append(parse_topic(name, node.data))
            except PAYLOAD_ERRORS as exc:
                errors.append(f"{node.path}: unreadable assignment ({exc})")
        states = self._states(topics, errors)
        controller = epoch = None
        node = singles[self.path(CONTROLLER)]
        if node is not None:
            try:
                controller = parse_controller(node.data, node.stat.ephemeral_owner or None)
            except PAYLOAD_ERRORS as exc:
                errors.append(f"{node.path}: unreadable ({exc})")
        node = singles[self.path(CONTROLLER_EPOCH)]
        if node is not None:
            try:
                epoch = int(node.data.decode())
            except ValueError as exc:
                errors.append(f"{node.path}: unreadable ({exc})")
        pending = PendingAdmin(
            deletions=tuple(lists[self.path(DELETE_TOPICS)] or ()),
            reassignments=self._optional(singles[self.path(REASSIGN)], parse_reassignment, errors),
            preferred_elections=self._optional(singles[self.path(PREFERRED_ELECTION)],
                                               parse_preferred_election, errors),
        )
        return KafkaZkView(brokers, controller, epoch, tuple(topics), states, pending, tuple(errors))

    def _states(self, topics: list[ZkTopic], errors: list[str]) -> dict[tuple[str, int], ZkPartitionState]:
        wanted = {self.path(f"{TOPICS}/{t.name}/partitions/{p}/state"): (t.name, p)
                  for t in topics for p in t.partitions}
        nodes = self.zk.get_many(wanted)
        states = {}
        for path, (topic, partition) in wanted.items():
            node = nodes[path]
            if node is None:
                continue  # not initialised yet (a topic being created)
            try:
                states[(topic, partition)] = parse_partition_state(topic, partition, node.data, node.stat.version)
            except PAYLOAD_ERRORS as exc:
                errors.append(f"{path}: unreadable ({exc})")
        return states

    @staticmethod
    def _optional(node, parse, errors: list[str]):
        if node is None or not node.data:
            return ()
        try:
            return parse(node.data)
        except PAYLOAD_ERRORS as exc:
            errors.append(f"{node.path}: unreadable ({exc})")
            return ()

    def watch_brokers(self, callback: Callable[[tuple[ZkBroker, ...]], None]) -> Subscription:
        """Call `callback(brokers)` now and whenever a broker registers or goes away."""
        def on_ids(ids: list[str]) -> None:
            callback(self._brokers(ids)[0])

        return self.zk.subscribe_children(self.path(BROKER_IDS), on_ids)
