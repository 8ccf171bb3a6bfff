"""Kafka adapter on confluent-kafka's AdminClient: plain dataclasses out, every call bounded.

One snapshot costs a fixed number of round trips whatever the cluster size: one metadata
call, one batched describe_configs (topics plus one broker), two batched list_offsets
(earliest, latest), one list + one batched describe of the consumer groups, and
list_consumer_group_offsets (one group per call, so issued concurrently with a cap).
Lag in time reads the record at each lagging partition's committed offset through ONE
consumer for all partitions, never a consumer per partition.
"""

from __future__ import annotations

import concurrent.futures
import time
import uuid
from dataclasses import replace
from typing import Callable, Iterable

from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, OffsetSpec, ResourceType

from streamctl.errors import StreamctlError
from streamctl.model import (
    Broker, ConsumerGroup, GroupMember, KafkaSnapshot, PartitionLag, PartitionState, Topic,
)

KEY_CONFIGS = ("min.insync.replicas", "retention.ms", "retention.bytes", "cleanup.policy",
               "max.message.bytes", "segment.bytes")
GROUP_OFFSETS_CONCURRENCY = 32


class KafkaError(StreamctlError):
    """Kafka could not be read (unreachable, timed out, refused)."""


class Deadline:
    """A global time budget: each call gets min(per-call timeout, time left)."""

    def __init__(self, per_call: float, total: float | None = None):
        self.per_call = per_call
        self.ends = None if total is None else time.monotonic() + total

    def left(self, what: str) -> float:
        if self.ends is None:
            return self.per_call
        remaining = self.ends - time.monotonic()
        if remaining <= 0.05:
            raise KafkaError(f"deadline reached before {what}")
        return min(self.per_call, remaining)


class KafkaBackend:
    def __init__(self, client_config: dict[str, str], timeout: float = 10.0, kraft: bool | None = None):
        self.client_config = dict(client_config)
        self.timeout = timeout
        self.kraft = kraft  # None: ask the cluster
        self._admin = AdminClient({
            **self.client_config,
            "socket.timeout.ms": str(int(timeout * 1000)),
            "log_level": "0",  # connection failures become findings, not stderr noise
        })

    # ---- metadata ----------------------------------------------------------------------

    def metadata(self, topic: str | None = None, deadline: Deadline | None = None) -> KafkaSnapshot:
        """Brokers, controller and partition states from one metadata call."""
        deadline = deadline or Deadline(self.timeout)
        md = _call(lambda: self._admin.list_topics(topic=topic, timeout=deadline.left("metadata")),
                   "metadata request")
        kraft = self._is_kraft(md, deadline)
        brokers = tuple(
            Broker(id=b.id, host=b.host, port=b.port, is_controller=not kraft and b.id == md.controller_id)
            for b in sorted(md.brokers.values(), key=lambda b: b.id)
        )
        topics = tuple(
            Topic(
                name=t.topic,
                internal=t.topic.startswith("__"),
                partitions=tuple(
                    PartitionState(t.topic, p.id, p.leader, tuple(p.replicas), tuple(p.isrs))
                    for p in sorted(t.partitions.values(), key=lambda p: p.id)
                ),
            )
            for t in sorted(md.topics.values(), key=lambda t: t.topic) if t.error is None
        )
        controller = None if kraft or md.controller_id < 0 else md.controller_id
        return KafkaSnapshot(time.time(), md.cluster_id, brokers, controller, kraft, topics)

    def _is_kraft(self, md, deadline: Deadline) -> bool:
        """KRaft brokers have `process.roles` set; asked once per backend, then remembered."""
        if self.kraft is None and md.brokers:
            broker = ConfigResource(ResourceType.BROKER, str(min(md.brokers)))
            future = self._admin.describe_configs([broker], request_timeout=deadline.left("describe_configs"))[broker]
            entries = _call(lambda: future.result(timeout=deadline.left("describe_configs")), "describing a broker")
            roles = entries.get("process.roles")
            self.kraft = bool(roles and roles.value)
        return bool(self.kraft)

    # ---- the full snapshot ----------------------------------------------------------------

    def snapshot(self, groups: bool = True, lag_time: bool = True,
                 deadline: Deadline | None = None,
                 group_filter: Callable[[str], bool] = lambda _: True) -> KafkaSnapshot:
        """Everything check and the dashboard show, in a fixed number of round trips."""
        deadline = deadline or Deadline(self.timeout)
        errors: list[str] = []
        snap = self.metadata(deadline=deadline)
        # Configs, watermarks and the group reads are independent: all in flight at once.
        with concurrent.futures.ThreadPoolExecutor(max_workers=3, thread_name_prefix="kafka-snapshot") as pool:
            configs_job = pool.submit(self._configs, snap, deadline, errors)
            watermarks_job = pool.submit(self._watermarks, snap.partitions, deadline, errors)
            groups_job = pool.submit(self._groups_and_offsets, deadline, errors, group_filter) if groups else None
            configs = configs_job.result()
            earliest, latest = watermarks_job.result()
            described, committed = _partial(groups_job, errors, "consumer groups")
        topics = tuple(
            replace(t, configs=configs.get(t.name, {}), partitions=tuple(
                replace(p, low=earliest.get((p.topic, p.partition)), high=latest.get((p.topic, p.partition)),
                        min_isr=_int(configs.get(t.name, {}).get("min.insync.replicas")))
                for p in t.partitions))
            for t in snap.topics
        )
        snap = replace(snap, topics=topics)
        if groups:
            lags = _lags(committed, earliest, latest)
            if lag_time:
                lags = self._lag_seconds(lags, deadline, errors)
            snap = replace(snap, groups=described, lags=tuple(lags))
        return replace(snap, errors=tuple(errors))

    def _groups_and_offsets(self, deadline: Deadline, errors: list[str], keep: Callable[[str], bool]):
        described = self._groups(deadline, errors, keep)
        return described, self._committed(described, deadline, errors)

    def _configs(self, snap: KafkaSnapshot, deadline: Deadline, errors: list[str]):
        """Key configs of every topic in one batched describe_configs call."""
        resources = [ConfigResource(ResourceType.TOPIC, t.name) for t in snap.topics]
        if not resources:
            return {}
        futures = self._admin.describe_configs(resources, request_timeout=deadline.left("describe_configs"))
        configs: dict[str, dict[str, str]] = {}
        for resource, future in futures.items():
            try:
                entries = future.result(timeout=deadline.left("describe_configs"))
            except (KafkaException, concurrent.futures.TimeoutError) as exc:
                errors.append(f"configs of {resource.name}: {_reason(exc)}")
                continue
            configs[resource.name] = {k: entries[k].value for k in KEY_CONFIGS if k in entries}
        return configs

    def _watermarks(self, partitions: Iterable[PartitionState], deadline: Deadline, errors: list[str]):
        online = [TopicPartition(p.topic, p.partition) for p in partitions if not p.offline]
        result = []
        for spec in (OffsetSpec.earliest(), OffsetSpec.latest()):
            offsets: dict[tuple[str, int], int] = {}
            if online:
                futures = self._admin.list_offsets({tp: spec for tp in online},
                                                   request_timeout=deadline.left("list_offsets"))
                for tp, future in futures.items():
                    try:
                        offsets[(tp.topic, tp.partition)] = future.result(
                            timeout=deadline.left("list_offsets")).offset
                    except (KafkaException, concurrent.futures.TimeoutError) as exc:
                        errors.append(f"offsets of {tp.topic}/{tp.partition}: {_reason(exc)}")
            result.append(offsets)
        return result[0], result[1]

    def _groups(self, deadline: Deadline, errors: list[str], keep: Callable[[str], bool]):
        listing = _call(lambda: self._admin.list_consumer_groups(
            request_timeout=deadline.left("list_consumer_groups")).result(
            timeout=deadline.left("list_consumer_groups")), "listing consumer groups")
        errors += [f"listing groups: {_reason(e)}" for e in listing.errors]
        ids = sorted(g.group_id for g in listing.valid if keep(g.group_id))
        if not ids:
            return ()
        futures = self._admin.describe_consumer_groups(ids, request_timeout=deadline.left("describe_consumer_groups"))
        groups = []
        for group_id, future in sorted(futures.items()):
            try:
                d = future.result(timeout=deadline.left("describe_consumer_groups"))
            except (KafkaException, concurrent.futures.TimeoutError) as exc:
                errors.append(f"group {group_id}: {_reason(exc)}")
                continue
            groups.append(ConsumerGroup(
                id=d.group_id,
                state=_enum_name(d.state),
                type=_enum_name(getattr(d, "type", None)) or None,
                protocol=d.partition_assignor or None,
                coordinator=d.coordinator.id if d.coordinator else None,
                members=tuple(
                    GroupMember(m.member_id, m.client_id, m.host, tuple(
                        (tp.topic, tp.partition) for tp in (m.assignment.topic_partitions if m.assignment else [])))
                    for m in d.members
                ),
            ))
        return tuple(groups)

    def _committed(self, groups: Iterable[ConsumerGroup], deadline: Deadline, errors: list[str]):
        """{group: {(topic, partition): offset}}; one request per group, at most N in flight."""
        pending = [g.id for g in groups]
        results: dict[str, dict[tuple[str, int], int]] = {}
        in_flight: dict[concurrent.futures.Future, str] = {}
        while pending or in_flight:
            while pending and len(in_flight) < GROUP_OFFSETS_CONCURRENCY:
                group_id = pending.pop()
                futures = self._admin.list_consumer_group_offsets(
                    [ConsumerGroupTopicPartitions(group_id)],
                    request_timeout=deadline.left("list_consumer_group_offsets"))
                in_flight[futures[group_id]] = group_id
            done, _ = concurrent.futures.wait(in_flight, timeout=deadline.left("list_consumer_group_offsets"),
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            if not done:
                raise KafkaError("deadline reached while reading committed offsets")
            for future in done:
                group_id = in_flight.pop(future)
                try:
                    answer = future.result()
                except KafkaException as exc:
                    errors.append(f"offsets of group {group_id}: {_reason(exc)}")
                    continue
                results[group_id] = {(tp.topic, tp.partition): tp.offset
                                     for tp in answer.topic_partitions if tp.offset >= 0}
        return results

    def _lag_seconds(self, lags: list[PartitionLag], deadline: Deadline, errors: list[str]) -> list[PartitionLag]:
        """For lagging partitions: now - timestamp of the record at the committed offset."""
        lagging = {(l.topic, l.partition, l.committed) for l in lags
                   if l.lag and l.committed is not None}
        if not lagging:
            return lags
        try:
            stamps = self._record_timestamps(lagging, deadline)
        except KafkaError as exc:
            errors.append(f"lag in time: {exc}")
            return lags
        now = time.time()
        out = []
        for l in lags:
            ts = stamps.get((l.topic, l.partition, l.committed))
            if ts is not None and l.lag:
                out.append(replace(l, lag_seconds=max(0.0, now - ts), lag_seconds_source="record"))
            else:
                out.append(l)
        return out

    def _record_timestamps(self, wanted: set[tuple[str, int, int]], deadline: Deadline) -> dict:
        """Timestamps (seconds) of the records at the given offsets, through one consumer.

        A compacted or deleted offset yields the next record that exists: an upper bound on
        the record's age would need the missing record, so lag in time is then a lower bound.
        """
        consumer = Consumer({
            **self.client_config,
            "group.id": f"streamctl-probe-{uuid.uuid4().hex[:8]}",  # assign() only: never joins or commits
            "enable.auto.commit": "false",
            "enable.partition.eof": "false",
            # A committed offset deleted by retention reads from the oldest record left.
            "auto.offset.reset": "earliest",
            "fetch.max.bytes": str(4 * 1024 * 1024),
            "max.partition.fetch.bytes": str(64 * 1024),
            # One record per partition is all it needs: no prefetch queue (librdkafka keeps up
            # to 64 MB per client by default, which would stay in the process's heap).
            "queued.min.messages": "1",
            "queued.max.messages.kbytes": "1024",
            "socket.timeout.ms": str(int(self.timeout * 1000)),
            "log_level": "0",
        })
        offsets = {(topic, partition): committed for topic, partition, committed in wanted}
        stamps: dict[tuple[str, int, int], float] = {}
        ends = time.monotonic() + deadline.left("reading record timestamps")
        try:
            consumer.assign([TopicPartition(t, p, o) for (t, p), o in offsets.items()])
            missing = set(offsets)
            while missing and (left := ends - time.monotonic()) > 0.05:
                batch = consumer.consume(num_messages=500, timeout=min(1.0, left))
                for message in batch:
                    key = (message.topic(), message.partition())
                    if message.error() or key not in missing:
                        continue
                    missing.discard(key)
                    _, ts = message.timestamp()
                    if ts > 0:
                        stamps[(key[0], key[1], offsets[key])] = ts / 1000.0
        finally:
            consumer.close()
        return stamps

    # ---- topic creation (the sandbox and tests use it; operations live in kafka_admin.py) ----

    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     config: dict[str, str] | None = None, validate_only: bool = False) -> None:
        futures = self._admin.create_topics(
            [NewTopic(name, partitions, replication_factor, config=config or {})],
            operation_timeout=self.timeout, request_timeout=self.timeout, validate_only=validate_only,
        )
        _call(lambda: futures[name].result(timeout=self.timeout + 5), f"creating topic {name!r}")


def _partial(job, errors: list[str], what: str):
    """The groups part of a snapshot: a failure there leaves topics and brokers readable."""
    if job is None:
        return (), {}
    try:
        return job.result()
    except KafkaError as exc:
        errors.append(f"{what}: {exc}")
        return (), {}


def _lags(committed: dict[str, dict[tuple[str, int], int]], earliest: dict, latest: dict) -> list[PartitionLag]:
    return [
        PartitionLag(group, topic, partition, offset, earliest.get((topic, partition)), latest.get((topic, partition)))
        for group, offsets in sorted(committed.items())
        for (topic, partition), offset in sorted(offsets.items())
    ]


def _call(fn, what: str):
    """Run a blocking client call; Kafka errors and timeouts become one-line KafkaErrors."""
    try:
        return fn()
    except KafkaException as exc:
        raise KafkaError(f"{what} failed: {_reason(exc)}") from None
    except concurrent.futures.TimeoutError:
        raise KafkaError(f"{what} timed out") from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, concurrent.futures.TimeoutError):
        return "timed out"
    if not isinstance(exc, BaseException) and hasattr(exc, "str"):  # a KafkaError value, not raised
        return exc.str()
    err = exc.args[0] if exc.args else None
    return err.str() if hasattr(err, "str") else str(exc)


def _enum_name(value) -> str:
    return getattr(value, "name", "") or ("" if value is None else str(value))


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
