"""Reading and writing records: a consumer that only assigns partitions (it never joins a group
and never commits, so no one's offsets can move) and a producer whose every delivery report is
checked. Every wait is bounded."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator
from functools import partial
from typing import Any, Self

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka import KafkaError as KafkaErrorCode

from streamctl.backends.kafka.authz import CLUSTER, Acl, principal, refusal
from streamctl.backends.kafka.client import KafkaError, new_client, reason, socket_timeout_ms
from streamctl.model.records import OutgoingRecord, Record

BATCH = 1000
# librdkafka stops fetching a partition whose prefetch queue is full and waits
# fetch.queue.backoff.ms (1 s by default) before it asks again: a reader faster than one queue
# a second idled most of the time (1M records of 220 B: 7.0 s to consume bare, 1.4 s with
# 10 ms). A smaller queue bounds memory whatever the count (58 MB resident for that read).
PREFETCH = {"fetch.queue.backoff.ms": "10", "queued.min.messages": "20000", "queued.max.messages.kbytes": "16384"}
TIMESTAMP_TYPES = {0: "none", 1: "create", 2: "log-append"}


class RecordReader:
    """assign() + consume(): reads `start` offsets onward, stops at each partition's end offset
    (as it was when reading began) unless `follow`."""

    def __init__(self, client_config: dict[str, str], timeout: float = 10.0):
        self.timeout = timeout
        self.principal = principal(client_config)
        self.group_id = f"streamctl-read-{uuid.uuid4().hex[:8]}"
        self._consumer = new_client(Consumer, {
            **client_config,
            "group.id": self.group_id,  # never joined, never committed (FindCoordinator still asks)
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "true",
            "auto.offset.reset": "earliest",
            "socket.timeout.ms": socket_timeout_ms(timeout),
            "log_level": "0",
            **PREFETCH,
        })

    def close(self) -> None:
        """Close the consumer, waiting `timeout` seconds at most: librdkafka's close waits on the
        group coordinator, which a broker in trouble can keep from answering (an operator's
        Ctrl-C must end the command). It never committed anything, so nothing is lost."""
        closing = threading.Thread(target=self._consumer.close, name="close-record-reader", daemon=True)
        closing.start()
        closing.join(self.timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- where to start ------------------------------------------------------------------

    def partitions(self, topic: str) -> list[int]:
        try:
            md = self._consumer.list_topics(topic, timeout=self.timeout)
        except KafkaException as exc:
            raise KafkaError(f"metadata request failed: {reason(exc)}") from None
        meta = md.topics.get(topic)
        if meta is None or (meta.error is not None and meta.error.code() == KafkaErrorCode.UNKNOWN_TOPIC_OR_PART):
            raise KafkaError(f"no topic {topic!r} in the cluster")
        if meta.error is not None:
            raise (refusal(meta.error, f"reading topic {topic!r}", self.principal, [Acl("Topic", topic, "Describe")])
                   or KafkaError(f"topic {topic!r}: {meta.error.str()}"))
        return sorted(meta.partitions)

    def watermarks(self, topic: str, partition: int) -> tuple[int, int]:
        try:
            return self._consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=self.timeout)
        except KafkaException as exc:
            raise KafkaError(f"offsets of {topic}/{partition}: {reason(exc)}") from None

    def offsets_for_time(self, topic: str, partitions: list[int], ms: int) -> dict[int, int]:
        """The first offset at or after `ms` per partition (the end offset when none is)."""
        query = [TopicPartition(topic, p, ms) for p in partitions]
        try:
            answer = self._consumer.offsets_for_times(query, timeout=self.timeout)
        except KafkaException as exc:
            raise KafkaError(f"offsets for a time in {topic}: {reason(exc)}") from None
        out = {}
        for tp in answer:
            out[tp.partition] = tp.offset if tp.offset >= 0 else self.watermarks(topic, tp.partition)[1]
        return out

    # ---- reading ---------------------------------------------------------------------------

    def read(self, topic: str, start: dict[int, int], follow: bool = False,
             stop: Callable[[], bool] = lambda: False) -> Generator[Record, None, None]:
        """Records from each partition's start offset; without `follow`, until each partition's
        end offset (read once, before reading), or `timeout` seconds without a record."""
        for batch in self.read_batches(topic, start, follow, stop):
            yield from batch

    def read_batches(self, topic: str, start: dict[int, int], follow: bool = False,
                     stop: Callable[[], bool] = lambda: False,
                     ends: dict[int, int] | None = None) -> Iterator[list[Record]]:
        """What read() yields, a list per fetch (up to BATCH records, never empty); `ends`, when
        given, instead of each partition's end offset now (a copy reads what its plan read)."""
        ends = ends if ends is not None else {p: self.watermarks(topic, p)[1] for p in start}
        pending = {p for p, offset in start.items() if follow or offset < ends[p]}
        if not pending:
            return
        self._consumer.assign([TopicPartition(topic, p, start[p]) for p in sorted(pending)])
        # Records left before the ends (fewer where compaction or transaction markers left gaps):
        # consume() waits for as many messages as asked or its timeout, so the last call asks
        # for what is left instead of waiting a second for a batch that cannot fill.
        left = sum(ends[p] - start[p] for p in pending)
        quiet_since = time.monotonic()
        try:
            while pending and not stop():
                wanted = BATCH if follow else max(1, min(BATCH, left))
                messages = self._consumer.consume(wanted, timeout=min(1.0, self.timeout))
                if not messages:
                    if not follow and time.monotonic() - quiet_since > self.timeout:
                        raise KafkaError(f"no record within {self.timeout:g} s from partitions "
                                         f"{sorted(pending)} of {topic} before their end")
                    continue
                quiet_since = time.monotonic()
                if batch := self._records(messages, topic, pending, None if follow else ends, self._refused):
                    left -= len(batch)
                    yield batch
        finally:
            self._consumer.unassign()

    def _refused(self, error, what: str, topic: str) -> KafkaError | None:
        needs = [Acl("Topic", topic, "Read"), Acl("Group", self.group_id, "Describe")]
        return refusal(error, what, self.principal, needs)

    @staticmethod
    def _records(messages: list, topic: str, pending: set[int], ends: dict[int, int] | None,
                 refused: Callable = lambda error, what, topic: None) -> list[Record]:
        """The records among one consume()'s messages from `pending` partitions; with `ends`,
        those before each partition's end offset, and a partition leaves `pending` at its end.
        The loop a million-record export spends most of its time in: one method call per field,
        the tuple built without a Python-level __new__."""
        batch: list[Record] = []
        append = batch.append
        for message in messages:
            error = message.error()
            if error is not None:
                if error.code() == KafkaErrorCode._PARTITION_EOF:
                    if ends is not None:
                        pending.discard(message.partition())
                    continue
                what = f"reading {topic}/{message.partition()}"
                raise refused(error, what, topic) or KafkaError(f"{what}: {error.str()}")
            partition, offset = message.partition(), message.offset()
            if partition not in pending:
                continue
            if ends is not None:
                end = ends[partition]
                if offset + 1 >= end:
                    pending.discard(partition)
                    if offset >= end:
                        continue
            kind, stamp = message.timestamp()
            headers = message.headers()
            append(_new_record((topic, partition, offset, stamp if kind else None, _TIMESTAMP_NAMES[kind],
                                message.key(), message.value(), tuple(headers) if headers else (), ())))
        return batch


_SILENT = logging.getLogger("streamctl.librdkafka")  # librdkafka's log lines, dropped
_SILENT.addHandler(logging.NullHandler())
_SILENT.propagate = False

_new_record = partial(tuple.__new__, Record)  # Record(...) without its Python-level __new__
_TIMESTAMP_NAMES = tuple(TIMESTAMP_TYPES[kind] for kind in range(len(TIMESTAMP_TYPES)))


def _produce(producer, topic: str, key, value, headers, partition: int | None, timestamp: int | None,
             on_delivery, failures: list[str], poll: Callable[[float], object] | None = None) -> None:
    """One record queued (waiting while the local queue is full); a local refusal in `failures`.
    `poll(seconds)` serves delivery reports (default: the producer's own poll)."""
    poll = poll or producer.poll
    kwargs = {"key": key, "value": value, "headers": list(headers) or None, "on_delivery": on_delivery}
    if partition is not None:
        kwargs["partition"] = partition
    if timestamp is not None:
        kwargs["timestamp"] = timestamp
    while True:
        try:
            producer.produce(topic, **kwargs)
            break
        except BufferError:  # the local queue is full: let deliveries drain it
            poll(0.1)
        except KafkaException as exc:
            failures.append(reason(exc))
            break
    poll(0)


class RecordWriter:
    """A producer whose delivery reports are all waited for (bounded) and counted."""

    def __init__(self, client_config: dict[str, str], timeout: float = 10.0):
        self.timeout = timeout
        self.failures: list[str] = []
        self.refused: KafkaError | None = None  # the authorizer's refusal, named as the ACL missing
        self.delivered = 0
        self.offsets: dict[tuple[str, int], int] = {}  # (topic, partition) -> offset of the last delivered
        self.principal = principal(client_config)
        self._topic = ""
        self._producer = new_client(Producer, {
            **client_config, "enable.idempotence": "true", "linger.ms": "20",
            "message.timeout.ms": str(int(timeout * 1000)), "log_level": "0",
            "logger": _SILENT,  # a fatal error is a failure here, not a log line on stderr
        })

    def send(self, topic: str, records: Iterable[OutgoingRecord]) -> None:
        self._topic = topic
        for record in records:
            _produce(self._producer, topic, record.key, record.value, record.headers, record.partition,
                     record.timestamp, self._report, self.failures, poll=self._serve)

    def flush(self) -> int:
        """Wait for every delivery report; returns how many are still unknown."""
        return self._poll(lambda: self._producer.flush(self.timeout + 5))

    def _serve(self, seconds: float) -> int:
        return self._poll(lambda: self._producer.poll(seconds))

    def _poll(self, serve: Callable[[], int]) -> int:
        """`serve()`, or the records still queued after a fatal error (a refused producer id):
        confluent-kafka 2.16 raises that out of poll/flush, and the delivery callbacks it then
        runs fail with the exception still set (a SystemError, the fatal error its cause)."""
        try:
            return serve()
        except (KafkaException, SystemError) as exc:
            fatal = exc if isinstance(exc, KafkaException) else exc.__cause__
            if not isinstance(fatal, KafkaException):
                raise
            self._failed(fatal.args[0])
            return len(self._producer)

    def _failed(self, error) -> None:
        # The idempotent producer's id needs IdempotentWrite on the Cluster or Write on any topic.
        write = Acl("Topic", self._topic, "Write")
        needs = [write, Acl("Cluster", CLUSTER, "IdempotentWrite", alternative=write)]
        self.refused = self.refused or refusal(error, f"producing to {self._topic!r}", self.principal, needs)
        self.failures.append(error.str())

    def _report(self, error, message) -> None:
        if error is not None:
            self._failed(error)
        else:
            self.delivered += 1
            self.offsets[(message.topic(), message.partition())] = message.offset()




class TransactionalWriter:
    """A transactional producer: what one transaction sends becomes visible (to read_committed
    readers) all together at commit, or never. Its `transactional_id` fences an older producer
    with the same id (a copy killed mid-way): init() aborts that one's open transaction.
    `max_record_bytes`: the destination topic's max.message.bytes (librdkafka's own limit is 1 MB
    whatever the topic allows); batches stay under it too."""

    def __init__(self, client_config: dict[str, str], timeout: float, transactional_id: str,
                 max_record_bytes: int, transaction_timeout_ms: int):
        self.timeout = timeout
        self.failures: list[str] = []
        self.refused: KafkaError | None = None  # the authorizer's refusal of a write, named as the ACL missing
        self.sent = 0  # delivered in the open transaction
        self.in_transaction = False
        self.principal = principal(client_config)
        # Grant streamctl's transactional ids by prefix: each produce or copy derives its own id.
        self._id_acl = Acl("TransactionalId", transactional_id.rsplit("-", 1)[0] + "-", "Write", prefixed=True)
        self._producer = new_client(Producer, {
            **client_config, "transactional.id": transactional_id, "linger.ms": "20",
            "transaction.timeout.ms": str(transaction_timeout_ms),
            "message.timeout.ms": str(min(transaction_timeout_ms, int(timeout * 1000) + 60_000)),
            "message.max.bytes": str(max(1_000_000, max_record_bytes + 4096)),
            "batch.size": str(max(1, min(1_000_000, max_record_bytes - 1024))),
            "log_level": "0",
            "logger": _SILENT,  # a fatal error (a refused transactional id) is a failure here, not a log line
        })

    def init(self) -> None:
        self._call(lambda: self._producer.init_transactions(self.timeout + 30), "starting transactions",
                   [self._id_acl])

    def begin(self) -> None:
        self.failures, self.sent = [], 0
        self._call(self._producer.begin_transaction, "beginning a transaction")
        self.in_transaction = True

    def send(self, topic: str, key, value, headers, partition: int | None, timestamp: int | None) -> None:
        _produce(self._producer, topic, key, value, headers, partition, timestamp, self._report, self.failures)

    def commit(self, positions: tuple[str, dict[int, int]] | None = None, group_metadata=None) -> None:
        """Wait for every delivery report, add `positions` ((topic, {partition: next offset}),
        committed as the `group_metadata` group's offsets) and commit: all of it or, on any
        failure, nothing (aborted)."""
        offsets = [TopicPartition(positions[0], p, o) for p, o in sorted(positions[1].items())] if positions else None
        unknown = self._producer.flush(self.timeout + 30)
        if unknown or self.failures:
            why = self.failures[0] if self.failures else f"{unknown} without a delivery report in time"
            self.abort()
            if self.refused is not None:
                raise self.refused
            raise KafkaError(f"transaction aborted, nothing of it written: {why}")
        try:
            if offsets:
                self._producer.send_offsets_to_transaction(offsets, group_metadata, self.timeout + 30)
            self._commit_retrying()
            self.in_transaction = False
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if error is not None and hasattr(error, "txn_requires_abort") and error.txn_requires_abort():
                self.abort()
                raise KafkaError(f"transaction aborted, nothing of it written: {reason(exc)}") from None
            raise KafkaError(f"committing the transaction: {reason(exc)} (its outcome is unknown)") from None

    def _commit_retrying(self) -> None:
        """commit_transaction, again while librdkafka says the same call may be retried (it
        resends nothing: the records are sent, the commit is asked for again)."""
        for attempt in range(3):
            try:
                self._producer.commit_transaction(self.timeout + 30)
                return
            except KafkaException as exc:
                error: Any = exc.args[0] if exc.args else None  # a KafkaError value
                if attempt == 2 or not (hasattr(error, "retriable") and error.retriable()):
                    raise

    def abort(self) -> None:
        self.in_transaction = False
        try:
            self._producer.abort_transaction(self.timeout + 30)
        except KafkaException as exc:  # the broker aborts it at transaction.timeout.ms anyway
            raise KafkaError(f"aborting the transaction: {reason(exc)} (the broker aborts it when it "
                             f"times out)") from None

    def _call(self, method, what: str, needs: Iterable[Acl] = ()) -> None:
        try:
            method()
        except KafkaException as exc:
            refused = refusal(exc.args[0] if exc.args else None, what, self.principal, needs)
            raise refused or KafkaError(f"{what}: {reason(exc)}") from None

    def _report(self, error, message) -> None:
        if error is not None:
            self.refused = self.refused or refusal(error, f"producing to {message.topic()!r}", self.principal,
                                                   [Acl("Topic", message.topic(), "Write")])
            self.failures.append(error.str())
        else:
            self.sent += 1


class CopyCursor:
    """A copy's resume point: the source offsets its transactions committed as the offsets of
    its own consumer group (never joined: it only commits through transactions)."""

    def __init__(self, client_config: dict[str, str], timeout: float, group: str):
        self.timeout = timeout
        self._consumer = new_client(Consumer, {
            **client_config, "group.id": group, "enable.auto.commit": "false",
            # read_uncommitted: committed() then asks without require_stable, so the offsets of a
            # transaction still open (a copy killed mid-way, fenced later) do not make it wait.
            "isolation.level": "read_uncommitted", "socket.timeout.ms": socket_timeout_ms(timeout),
            "log_level": "0",
        })

    def committed(self, topic: str, partitions: list[int]) -> dict[int, int]:
        try:
            answer = self._consumer.committed([TopicPartition(topic, p) for p in partitions], timeout=self.timeout)
        except KafkaException as exc:
            raise KafkaError(f"reading the copy's resume point: {reason(exc)}") from None
        return {tp.partition: tp.offset for tp in answer if tp.offset >= 0}

    def group_metadata(self):
        return self._consumer.consumer_group_metadata()

    def close(self) -> None:
        closing = threading.Thread(target=self._consumer.close, name="close-copy-cursor", daemon=True)
        closing.start()
        closing.join(self.timeout)
