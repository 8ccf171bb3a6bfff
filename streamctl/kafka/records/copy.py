"""`topics copy SRC DST`: the exact redrive. Records are copied byte for byte (key, value,
headers; partition and timestamp when asked), never masked and never printed.

The plan reads what will be copied (count, bytes, partitions, first and last offsets) and
refuses a record larger than the destination takes, before anything is written. The copy runs
in Kafka transactions: up to CHUNK_RECORDS records and CHUNK_BYTES bytes in one, all or none;
a larger copy commits a chunk at a time. Each transaction also commits the source positions it
reached as the offsets of the copy's own consumer group (send_offsets_to_transaction): records
and resume point are one atomic commit, so a copy killed at any moment resumes, on a re-run
with the same arguments, after its last committed chunk and copies no record twice. The
transactional.id is the same on every run of the same copy, so the re-run fences a copy killed
mid-transaction and aborts what it had sent. A state file (<state>/copies/ID.json) keeps the
copy's planned end offsets and its progress, written after each commit.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from streamctl.errors import StreamctlError, UsageError
from streamctl.kafka.records.formats import RecordFilter, Selection, record_batch_bytes
from streamctl.kafka.records.produce import TRANSACTION_TIMEOUT_MS, destination, too_large
from streamctl.ops import Change, Plan
from streamctl.ops import execute as audited

CHUNK_RECORDS = 100_000  # records in one transaction at most (--chunk-records)
CHUNK_BYTES = 256 * 1024 * 1024  # key, value and header bytes in one transaction at most
RATE_CHUNK_SECONDS = 300  # with --max-rate, a chunk lasts this long at most (the transaction timeout is 600 s)


@dataclass
class CopyPlan(Plan):
    source: str = ""
    copy_id: str = ""
    starts: dict[int, int] = field(default_factory=dict)  # source partition -> first offset to read
    ends: dict[int, int] = field(default_factory=dict)  # -> the offset the copy stops before
    committed: dict[int, int] = field(default_factory=dict)  # the copy group's offsets when planned
    records: int = 0
    max_record_bytes: int = 1_000_000
    chunk_records: int = CHUNK_RECORDS
    keep: RecordFilter = field(default_factory=RecordFilter)
    nothing: str = "nothing to copy: no record selected"


@dataclass(frozen=True)
class CopyRequest:
    source: str
    destination: str
    selection: Selection
    limit: int | None = None
    keep_partitions: bool = False
    keep_timestamps: bool = False

    def copy_id(self, bootstrap_servers: str) -> str:
        """The same copy (cluster, topics, selection, options), the same id on every run."""
        spec = {"cluster": bootstrap_servers, "source": self.source, "destination": self.destination,
                "selection": self.selection.as_dict(), "limit": self.limit,
                "keep_partitions": self.keep_partitions, "keep_timestamps": self.keep_timestamps}
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:24]


def state_file(copy_id: str) -> Path:
    from streamctl.paths import state_dir

    return state_dir() / "copies" / f"{copy_id}.json"


def _load_state(copy_id: str) -> dict | None:
    path = state_file(copy_id)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: unreadable copy state ({exc}); --restart copies from the start") from None


def _save_state(plan: CopyPlan, positions: dict[int, int], copied: int, status: str) -> None:
    from streamctl.atomic import write_atomic

    write_atomic(state_file(plan.copy_id), json.dumps({
        "source": plan.source, "destination": plan.target, "group": group_of(plan.copy_id),
        "status": status, "copied": copied, "updated": time.time(),
        "starts": plan.starts, "ends": plan.ends, "positions": positions,
        "since_ms": plan.keep.since, "until_ms": plan.keep.until,
    }, indent=1))


def group_of(copy_id: str) -> str:
    """The copy's transactional.id and the consumer group its resume point is committed as."""
    return f"streamctl-copy-{copy_id}"


def plan(ctx, request: CopyRequest, restart: bool = False, chunk_records: int = CHUNK_RECORDS) -> CopyPlan:
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.records import CopyCursor, RecordReader

    src, dst = request.source, request.destination
    if src == dst:
        raise UsageError(f"copying {src} onto itself: give another destination")
    keep = request.selection.keep()
    dest = destination(ctx, dst)  # forks a child: before this process makes its own clients
    copy_id = request.copy_id(ctx.kafka.bootstrap_servers)
    state = None if restart else _load_state(copy_id)
    try:
        with RecordReader(ctx.kafka.client_config(), ctx.kafka.timeout) as reader:
            starts = request.selection.starts(reader, src)
            cursor = CopyCursor(ctx.kafka.client_config(), ctx.kafka.timeout, group_of(copy_id))
            try:
                committed = cursor.committed(src, sorted(starts))
            finally:
                cursor.close()
            result = CopyPlan("topics.copy", dst, {}, source=src, copy_id=copy_id, committed=committed,
                              max_record_bytes=dest.max_record_bytes, chunk_records=chunk_records, keep=keep)
            if state is not None and state.get("status") == "done":
                result.nothing = (f"nothing to copy: this copy was done on {_when(state['updated'])} "
                                  f"({state['copied']} record(s)); --restart copies the records again")
                return result
            if state is not None:  # an interrupted run: its end offsets, from its last commit on
                result.ends = {int(p): o for p, o in state["ends"].items()}
                result.starts = {p: committed.get(p, int(state["starts"][str(p)])) for p in result.ends}
                result.keep = replace(keep, since=state.get("since_ms"), until=state.get("until_ms"))
                result.warnings.append(f"resuming an interrupted copy ({state['copied']} record(s) committed "
                                       f"before; state {state_file(copy_id)})")
            else:
                result.starts = {p: max(o, committed.get(p, o)) if not restart else o for p, o in starts.items()}
                result.ends = {p: reader.watermarks(src, p)[1] for p in starts}
                if committed and not restart:
                    result.warnings.append(f"continuing from the positions group {group_of(copy_id)} committed "
                                           f"(an earlier run of this copy)")
            if restart:
                result.warnings.append("--restart: records an earlier run of this copy copied are copied again")
            _scan(reader, result, request, dest.partitions, None if state else request.limit)
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None
    return result


def _scan(reader, plan: CopyPlan, request: CopyRequest, dest_partitions: frozenset[int], limit: int | None) -> None:
    """Reads what the copy will copy: the plan's counts and changes; each record checked against
    the destination's limit; with `limit`, the ends moved to where the limit-th record was."""
    keep = plan.keep if plan.keep.active else None
    counts: dict[int, list[int]] = {}  # partition -> [records, first offset, last offset]
    size, positions = 0, dict(plan.starts)
    batches = reader.read_batches(plan.source, plan.starts, ends=plan.ends)
    try:
        for r in (r for batch in batches for r in batch):
            positions[r.partition] = r.offset + 1
            if keep is not None and not keep.keeps(r):
                continue
            wire = record_batch_bytes(r.key, r.value, r.headers)
            if wire > plan.max_record_bytes:
                raise UsageError(f"{plan.source}/{r.partition} offset {r.offset}: record of "
                                 f"{too_large(wire, plan.max_record_bytes, plan.target)}; nothing copied")
            if request.keep_partitions and r.partition not in dest_partitions:
                raise UsageError(f"--keep-partitions: topic {plan.target!r} has no partition {r.partition} "
                                 f"(partitions 0..{len(dest_partitions) - 1})")
            entry = counts.setdefault(r.partition, [0, r.offset, r.offset])
            entry[0], entry[2] = entry[0] + 1, r.offset
            size += r.size
            plan.records += 1
            if limit is not None and plan.records >= limit:
                plan.ends = {p: positions[p] for p in plan.starts}
                break
    finally:
        batches.close()
    _describe(plan, request, counts, size)


def _describe(plan: CopyPlan, request: CopyRequest, counts: dict[int, list[int]], size: int) -> None:
    chunks = max(-(-plan.records // plan.chunk_records), -(-size // CHUNK_BYTES), 1)
    plan.parameters = {"source": plan.source, "destination": plan.target, "records": plan.records, "bytes": size,
                       "selection": request.selection.as_dict(), "keep_partitions": request.keep_partitions,
                       "keep_timestamps": request.keep_timestamps, "copy": plan.copy_id}
    if not plan.records:
        return
    spread = (f"as in {plan.source}: " + ", ".join(map(str, sorted(counts)))) if request.keep_partitions else \
        "by key (the producer's partitioner)"
    how = "one transaction: all or none" if chunks == 1 else \
        f"{chunks} transactions of up to {plan.chunk_records} records, each with its resume point"
    plan.changes = [Change(f"topic {plan.target}", "records", None, plan.records, how),
                    Change(f"topic {plan.target}", "bytes", None, size),
                    Change(f"topic {plan.target}", "partitions", None, spread)]
    plan.changes += [Change(f"{plan.source}/{p}", "offsets", None, f"{first}..{last}", f"{n} record(s)")
                     for p, (n, first, last) in sorted(counts.items())]
    if request.keep_timestamps:
        plan.warnings.append("records keep their own timestamps (retention counts from them)")


def _when(epoch: float) -> str:
    from streamctl.kafka.records.formats import timestamp_text

    return timestamp_text(int(epoch * 1000))


class _Pace:
    """At most `rate` records a second (None: no limit)."""

    def __init__(self, rate: int | None):
        self.rate, self.started, self.count = rate, time.monotonic(), 0

    def step(self) -> None:
        self.count += 1
        if self.rate:
            ahead = self.started + self.count / self.rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)


def execute(ctx, plan: CopyPlan, request: CopyRequest, progress: Callable[[str], None],
            max_rate: int | None = None) -> str:
    """Copies the plan's records in transactions (chunks of plan.chunk_records); never retried
    once begun: a re-run resumes from the last commit."""
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.records import CopyCursor, TransactionalWriter

    if max_rate:
        plan.chunk_records = max(1, min(plan.chunk_records, max_rate * RATE_CHUNK_SECONDS))
    copied = []

    def apply() -> None:
        writer = TransactionalWriter(ctx.kafka.client_config(), ctx.kafka.timeout, group_of(plan.copy_id),
                                     plan.max_record_bytes, TRANSACTION_TIMEOUT_MS)
        writer.init()  # fences an earlier run of this copy, aborting what it had not committed
        cursor = CopyCursor(ctx.kafka.client_config(), ctx.kafka.timeout, group_of(plan.copy_id))
        try:
            if cursor.committed(plan.source, sorted(plan.starts)) != plan.committed:
                raise StreamctlError("another run of this copy committed since the plan was made: "
                                     "run the command again to plan from where it got")
            copied.append(_copy(ctx, plan, request, writer, cursor.group_metadata(), progress, _Pace(max_rate)))
        except KafkaError as exc:
            raise KafkaError(f"copying {plan.source} to {plan.target}: {exc}; what was committed stays, a re-run "
                             f"resumes after it") from None
        finally:
            cursor.close()

    audited(plan, ctx.name, apply, lambda: [[f"topic {plan.target}", "copied", copied[0] if copied else 0]])
    return f"done: {copied[0]} record(s) copied from {plan.source} to {plan.target}"


def _copy(ctx, plan: CopyPlan, request: CopyRequest, writer, group_metadata, progress, pace: _Pace) -> int:
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.records import RecordReader

    keep = plan.keep if plan.keep.active else None
    positions = dict(plan.starts)
    copied, chunk, chunk_bytes, chunks, last_line = 0, 0, 0, 0, time.monotonic()
    _save_state(plan, positions, copied, "running")

    def commit(at: dict[int, int]) -> None:
        nonlocal copied, chunk, chunk_bytes, chunks
        writer.commit((plan.source, at), group_metadata)
        copied, chunk, chunk_bytes, chunks = copied + chunk, 0, 0, chunks + 1
        _save_state(plan, at, copied, "running")
        progress(f"committed chunk {chunks}: {copied} of {plan.records} record(s) copied (resume point saved)")

    writer.begin()
    try:
        with RecordReader(ctx.kafka.client_config(), ctx.kafka.timeout) as reader:
            for batch in reader.read_batches(plan.source, plan.starts, ends=plan.ends):
                for r in batch:
                    positions[r.partition] = r.offset + 1
                    if keep is not None and not keep.keeps(r):
                        continue
                    writer.send(plan.target, r.key, r.value, r.headers,
                                r.partition if request.keep_partitions else None,
                                r.timestamp if request.keep_timestamps else None)
                    chunk, chunk_bytes = chunk + 1, chunk_bytes + r.size
                    pace.step()
                    if chunk >= plan.chunk_records or chunk_bytes >= CHUNK_BYTES:
                        commit(positions)
                        writer.begin()
                    elif time.monotonic() - last_line >= 1.0:
                        last_line = time.monotonic()
                        progress(f"sent {copied + chunk} of {plan.records} record(s); "
                                 f"{chunk} not committed yet")
        commit(dict(plan.ends))  # the rest, and the resume point at the ends
    except BaseException:  # Ctrl-C included: what this transaction sent is aborted, the commits stay
        if writer.in_transaction:
            try:
                writer.abort()
            except KafkaError as exc:
                progress(f"{exc}")
        raise
    _save_state(plan, dict(plan.ends), copied, "done")
    return copied
