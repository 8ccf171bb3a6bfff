"""`groups peek`: the record at each lagging partition's committed offset (the next one the group
will process) and the few after it; STALLED and STOPPED partitions first, then by lag. The
poison-pill view. Reads assign partitions; they never join the group or commit."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from streamctl.errors import StreamctlError, UsageError
from streamctl.model.records import Record


@dataclass
class PeekView:
    group: str
    topic: str
    partition: int
    committed: int
    log_end: int | None
    lag: int | None
    status: str  # from the lag history (OK, LAGGING, STALLED, ...), UNKNOWN without one
    records: list[Record] = field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict:
        import json

        from streamctl.kafka.records.formats import to_json_line

        return {"group": self.group, "topic": self.topic, "partition": self.partition, "committed": self.committed,
                "log_end": self.log_end, "lag": self.lag, "status": self.status, "error": self.error,
                "records": [json.loads(to_json_line(r)) for r in self.records]}


def peek(ctx, group: str, partition_specs, count: int) -> list[PeekView]:
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.isolated import isolated_backend
    from streamctl.backends.kafka.records import RecordReader
    from streamctl.kafka.records.formats import partition_spec
    from streamctl.kafka.records.masking import Masker

    wanted = [partition_spec(s) for s in partition_specs]
    try:
        snap = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout).snapshot(
            group_filter=lambda g: g == group, known_groups=[group], lag_time=False)
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None
    if snap.group(group) is None:
        if snap.errors:
            raise StreamctlError(f"consumer group {group!r} unreadable: {snap.errors[0]}")
        raise UsageError(f"no consumer group {group!r} in the cluster")
    lags = {(l.topic, l.partition): l for l in snap.lags if l.group == group and l.committed is not None}
    if missing := [f"{t}:{p}" for t, p in wanted if (t, p) not in lags]:
        raise UsageError(f"group {group!r} has no committed offset on {missing[0]}")
    chosen = [lags[k] for k in wanted] if wanted else [l for l in lags.values() if l.lag]
    statuses = _statuses(ctx, group)
    views = [PeekView(group, l.topic, l.partition, l.committed, l.log_end, l.lag,
                      statuses.get((l.topic, l.partition), "UNKNOWN")) for l in chosen]
    views.sort(key=lambda v: (v.status not in ("STALLED", "STOPPED"), -(v.lag or 0), v.topic, v.partition))
    masker = Masker.from_config(ctx.records.mask)
    with RecordReader(ctx.kafka.client_config(), ctx.kafka.timeout) as reader:
        for view in views:
            try:
                low, _high = reader.watermarks(view.topic, view.partition)
                start = max(view.committed, low)
                if view.committed < low:
                    view.error = f"committed offset {view.committed} is below the log start {low} (deleted)"
                stream = reader.read(view.topic, {view.partition: start})
                for record in stream:
                    view.records.append(masker.apply(record))
                    if len(view.records) >= count:
                        break
                stream.close()
            except StreamctlError as exc:
                view.error = str(exc)
    return views


def _statuses(ctx, group: str) -> dict[tuple[str, int], str]:
    """Each partition's status in the lag history (check and the dashboard write it)."""
    from streamctl.kafka.lag.store import LagStore, default_path

    path = default_path()
    if not path.exists():
        return {}
    with LagStore(path) as store:
        status = store.evaluate(ctx.name, group, time.time(), ctx.thresholds.allowed_lag,
                                ctx.thresholds.stall_window_seconds)
    return {(p.topic, p.partition): p.status.value for p in status.partitions}
