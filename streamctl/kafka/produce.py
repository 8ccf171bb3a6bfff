"""`topics produce`: the input read whole (bounded), a plan (count, bytes, partitions), then one
producer with every delivery report checked; one audit entry with counts, never payloads."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from streamctl.errors import StreamctlError, UsageError
from streamctl.model.records import OutgoingRecord
from streamctl.ops import Change, Plan, execute as audited

MAX_INPUT_BYTES = 256 * 1024 * 1024  # what one run reads into memory at most


@dataclass
class ProducePlan(Plan):
    records: list[OutgoingRecord] = field(default_factory=list, repr=False, compare=False)


def read_input(source: Path | None, input_format: str, key_separator: str | None,
               keep_timestamps: bool, keep_partitions: bool) -> list[OutgoingRecord]:
    from streamctl.kafka import records

    name = str(source) if source else "stdin"
    try:
        stream = open(source, encoding="utf-8", newline="") if source else sys.stdin
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
        return list(records.parse_json_lines(lines, name, keep_timestamps, keep_partitions))
    if keep_timestamps or keep_partitions:
        raise UsageError("--keep-timestamps and --keep-partitions need --format json")
    return list(records.parse_lines(lines, key_separator))


def plan(ctx, topic: str, batch: list[OutgoingRecord]) -> ProducePlan:
    from streamctl.backends.kafka_isolated import isolated_backend

    from streamctl.backends.kafka_client import KafkaError

    try:
        md = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout).metadata(topic)
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None
    known = next((t for t in md.topics if t.name == topic), None)
    if known is None:
        raise UsageError(f"no topic {topic!r} in the cluster (create it first: streamctl topics create)")
    partitions = {p.partition for p in md.partitions if p.topic == topic}
    if bad := sorted({r.partition for r in batch if r.partition is not None} - partitions):
        raise UsageError(f"topic {topic!r} has no partition {bad[0]} (partitions 0..{len(partitions) - 1})")
    size = sum(r.size for r in batch)
    explicit = sorted({r.partition for r in batch if r.partition is not None})
    spread = ", ".join(map(str, explicit)) if explicit else \
        ("by key" if any(r.key for r in batch) else "the producer's partitioner")
    result = ProducePlan("topics.produce", topic, {"topic": topic, "records": len(batch), "bytes": size},
                         records=batch)
    if batch:
        result.changes = [Change(f"topic {topic}", "records", None, len(batch)),
                          Change(f"topic {topic}", "bytes", None, size),
                          Change(f"topic {topic}", "partitions", None, spread)]
    if any(r.timestamp is not None for r in batch):
        result.warnings.append("records keep their own timestamps (retention counts from them)")
    return result


def execute(ctx, plan: ProducePlan, batch: list[OutgoingRecord]) -> str:
    from streamctl.backends.kafka_records import RecordWriter

    writer = RecordWriter(ctx.kafka.client_config(), ctx.kafka.timeout)

    def apply() -> None:
        writer.send(plan.target, batch)
        unknown = writer.flush()
        failed = len(writer.failures) + unknown
        if writer.refused is not None:
            raise writer.refused
        if failed:
            why = writer.failures[0] if writer.failures else "no delivery report in time"
            raise StreamctlError(f"{failed} of {len(batch)} record(s) not delivered to {plan.target} "
                                 f"({writer.delivered} delivered): {why}")

    audited(plan, ctx.name, apply, lambda: [[f"topic {plan.target}", "delivered", writer.delivered]])
    return f"done: {writer.delivered} record(s) produced to {plan.target}"
