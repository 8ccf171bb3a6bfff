"""Kafka adapter on confluent-kafka's AdminClient: plain dataclasses out, every call bounded.

One snapshot costs a fixed number of round trips whatever the cluster size: one metadata
call, one batched describe_configs (topics plus one broker), two batched list_offsets
(earliest, latest), one list + one batched describe of the consumer groups, and
list_consumer_group_offsets (one group per call, so issued concurrently with a cap); with
`access=True` (check), one DescribeAcls and one DescribeConfigs per broker (access_reads.py).
Lag in time reads the record at each lagging partition's committed offset through ONE
consumer for all partitions, never a consumer per partition.
"""

from __future__ import annotations

import concurrent.futures
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka import KafkaError as KafkaErrorCode
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from streamctl.backends.kafka.access_reads import read_access
from streamctl.backends.kafka.authz import CLUSTER, Acl, principal, refusal
from streamctl.backends.kafka.client import (
    Deadline,
    KafkaError,
    call,
    mutation,
    new_client,
    reason,
    socket_timeout_ms,
    tls_reason,
)
from streamctl.backends.kafka.group_reads import committed_offsets, describe_groups, listed_groups
from streamctl.backends.kafka.group_types import typed_groups
from streamctl.backends.kafka.record_times import probe_consumer, with_lag_seconds
from streamctl.model.acls import ClusterAccess
from streamctl.model.kafka import (
    Broker,
    ConsumerGroup,
    KafkaSnapshot,
    PartitionLag,
    PartitionState,
    Topic,
)

KEY_CONFIGS = ("min.insync.replicas", "retention.ms", "retention.bytes", "cleanup.policy",
               "max.message.bytes", "segment.bytes")
EARLIEST, LATEST = -2, -1  # ListOffsets' special timestamps


_AUTH_DETAIL = re.compile(r"\s*\(after \d+ms in state \w+\)$")  # librdkafka's timing suffix


class KafkaBackend:
    def __init__(self, client_config: dict[str, str], timeout: float = 10.0, kraft: bool | None = None):
        self.client_config = dict(client_config)
        self.timeout = timeout
        self.kraft = kraft  # None: ask the cluster
        # Why the brokers refused the login, from librdkafka's error callback (which holds
        # this list, not the backend: no reference cycle keeps a dropped client alive).
        self._refused: list[str] = []
        self._admin_config = {
            "error_cb": lambda err, refused=self._refused, config=self.client_config: _note_refusal(err, refused, config),
            **self.client_config,
            "socket.timeout.ms": socket_timeout_ms(timeout),
            "log_level": "0",  # connection failures become findings, not stderr noise
        }
        self._admin = new_client(AdminClient, self._admin_config)
        self._configs_client: AdminClient | None = None
        self._configs_client_lock = threading.Lock()

    @property
    def principal(self) -> str:
        """Who the cluster's ACLs see (`User:<sasl.username>`)."""
        return principal(self.client_config)

    def _call(self, fn, what: str, *needs: Acl):
        """`call`; a refusal by the cluster's authorizer names the ACL missing among `needs`."""
        return call(fn, what, lambda exc: refusal(exc, what, self.principal, needs))

    # ---- metadata ----------------------------------------------------------------------

    def metadata(self, topic: str | None = None, deadline: Deadline | None = None) -> KafkaSnapshot:
        """Brokers, controller and partition states from one metadata call."""
        deadline = deadline or Deadline(self.timeout)
        md = self._metadata(topic, deadline)
        if self.kraft is None and md.brokers:
            self._learn_mode(self._any_broker_configs(md, deadline))
        return _snapshot_of(md, bool(self.kraft))

    def _any_broker_configs(self, md, deadline: Deadline):
        """The configs of whichever of up to MODE_ASKED brokers answers first: a stopped broker
        stays listed until its session expires, and must not fail the metadata read."""
        futures = []
        for broker_id in sorted(md.brokers)[:MODE_ASKED]:
            resource = ConfigResource(ResourceType.BROKER, str(broker_id))
            futures.append(self._admin.describe_configs(
                [resource], request_timeout=deadline.left("describe_configs"))[resource])
        pending, failure = set(futures), None
        while pending:
            done, pending = concurrent.futures.wait(pending, timeout=deadline.left("describe_configs"),
                                                    return_when=concurrent.futures.FIRST_COMPLETED)
            if not done:
                break
            for future in done:
                try:
                    return self._call(lambda future=future: future.result(timeout=0), "describing a broker",
                                      Acl("Cluster", CLUSTER, "DescribeConfigs"))
                except KafkaError as exc:
                    failure = failure or exc
        raise failure or KafkaError("describing a broker timed out")

    def broker_roles(self, broker_ids: Iterable[int], deadline: Deadline | None = None) -> dict[int, str]:
        """The `process.roles` ("broker,controller") of each broker named (the metadata the
        caller already read lists them). Empty in ZooKeeper
        mode, where brokers have none set. librdkafka takes one broker per DescribeConfigs: the
        calls are in flight together. A node that is only a controller is not registered: the
        quorum (`check --component quorum`) lists it."""
        deadline = deadline or Deadline(self.timeout)
        admin = self._configs_admin()
        futures = {}
        for broker in sorted(broker_ids):
            resource = ConfigResource(ResourceType.BROKER, str(broker))
            futures[broker] = admin.describe_configs(
                [resource], request_timeout=deadline.left("describe_configs"))[resource]
        roles = {}
        for broker, future in futures.items():
            entries = self._call(lambda: future.result(timeout=deadline.left("describe_configs")),  # noqa: B023 - called here
                                 f"describing broker {broker}", Acl("Cluster", CLUSTER, "DescribeConfigs"))
            if (value := entries.get("process.roles")) is not None and value.value:
                roles[broker] = value.value
        return roles

    def _metadata(self, topic: str | None, deadline: Deadline):
        try:
            return call(lambda: self._admin.list_topics(topic=topic, timeout=deadline.left("metadata")),
                         "metadata request")
        except KafkaError:
            self._admin.poll(0)  # serves error_cb: a refused login shows only there
            if self._refused:
                raise KafkaError(f"metadata request failed: {self._refused[-1]}") from None
            raise

    def _configs_admin(self) -> AdminClient:
        """A client of its own for the batched DescribeConfigs. A broker serves one request per
        connection at a time and takes 100 ms or more to describe hundreds of topics: on the
        shared connection, every group offset read sent to that broker waited behind it."""
        with self._configs_client_lock:
            if self._configs_client is None:
                self._configs_client = new_client(AdminClient, self._admin_config)
            return self._configs_client

    def _learn_mode(self, broker_configs) -> None:
        """KRaft brokers have `process.roles` set; asked once per backend, then remembered."""
        roles = broker_configs.get("process.roles")
        self.kraft = bool(roles and roles.value)

    # ---- the full snapshot ----------------------------------------------------------------

    def snapshot(self, groups: bool = True, lag_time: bool = True,
                 deadline: Deadline | None = None,
                 group_filter: Callable[[str], bool] = lambda _: True,
                 known_record_times: Mapping[tuple[str, int, int], float] | None = None,
                 group_members: bool = True, group_offsets: bool = True,
                 topic_configs: bool = True, known_groups: Iterable[str] = (),
                 known_topic_configs: Mapping[str, tuple[dict[str, str], float]] | None = None,
                 access: bool = False, group_types: bool = False) -> KafkaSnapshot:
        """Everything check and the dashboard show, in a fixed number of round trips.

        `group_members=False` skips describing the groups: each then has only the state and
        type the group listing gives, no members, assignments or coordinator (the health
        rules need none of them, and describing 300 groups costs the brokers ~80 ms of CPU).
        `group_offsets=False` skips their committed offsets too (no lags): one request per
        group, for screens that only name the groups. `topic_configs=False` skips describing
        the topics' configs (no min.insync.replicas, so no under-min-ISR): ~80 ms of broker CPU
        for 300 topics, for screens that show none.

        `known_record_times`: timestamps of records read before, by (topic, partition, offset).
        A record's timestamp never changes, so those are not read again.

        `known_topic_configs`: key configs read before, with when, by topic. A topic whose
        every partition has its full ISR keeps them instead of being described again: then
        only min.insync.replicas against the replica count matters, which a stale value
        judges as well. A topic with a shrunk ISR or no leader is always described afresh.

        `group_types=True` also lists the groups through kafka-python (ListGroups v5, at the same
        time as the other group reads): every group gets its type (classic, consumer, share,
        streams) and share and streams groups, which librdkafka does not list, appear (state and
        type only). If that listing fails, every type is UNKNOWN and the failure is in `errors`.

        `known_groups`: groups seen before (the lag history's). The listing asks every broker
        for the groups it coordinates, and while a coordinator moves a group can be on neither
        broker's list for a moment: a known group the listing misses is described directly,
        and kept unless it is gone (state DEAD).

        Requests that do not depend on each other are in flight together: the group listing
        starts with the metadata call; configs, both watermark sets, the group describes and
        the committed offsets all overlap; only the lag-in-time read waits for offsets.
        """
        deadline = deadline or Deadline(self.timeout)
        errors: list[str] = []
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=12, thread_name_prefix="kafka-snapshot")
        probe = probe_consumer(self.client_config, self.timeout)
        stuck: list[concurrent.futures.Future] = []  # offset reads still inside `probe`
        try:
            groups_job = (pool.submit(self._groups_and_offsets, pool, deadline, errors, group_filter,
                                      group_members, group_offsets, known_groups, group_types) if groups else None)
            md = self._metadata(None, deadline)
            configs_job = pool.submit(self._configs, md, deadline, errors, topic_configs, known_topic_configs or {})
            access_job = pool.submit(self._access, md, deadline) if access else None
            earliest, latest = self._watermarks(probe, pool, md, deadline, errors, stuck)
            configs = configs_job.result()
            access_state = access_job.result() if access_job is not None else None
            described, committed, offsets_read_at = _partial(groups_job, errors, "consumer groups")
            snap = _snapshot_of(md, bool(self.kraft), configs, earliest, latest)
            lags = _lags(committed, earliest, latest) if groups else []
            if lag_time:
                lags = with_lag_seconds(probe, lags, deadline, errors, known_record_times or {})
        finally:
            # A failed metadata call must not wait for the group reads still in flight.
            pool.shutdown(wait=False, cancel_futures=True)
            if not any(not job.done() for job in stuck):  # else closing it under them would crash
                probe.close()
        if access_job is not None:
            snap = replace(snap, access=access_state)
        if groups:
            snap = replace(snap, groups=described, lags=tuple(lags), offsets_read_at=offsets_read_at)
        return replace(snap, errors=tuple(errors))

    def _access(self, md, deadline: Deadline) -> ClusterAccess:
        try:
            return read_access(self._configs_admin(), list(md.brokers), deadline, self.principal)
        except KafkaError as exc:  # the deadline ran out before a call could be sent
            return ClusterAccess(None, f"ACLs: {exc}")

    def _groups_and_offsets(self, pool, deadline: Deadline, errors: list[str], keep: Callable[[str], bool],
                            members: bool, offsets: bool, known: Iterable[str] = (), types: bool = False):
        """The listed groups (described, when `members`) and their committed offsets (when
        `offsets`), read at the same time; known groups the listing missed are described and
        read alongside (a failed listing leaves only those)."""
        known = {g for g in known if keep(g)}
        typed_job = pool.submit(self._typed_listing, deadline, errors) if types else None
        try:
            listed = listed_groups(self._admin, deadline, errors, keep)
        except KafkaError as exc:
            if not known:
                raise
            errors.append(f"consumer groups: {exc}")
            listed = ()
        unlisted = sorted(known - {g.id for g in listed})
        recovered = pool.submit(self._known_unlisted, unlisted, deadline, errors) if unlisted else None
        described = (pool.submit(describe_groups, self._admin, [g.id for g in listed], deadline, errors)
                     if members else None)
        committed = committed_offsets(self._admin, [g.id for g in listed] + unlisted, deadline, errors) if offsets else {}
        read_at = time.time() if offsets else None
        # A group whose describe failed (its coordinator moving) is still a group: it keeps
        # what the listing said of it; the failure is in `errors`.
        by_id = {g.id: g for g in (described.result() if described else ())}
        groups = [by_id.get(g.id, g) for g in listed] + list(recovered.result() if recovered else ())
        if typed_job is not None:
            groups = list(typed_groups(tuple(groups), typed_job.result(), keep))
        kept = {g.id for g in groups}
        return (tuple(sorted(groups, key=lambda g: g.id)),
                {g: o for g, o in committed.items() if g in kept}, read_at)

    def _typed_listing(self, deadline: Deadline, errors: list[str]) -> list[dict] | None:
        """ListGroups v5 through kafka-python (every group with its type); None when it fails."""
        from streamctl.backends.kafka.wire_reads import WireReads

        try:
            return WireReads(self.client_config, timeout=deadline.left("listing group types")).group_listing()
        except KafkaError as exc:
            errors.append(f"group types (shown as unknown): {exc}")
            return None

    def _known_unlisted(self, ids: list[str], deadline: Deadline, errors: list[str]) -> tuple[ConsumerGroup, ...]:
        """Known groups the listing missed, described: those the cluster no longer has (DEAD, or
        not found) are dropped; one whose describe failed is kept in state UNKNOWN."""
        gone: set[str] = set()
        found = {g.id: g for g in describe_groups(self._admin, ids, deadline, errors, gone)}
        kept = (found.get(g, ConsumerGroup(id=g, state="UNKNOWN")) for g in ids if g not in gone)
        return tuple(g for g in kept if g.state != "DEAD")

    def _configs(self, md, deadline: Deadline, errors: list[str], topics: bool,
                 known: Mapping[str, tuple[dict[str, str], float]]) -> dict[str, tuple[dict[str, str], float]]:
        """(key configs, when read) of every topic (when `topics`; and, the first time, one
        broker's): the `known` ones of topics whose ISR is full, the others in one batched call."""
        online = [t for t in md.topics.values() if t.error is None] if topics else []
        configs = {t.topic: known[t.topic] for t in online if t.topic in known and _isr_full(t)}
        resources = [ConfigResource(ResourceType.TOPIC, t.topic) for t in online if t.topic not in configs]
        broker = _broker_resource(md) if self.kraft is None and md.brokers else None
        if broker is not None:
            resources.append(broker)
        if not resources:
            return configs
        read_at = time.time()
        futures = self._configs_admin().describe_configs(resources, request_timeout=deadline.left("describe_configs"))
        for resource, future in futures.items():
            try:
                entries = future.result(timeout=deadline.left("describe_configs"))
            except (KafkaException, concurrent.futures.TimeoutError) as exc:
                errors.append(f"configs of {resource.name}: {reason(exc)}")
                continue
            if resource == broker:
                self._learn_mode(entries)
            else:
                configs[resource.name] = ({k: entries[k].value for k in KEY_CONFIGS if k in entries}, read_at)
        return configs

    def _watermarks(self, probe: Consumer, pool, md, deadline: Deadline, errors: list[str],
                    stuck: list[concurrent.futures.Future]):
        """Earliest and latest offsets of every online partition: one ListOffsets request per
        leader and kind, all in flight together. A broker that does not answer costs only the
        partitions it leads (they go to `errors`), never the others'. librdkafka can answer
        past the call's timeout (a registered broker that died): the deadline is kept here,
        and the reads still running are left in `stuck`."""
        by_leader: dict[int, list[TopicPartition]] = {}
        for t in md.topics.values():
            if t.error is None:
                for p in t.partitions.values():
                    if p.leader >= 0:
                        by_leader.setdefault(p.leader, []).append(TopicPartition(t.topic, p.id))
        jobs = {(kind, leader): pool.submit(self._leader_offsets, probe, leader, partitions, kind, deadline, errors)
                for leader, partitions in by_leader.items() for kind in (EARLIEST, LATEST)}
        offsets: dict[int, dict[tuple[str, int], int]] = {EARLIEST: {}, LATEST: {}}
        concurrent.futures.wait(jobs.values(), timeout=deadline.remaining())
        for (kind, leader), job in jobs.items():
            if job.done():
                offsets[kind].update(job.result())
            else:
                stuck.append(job)
                errors.append(f"offsets of the {len(by_leader[leader])} partitions led by broker {leader}: "
                              "no answer within the deadline")
        return offsets[EARLIEST], offsets[LATEST]

    @staticmethod
    def _leader_offsets(probe: Consumer, leader: int, partitions: list[TopicPartition], kind: int,
                        deadline: Deadline, errors: list[str]) -> dict[tuple[str, int], int]:
        # ListOffsets with the special timestamps -2/-1 answers the earliest/latest offset.
        query = [TopicPartition(tp.topic, tp.partition, kind) for tp in partitions]
        try:
            answer = probe.offsets_for_times(query, timeout=deadline.left("list_offsets"))
        except (KafkaException, KafkaError) as exc:
            errors.append(f"offsets of the {len(partitions)} partitions led by broker {leader}: {reason(exc)}")
            return {}
        offsets = {}
        for tp in answer:
            if tp.error is not None:
                errors.append(f"offsets of {tp.topic}/{tp.partition}: {tp.error.str()}")
            elif tp.offset >= 0:
                offsets[(tp.topic, tp.partition)] = tp.offset
        return offsets

    # ---- topic creation (the sandbox and tests use it; operations live in admin.py) ----

    @mutation
    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     config: dict[str, str] | None = None, validate_only: bool = False) -> None:
        futures = self._admin.create_topics(
            [NewTopic(name, partitions, replication_factor, config=config or {})],
            operation_timeout=self.timeout, request_timeout=self.timeout, validate_only=validate_only,
        )
        self._call(lambda: futures[name].result(timeout=self.timeout + 5), f"creating topic {name!r}",
                   Acl("Topic", name, "Create", alternative=Acl("Cluster", CLUSTER, "Create")))


def _isr_full(topic_metadata) -> bool:
    return all(p.leader >= 0 and len(p.isrs) == len(p.replicas) for p in topic_metadata.partitions.values())


MODE_ASKED = 3  # brokers asked at once whether the cluster runs in KRaft mode


def _broker_resource(md) -> ConfigResource:
    return ConfigResource(ResourceType.BROKER, str(min(md.brokers)))


def _snapshot_of(md, kraft: bool, configs: dict | None = None, earliest: dict | None = None,
                 latest: dict | None = None) -> KafkaSnapshot:
    """Brokers, controller and partition states of a metadata answer, with the topics' key
    configs and the partitions' watermarks where they were read (built in one pass: a large
    cluster has tens of thousands of partitions)."""
    configs, earliest, latest = configs or {}, earliest or {}, latest or {}
    brokers = tuple(
        Broker(id=b.id, host=b.host, port=b.port, is_controller=not kraft and b.id == md.controller_id)
        for b in sorted(md.brokers.values(), key=lambda b: b.id)
    )
    topics = []
    for t in sorted(md.topics.values(), key=lambda t: t.topic):
        if t.error is not None:
            continue
        topic_configs, configs_read_at = configs.get(t.topic, ({}, None))
        min_isr = _int(topic_configs.get("min.insync.replicas"))
        partitions = tuple(
            PartitionState(t.topic, p.id, p.leader, tuple(p.replicas), tuple(p.isrs),
                           earliest.get((t.topic, p.id)), latest.get((t.topic, p.id)), min_isr)
            for p in sorted(t.partitions.values(), key=lambda p: p.id)
        )
        topics.append(Topic(t.topic, t.topic.startswith("__"), partitions, topic_configs, configs_read_at))
    controller = None if kraft or md.controller_id < 0 else md.controller_id
    return KafkaSnapshot(time.time(), md.cluster_id, brokers, controller, kraft, tuple(topics))


def _note_refusal(err, refused: list[str], config: dict[str, str]) -> None:
    """librdkafka's error callback: keep why the brokers refused the login (wrong credentials,
    a mechanism they do not enable) or the TLS handshake (an OpenSSL error, turned into a line
    naming the setting to look at); the call itself fails as a mere transport failure."""
    if err.code() == KafkaErrorCode._AUTHENTICATION:
        refused[:] = [_AUTH_DETAIL.sub("", err.str())]
    elif err.code() in (KafkaErrorCode._SSL, KafkaErrorCode._TRANSPORT) and (hint := tls_reason(err.str(), config)):
        refused[:] = [hint]


def _partial(job, errors: list[str], what: str):
    """The groups part of a snapshot: a failure there leaves topics and brokers readable."""
    if job is None:
        return (), {}, None
    try:
        return job.result()
    except KafkaError as exc:
        errors.append(f"{what}: {exc}")
        return (), {}, None


def _lags(committed: dict[str, dict[tuple[str, int], int]], earliest: dict, latest: dict) -> list[PartitionLag]:
    return [
        PartitionLag(group, topic, partition, offset, earliest.get((topic, partition)), latest.get((topic, partition)))
        for group, offsets in sorted(committed.items())
        for (topic, partition), offset in sorted(offsets.items())
    ]


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
