"""Consumer group offset resets, with every mode of Kafka's own tool, an undo file and checks.

Targets outside the log are clamped to [log start, log end], as kafka-consumer-groups.sh
does, and the plan says so. The undo file (the previous offsets, in the CSV format the tool's
--export writes) is written durably before anything is committed.
"""

from __future__ import annotations

import csv
import io
import operator
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.errors import StreamctlError, UsageError
from streamctl.ops import Change, Plan
from streamctl.times import parse_datetime, parse_time

IDLE_STATES = {"EMPTY", "DEAD"}


@dataclass(frozen=True)
class PartitionReset:
    topic: str
    partition: int
    current: int | None  # committed now (None: the group never committed here)
    target: int
    log_start: int
    log_end: int
    clamped: str = ""  # why the requested target moved, if it did

    @property
    def delta(self) -> int | None:
        """Records replayed (negative) or skipped (positive) by the reset."""
        return None if self.current is None else self.target - self.current


# ---- parsing the operator's input ------------------------------------------------------------

def parse_topic_specs(specs: tuple[str, ...]) -> list[tuple[str, list[int] | None]]:
    """`T` or `T:0,1,2` -> (topic, partitions or None for all)."""
    parsed: list[tuple[str, list[int] | None]] = []
    for spec in specs:
        topic, sep, parts = spec.partition(":")
        if not topic:
            raise UsageError(f"--topic {spec!r}: expected TOPIC or TOPIC:P,P")
        if not sep:
            parsed.append((topic, None))
            continue
        try:
            numbers = sorted({int(p) for p in parts.split(",")})
        except ValueError:
            example = topic if topic.isprintable() else "TOPIC"  # the message stays one line
            raise UsageError(f"--topic {spec!r}: partitions must be numbers, like {example}:0,1") from None
        if any(n < 0 for n in numbers):
            raise UsageError(f"--topic {spec!r}: partitions cannot be negative")
        parsed.append((topic, numbers))
    return parsed


def parse_offsets_csv(text: str, group: str, source: str) -> dict[tuple[str, int], int]:
    """Kafka's --export CSV: `topic,partition,offset` or `group,topic,partition,offset` rows."""
    offsets: dict[tuple[str, int], int] = {}
    reader = csv.reader(io.StringIO(text))
    while True:
        try:
            row = next(reader, None)
        except csv.Error as exc:  # a NUL byte, a field over the size limit
            raise UsageError(f"{source}:{reader.line_num}: not CSV ({exc})") from None
        if row is None:
            break
        number = reader.line_num
        if not row or not "".join(row).strip():
            continue
        if len(row) == 4:
            if row[0] != group:
                continue
            row = row[1:]
        if len(row) != 3:
            raise UsageError(f"{source}:{number}: expected topic,partition,offset")
        topic, partition, offset = (cell.strip() for cell in row)
        if not re.fullmatch(r"\d+", partition) or not re.fullmatch(r"-?\d+", offset):
            raise UsageError(f"{source}:{number}: partition and offset must be whole numbers")
        offsets[(topic, int(partition))] = int(offset)
    if not offsets:
        raise UsageError(f"{source}: no offsets for group {group!r}")
    return offsets


def to_csv(offsets: dict[tuple[str, int], int]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for (topic, partition), offset in sorted(offsets.items()):
        writer.writerow([topic, partition, offset])
    return out.getvalue()


# ---- planning ------------------------------------------------------------------------------------

def describe_group(admin, group: str):
    """The group's description; a group the cluster does not know is an error."""
    # Listed, or else described directly (a coordinator move can hide it from the listing).
    snap = admin.snapshot(lag_time=False, group_filter=partial(operator.eq, group), known_groups=[group])
    if snap.group(group) is None:
        if snap.errors:  # unreadable says nothing about whether it exists
            raise StreamctlError(f"consumer group {group!r} unreadable: {snap.errors[0]}")
        raise UsageError(f"no consumer group {group!r} in the cluster")
    return snap, snap.group(group)


def require_idle(group) -> None:
    """Offsets of a group with live members cannot be reset: they would overwrite them."""
    if group.state not in IDLE_STATES:
        members = ", ".join(f"{m.client_id}@{m.host}" for m in group.members) or "none listed"
        raise StreamctlError(f"group {group.id!r} is {group.state} with active members ({members}): "
                             "stop its consumers first")


def select_partitions(snap, committed: dict[tuple[str, int], int], topic_specs, all_topics: bool):
    if all_topics:
        chosen = sorted(committed)
        if not chosen:
            raise UsageError("--all-topics: the group has no committed offsets")
        return chosen
    chosen = []
    for topic, numbers in topic_specs:
        known = snap.topic(topic)
        if known is None:
            raise UsageError(f"no topic {topic!r} in the cluster")
        existing = {p.partition for p in known.partitions}
        for number in numbers if numbers is not None else sorted(existing):
            if number not in existing:
                raise UsageError(f"topic {topic!r} has no partition {number} "
                                 f"(partitions 0-{max(existing)})")
            chosen.append((topic, number))
    return chosen


def require_log_ranges(snap, chosen, starts, ends) -> None:
    """A target is clamped into its partition's log: a partition whose log range went unread
    (no leader, or its leader away while it moves) cannot be planned, so the reset is refused."""
    unread = [tp for tp in chosen if starts.get(tp) is None or ends.get(tp) is None]
    if not unread:
        return
    leaders = {(p.topic, p.partition): p.leader for p in snap.partitions}
    if all(leaders.get(tp, -1) < 0 for tp in unread):
        why = " (offline: no leader)"
    else:
        why = f" ({snap.errors[0]})" if snap.errors else ""
    names = ", ".join(f"{t}/{p}" for t, p in unread[:5])
    raise StreamctlError(f"the log range of {names} could not be read{why}: nothing was reset; "
                         "try again once its leader answers")


def plan_reset(admin, group_id: str, topic_specs, all_topics: bool, mode: str, value=None,
               now_ms: int | None = None) -> tuple[Plan, list[PartitionReset]]:
    """Where each partition's committed offset would go, clamped into the log."""
    # A bad file is refused before the cluster is asked anything.
    file_offsets = parse_offsets_csv(_read(value), group_id, value) if mode == "from-file" else None
    snap, group = describe_group(admin, group_id)
    require_idle(group)
    committed = admin.committed(group_id)
    if file_offsets is not None and not topic_specs and not all_topics:  # mode from-file
        # The file names the partitions, as with the Kafka tool's --from-file alone.
        topic_specs = [(t, sorted(p for tt, p in file_offsets if tt == t))
                       for t in sorted({t for t, _ in file_offsets})]
    chosen = select_partitions(snap, committed, topic_specs, all_topics)
    starts = {(p.topic, p.partition): p.low for p in snap.partitions}
    ends = {(p.topic, p.partition): p.high for p in snap.partitions}
    require_log_ranges(snap, chosen, starts, ends)
    wanted = _requested(admin, group_id, mode, value, chosen, committed, starts, ends, now_ms, file_offsets)
    resets = []
    for tp in chosen:
        start, end = starts[tp], ends[tp]
        target, why = _clamp(wanted[tp], start, end)
        resets.append(PartitionReset(tp[0], tp[1], committed.get(tp), target, start, end, why))
    plan = Plan("groups.reset-offsets", group_id,
                {"group": group_id, "mode": mode, "value": value, "partitions": [list(tp) for tp in chosen]})
    for r in resets:
        note = r.clamped or ("" if r.delta is None else
                             f"replays {-r.delta} records" if r.delta < 0 else f"skips {r.delta} records")
        plan.changes.append(Change(f"{r.topic}/{r.partition}", "offset", r.current, r.target, note))
    never = [f"{r.topic}/{r.partition}" for r in resets if r.current is None]
    if never:
        plan.warnings.append(f"no committed offset before on {', '.join(never)}: undo cannot restore "
                             "'nothing committed' there")
    return plan, resets


def _requested(admin, group_id, mode, value, chosen, committed, starts, ends,
               now_ms, file_offsets) -> dict[tuple[str, int], int]:
    if mode == "to-earliest":
        return {tp: starts[tp] for tp in chosen}
    if mode == "to-latest":
        return {tp: ends[tp] for tp in chosen}
    if mode == "to-current":
        return {tp: committed.get(tp, ends[tp]) for tp in chosen}
    if mode == "to-offset":
        return {tp: int(value) for tp in chosen}
    if mode == "shift-by":
        missing = [f"{t}/{p}" for t, p in chosen if (t, p) not in committed]
        if missing:
            raise UsageError(f"--shift-by needs a committed offset; none on {', '.join(missing)}")
        return {tp: committed[tp] + int(value) for tp in chosen}
    if mode in ("to-datetime", "by-duration"):
        now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
        stamp = parse_datetime(value) if mode == "to-datetime" else parse_time(value, "--by-duration", now_ms)
        found = admin.offsets(chosen, stamp)
        # No record at or after the timestamp: the log end, as Kafka's tool does.
        return {tp: found[tp] if found.get(tp, -1) >= 0 else ends[tp] for tp in chosen}
    if mode == "from-file":
        missing = [f"{t}/{p}" for t, p in chosen if (t, p) not in file_offsets]
        if missing:
            raise UsageError(f"{value}: no offset for {', '.join(missing[:5])}")
        return {tp: file_offsets[tp] for tp in chosen}
    raise UsageError(f"unknown reset mode {mode!r}")


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8-sig")  # a spreadsheet's byte-order mark is not data
    except OSError as exc:
        raise UsageError(f"--from-file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--from-file {path}: not a text file") from None


def _clamp(target: int, start: int, end: int) -> tuple[int, str]:
    if target < start:
        return start, f"requested {target} is before the log start: clamped to {start}"
    if target > end:
        return end, f"requested {target} is past the log end: clamped to {end}"
    return target, ""


# ---- undo files ----------------------------------------------------------------------------------

def undo_dir(context: str, group: str) -> Path:
    return paths.undo_dir(context, group)


def write_undo(context: str, group: str, resets: list[PartitionReset]) -> Path | None:
    """Durably keep the offsets a reset replaces; returns the file (None if none were committed)."""
    previous = {(r.topic, r.partition): r.current for r in resets if r.current is not None}
    if not previous:
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = undo_dir(context, group) / f"{stamp}.csv"
    write_atomic(path, to_csv(previous), mode=0o600)
    return path


def last_undo(context: str, group: str) -> Path:
    folder = undo_dir(context, group)
    found = paths.newest(folder, "*.csv")
    if found is None:
        raise UsageError(f"no undo file for group {group!r} in context {context!r} (looked in {folder})")
    return found
