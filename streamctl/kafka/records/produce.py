"""`topics produce`: the input read whole (bounded), a plan (count, bytes, partitions, every
record within what the topic allows), then one transaction: every record written, or none."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from streamctl.errors import UsageError
from streamctl.model.records import OutgoingRecord
from streamctl.ops import Change, Plan
from streamctl.ops import execute as audited

MAX_INPUT_BYTES = 256 * 1024 * 1024  # what one run reads into memory at most
# A transaction the broker has not seen committed within this is aborted by it (the broker caps it
# with transaction.max.timeout.ms, 15 min by default); a process killed mid-way blocks
# read_committed readers of the partitions it wrote until then, or until a re-run fences it.
TRANSACTION_TIMEOUT_MS = 600_000


@dataclass
class ProducePlan(Plan):
    records: list[OutgoingRecord] = field(default_factory=list, repr=False, compare=False)
    max_record_bytes: int = 1_000_000


@dataclass(frozen=True)
class Destination:
    partitions: frozenset[int]
    max_record_bytes: int  # the topic's max.message.bytes (the broker's message.max.bytes unless overridden)


def read_input(source: Path | None, input_format: str, key_separator: str | None,
               keep_timestamps: bool, keep_partitions: bool) -> list[OutgoingRecord]:
    from streamctl.kafka.records import formats

    name = str(source) if source else "stdin"
    try:
        stream = open(source, encoding="utf-8", newline="") if source else sys.stdin  # noqa: SIM115 - closed below
        text = stream.read(MAX_INPUT_BYTES + 1)
        if source:
            stream.close()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(text) > MAX_INPUT_BYTES:
        raise UsageError(f"{name}: more than {MAX_INPUT_BYTES // 2**20} MB; split it")
    lines = text.splitlines(keepends=False) if input_format == "json" else text.split("\n")
    if input_format == "lines" and lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last record; it does not start one
    if input_format == "json":
        return list(formats.parse_json_lines(lines, name, keep_timestamps, keep_partitions))
    if keep_timestamps or keep_partitions:
        raise UsageError("--keep-timestamps and --keep-partitions need --format json")
    return list(formats.parse_lines(lines, key_separator))


def destination(ctx, topic: str) -> Destination:
    """The topic's partitions and the largest record batch it takes; no topic: a usage error."""
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.isolated import isolated_backend

    try:
        md = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout).metadata(topic)
        if not any(t.name == topic for t in md.topics):
            raise UsageError(f"no topic {topic!r} in the cluster (create it first: streamctl topics create)")
        configs = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout, admin=True).topic_configs(topic)
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None
    entry = configs.get("max.message.bytes")
    limit = int(entry.value) if entry is not None and entry.value else 1_048_588
    return Destination(frozenset(p.partition for p in md.partitions if p.topic == topic), limit)


def too_large(size: int, limit: int, topic: str) -> str:
    return f"{size} bytes, more than topic {topic} takes (max.message.bytes {limit})"


def plan(ctx, topic: str, batch: list[OutgoingRecord]) -> ProducePlan:
    from streamctl.kafka.records.formats import record_batch_bytes

    dest = destination(ctx, topic)
    partitions = dest.partitions
    if bad := sorted({r.partition for r in batch if r.partition is not None} - partitions):
        raise UsageError(f"topic {topic!r} has no partition {bad[0]} (partitions 0..{len(partitions) - 1})")
    for r in batch:
        if (wire := record_batch_bytes(r.key, r.value, r.headers)) > dest.max_record_bytes:
            raise UsageError(f"input line {r.line}: record of {too_large(wire, dest.max_record_bytes, topic)}; "
                             f"nothing produced")
    size = sum(r.size for r in batch)
    explicit = sorted({r.partition for r in batch if r.partition is not None})
    spread = ", ".join(map(str, explicit)) if explicit else \
        ("by key" if any(r.key for r in batch) else "the producer's partitioner")
    result = ProducePlan("topics.produce", topic, {"topic": topic, "records": len(batch), "bytes": size},
                         records=batch, max_record_bytes=dest.max_record_bytes)
    if batch:
        result.changes = [Change(f"topic {topic}", "records", None, len(batch), "one transaction: all or none"),
                          Change(f"topic {topic}", "bytes", None, size),
                          Change(f"topic {topic}", "partitions", None, spread)]
    if any(r.timestamp is not None for r in batch):
        result.warnings.append("records keep their own timestamps (retention counts from them)")
    return result


def transactional_id(topic: str, batch: list[OutgoingRecord]) -> str:
    """The same input to the same topic, the same id: a re-run fences a run killed mid-way (and
    aborts its open transaction) instead of waiting for the broker to time it out."""
    digest = hashlib.sha256(topic.encode())
    for r in batch:
        digest.update(repr((r.key, r.value, r.headers, r.partition, r.timestamp)).encode())
    return f"streamctl-produce-{digest.hexdigest()[:24]}"


def execute(ctx, plan: ProducePlan, batch: list[OutgoingRecord]) -> str:
    from streamctl.backends.kafka.authz import NotAuthorized
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.records import TransactionalWriter

    writer = TransactionalWriter(ctx.kafka.client_config(), ctx.kafka.timeout, transactional_id(plan.target, batch),
                                 plan.max_record_bytes, TRANSACTION_TIMEOUT_MS)
    written = []

    def apply() -> None:
        try:
            writer.init()
            writer.begin()
            for r in batch:
                writer.send(plan.target, r.key, r.value, r.headers, r.partition, r.timestamp)
            writer.commit()
        except NotAuthorized:
            raise  # already one line naming the ACL missing
        except KafkaError as exc:
            raise KafkaError(f"producing {len(batch)} record(s) to {plan.target}: {exc}") from None
        written.append(len(batch))

    audited(plan, ctx.name, apply, lambda: [[f"topic {plan.target}", "produced", len(batch)]])
    return f"done: {written[0]} record(s) produced to {plan.target} in one transaction"
