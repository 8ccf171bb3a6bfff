"""`check --probe`: an end-to-end probe of the pipeline (kminion-style), off by default.

It writes one marker record into each partition of every entry topic (what a Flume agent, a
source connector or a producer the context names writes), then reads every second until each
reader downstream has passed it: a group's or Streams app's or sink connector's committed
offsets, a Spark job's checkpoint. A reader that passed hands the probe on: the log ends of the
topics it writes, at that reading, are what their own readers must pass. So each hop's figure
is the time from the marker's write until that reader had moved past it, end to end.

The marker (value `streamctl-probe <id> <time>`, header `streamctl-probe`) is no line the
demo's job or Streams app parses, so both drop it; a consumer of yours sees one more record a
partition. Each probe is one audit-log entry; read-only contexts refuse it. The markers are
written once: a producer child that crashes after it began is not run again; the markers are
looked for in the topics instead (found: the probe goes on; not found, or unreadable: the probe
is UNKNOWN and the audit entry says `failed` or `unknown`). A reader that has
not passed by the deadline is a WARN naming the hop; what lies past it is not reached. Readers
with nothing running (a group without members, a stopped job) are not waited for: abandoned
groups are common, and `check --component pipeline` names a stopped reader that is behind.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from streamctl.model.health import Finding, Metric, NotEvaluated, Severity
from streamctl.model.pipeline import Hop, PipelineMap

POLL = 1.0  # seconds between readings
MARGIN = 1.0  # seconds kept before check's deadline to judge and answer
ENTRY_WRITERS = {"flume", "connector", "producer"}
HEADER = "streamctl-probe"


@dataclass(frozen=True)
class Passage:
    hop: Hop
    seconds: float | None  # after the marker's write; None: not passed by the deadline


SECTION = "kafka section"


def configured(ctx) -> bool:
    return True  # it reads the Kafka section every context has (and what else it configures)


def collect(ctx, deadline_at: float, read_only: bool = False, **_options):
    from streamctl.backends.kafka.isolated import isolated_backend
    from streamctl.errors import StreamctlError
    from streamctl.ops import require_writable
    from streamctl.pipeline.collect import read_once, readings
    from streamctl.pipeline.derive import derive

    try:
        require_writable("the end-to-end probe (it writes marker records)", ctx, read_only)
        kafka = isolated_backend(ctx.kafka.client_config(), ctx.kafka.timeout)
        first = read_once(ctx, kafka)
        pipeline = derive(readings(ctx, first, first), ctx.thresholds)
        entries = entry_topics(pipeline)
        if not entries:
            raise NotEvaluated("no entry topic: nothing streamctl knows writes into Kafka "
                               "(name your producers in the context's pipeline.producers)")
        written_at, markers = time.time(), write_markers(ctx, entries, first.snapshot)
        connectors = {c.name: c.group_id for c in first.connectors}
        passages = follow(pipeline, markers, written_at, deadline_at - MARGIN,
                          lambda: read_once(ctx, kafka, everything=False), connectors)
    except StreamctlError as exc:  # refused (read-only), Kafka unread, markers undelivered
        raise NotEvaluated(str(exc)) from None
    return probe_health(pipeline, passages)


def entry_topics(pipeline: PipelineMap) -> list[str]:
    """Topics written by a source streamctl knows (not by a reader of another topic)."""
    return sorted({h.topic for h in pipeline.hops if h.writer is not None and h.writer.kind in ENTRY_WRITERS})


def write_markers(ctx, topics: list[str], snapshot) -> dict[tuple[str, int], int]:
    """One marker per partition of each topic; (topic, partition) -> the offset a reader must
    reach (the marker's + 1). Audited as `check.probe`."""
    from streamctl.backends.kafka.isolated import call_in_child
    from streamctl.errors import StreamctlError
    from streamctl.model.records import OutgoingRecord
    from streamctl.ops import Change, NotAsPlanned, Plan, execute

    probe_id = uuid.uuid4().hex[:12]
    value = f"{HEADER} {probe_id} {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}".encode()
    partitions = {t: sorted(p.partition for p in snapshot.partitions if p.topic == t) for t in topics}
    plan = Plan("check.probe", ",".join(topics), {"topics": topics, "probe": probe_id},
                [Change(f"topic {t}", "marker records", None, len(ps)) for t, ps in partitions.items()])
    records = {t: [OutgoingRecord(value, HEADER.encode(), ((HEADER, probe_id.encode()),), partition=p) for p in ps]
               for t, ps in partitions.items()}

    def write() -> dict[tuple[str, int], int]:
        offsets = call_in_child(lambda: _send(ctx.kafka.client_config(), ctx.kafka.timeout, records),
                                patience=ctx.kafka.timeout * 2 + 10, what="probe markers", mutates=True)
        if len(offsets) < sum(len(r) for r in records.values()):
            raise StreamctlError(f"probe: {len(offsets)} of {sum(len(r) for r in records.values())} "
                                 f"marker record(s) delivered")
        return offsets

    found: dict[tuple[str, int], int] = {}

    def landed() -> list[list]:
        """After a lost answer: the markers looked for from the log ends the plan read."""
        starts = {(p.topic, p.partition): p.high for p in snapshot.partitions if p.topic in partitions}
        found.update(call_in_child(lambda: _find_markers(ctx.kafka.client_config(), ctx.kafka.timeout,
                                                         starts, probe_id),
                                   patience=ctx.kafka.timeout * 4 + 10, what="finding probe markers",
                                   mutates=False))
        wanted = sum(len(ps) for ps in partitions.values())
        if len(found) < wanted:
            raise NotAsPlanned(f"{len(found)} of {wanted} probe marker(s) found in the topics")
        return [[f"topic {t}", "marker records", len(ps)] for t, ps in partitions.items()]

    written = execute(plan, ctx.name, write, reread=landed)  # verified by its delivery reports
    return {key: offset + 1 for key, offset in (written if written is not None else found).items()}


def _send(client_config, timeout: float, records: dict) -> dict[tuple[str, int], int]:
    from streamctl.backends.kafka.isolated import call_begins
    from streamctl.backends.kafka.records import RecordWriter

    writer = RecordWriter(client_config, timeout)
    call_begins()  # from here on the markers may reach Kafka: never sent twice
    for topic, batch in records.items():
        writer.send(topic, batch)
    writer.flush()
    return writer.offsets


def _find_markers(client_config, timeout: float, starts: dict[tuple[str, int], int | None],
                  probe_id: str) -> dict[tuple[str, int], int]:
    """(topic, partition) -> the offset of the probe's marker, for those found from `starts`
    (a partition's log end before the write; None: from a minute before now)."""
    from streamctl.backends.kafka.records import RecordReader

    wanted = (HEADER, probe_id.encode())
    found = {}
    with RecordReader(client_config, timeout) as reader:
        for topic in sorted({t for t, _ in starts}):
            ours = {p: start for (t, p), start in starts.items() if t == topic}
            unknown = [p for p, start in ours.items() if start is None]
            if unknown:
                ours.update(reader.offsets_for_time(topic, unknown, int((time.time() - 60) * 1000)))
            known = {p: start for p, start in ours.items() if start is not None}  # all of them now
            for record in reader.read(topic, known):
                if wanted in record.headers:
                    found[(topic, record.partition)] = record.offset
    return found


def follow(pipeline: PipelineMap, markers: dict[tuple[str, int], int], written_at: float, until: float,
           read, connector_groups: dict[str, str | None], sleep=time.sleep, clock=time.monotonic) -> list[Passage]:
    """Read until every reader reached from the markers has passed them, or `until` (on
    `clock`). `read()` returns a pipeline Reading."""
    needed: dict[str, dict[int, int]] = {}  # topic -> partition -> offset a reader must reach
    for (topic, partition), offset in markers.items():
        needed.setdefault(topic, {})[partition] = offset
    passed: dict[int, float] = {}  # hop index -> seconds
    followed = [(i, h) for i, h in enumerate(pipeline.hops) if h.reader is not None and not _stopped(h)]
    while True:
        pending = [(i, h) for i, h in followed if h.topic in needed and i not in passed]
        if not pending or clock() >= until:
            break
        sleep(max(0.0, min(POLL, until - clock())))
        reading = read()
        for index, hop in pending:
            if _has_passed(_positions(hop, reading, connector_groups), needed[hop.topic]):
                passed[index] = max(0.0, reading.at - written_at)
                _hand_on(pipeline, hop, reading.snapshot, needed)
    return [Passage(h, passed.get(i)) for i, h in followed if h.topic in needed]


def _stopped(hop: Hop) -> bool:
    """A reader with nothing running (a group without members, a stopped job) cannot pass the
    marker: not waited for (the pipeline component names it when it is behind)."""
    from streamctl.pipeline.derive import STOPPED_STATES

    return (hop.node.state or "").upper() in STOPPED_STATES  # a reader hop: its node is the reader


def _positions(hop: Hop, reading, connector_groups: dict[str, str | None]) -> dict[int, int]:
    """partition -> the reader's committed offset (the next it reads) on the hop's topic."""
    reader = hop.node  # a reader hop: its node is the reader
    if reader.kind == "job":
        view = next((v for v in reading.jobs if v.name == reader.name), None)
        return {l.partition: l.committed for l in (view.lags or ()) if l.topic == hop.topic
                and l.committed is not None} if view else {}
    group = connector_groups.get(reader.name) if reader.kind == "connector" else reader.name
    return {l.partition: l.committed for l in reading.snapshot.lags
            if l.group == group and l.topic == hop.topic and l.committed is not None}


def _has_passed(positions: dict[int, int], needed: dict[int, int]) -> bool:
    return all(positions.get(partition, -1) >= offset for partition, offset in needed.items())


def _hand_on(pipeline: PipelineMap, hop: Hop, snapshot, needed: dict[str, dict[int, int]]) -> None:
    """The topics the reader writes: their log ends now are what their readers must pass."""
    for out in pipeline.hops:
        if out.writer is not None and out.writer.id == hop.node.id and out.topic not in needed:
            needed[out.topic] = {p.partition: p.high for p in snapshot.partitions
                                 if p.topic == out.topic and p.high is not None}


def probe_health(pipeline: PipelineMap, passages: list[Passage]) -> tuple[list[Finding], list[Metric]]:
    from streamctl.pipeline.health import hop_name

    findings, metrics = [], []
    for passage in passages:
        name = hop_name(pipeline, passage.hop)
        if passage.seconds is None:
            findings.append(Finding(Severity.WARN, "probe", name, "PIPELINE_PROBE_LATE",
                                    f"probe: {name}: the marker not passed by the deadline"))
            continue
        metrics.append(Metric("pipeline_probe_seconds", round(passage.seconds, 1),
                              "Seconds from the probe's marker write until a reader passed it",
                              labels={"topic": passage.hop.topic, "reader": passage.hop.node.id}, uom="s",
                              perfdata=False))
    done = [p.seconds for p in passages if p.seconds is not None]
    if done and len(done) == len(passages):
        metrics.append(Metric("pipeline_probe_end_to_end_seconds", round(max(done), 1),
                              "Seconds until the last reader downstream passed the probe's marker", uom="s"))
    return findings, metrics
