"""The pipeline graph derived from what streamctl reads, and each hop's figures.

Writers into topics: Flume agents' Kafka sinks (their definitions), Connect source connectors,
Spark jobs', Streams apps' and consumer groups' declared outputs, producers the context names,
and an "external" writer for a topic nothing known writes but whose log end grew.
Readers: Streams apps, Connect sink connectors, Spark jobs (their checkpoints' sources) and the
remaining consumer groups. A job whose progress events carry a watermark (a stateful one) adds its
event-time lag to the hops it reads: when the job observed minus the newest event's watermark.

Rates come from two readings `window` seconds apart: into a topic, its log-end growth; out of
it, the reader's committed-offset growth (a Spark job: its checkpoint's committed offsets, 0
once stopped). The earlier reading may be one the lag history holds (`before_source`
"history"): it has the groups' committed offsets and their partitions' log ends, not the jobs'
checkpoints, so a job's rate out is then the rows of its batches triggered between the readings
(its progress events, when they reach back that far; else unknown). A reader's ETA is its
backlog over the rate it reads at:

    backlog within allowed_lag                               drained, OK
    stopped (no members, not running) while behind           never, CRIT
    reading nothing while behind, yet running                never, WARN
    reading clearly slower than the topic grows              never, WARN
    (either, behind by no more than arrived meanwhile)       unknown or backlog / rate out, OK
    otherwise backlog / rate out                             WARN/CRIT over drain_eta_seconds_*

"Clearly" allows for commits landing in steps (a sink commits every few seconds): the out rate
must trail the in rate by more than half of it. And neither "never" applies to a reader behind
by no more than what arrived at its own partitions during the window: a commit merely due
explains that much (the steps of a Streams app committing every 5 s caught by a 12 s window on
a loaded host), so its ETA is backlog / rate out, or unknown before its first commit; a reader
really falling behind passes that mark within a window or two.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from streamctl.kafka.streams.apps import find_apps
from streamctl.model.health import Severity
from streamctl.model.kafka import KafkaSnapshot
from streamctl.model.pipeline import NEVER, Hop, Node, PipelineMap
from streamctl.spark.state import epoch_seconds
from streamctl.spark.state_summary import event_time_lag

SLOWER_FACTOR = 0.5  # an out rate below (1 - this) x the in rate is falling behind
# Reader states that mean nothing reads (a group without members, a job or app not running).
STOPPED_STATES = {"EMPTY", "DEAD", "STOPPED", "IDLE", "PAUSED", "FAILED", "UNASSIGNED", "SILENT"}
PROGRESS_SILENCE = 60.0  # seconds without a progress line: a streaming query writes one per trigger


@dataclass(frozen=True)
class Readings:
    """What the derivation works from (collect.py reads it; tests load it from fixtures)."""

    before: KafkaSnapshot
    after: KafkaSnapshot
    window: float  # seconds between the two Kafka readings
    flume: dict[str, tuple[list[str], str | None]] = field(default_factory=dict)  # agent -> (topics, state)
    jobs: list = field(default_factory=list)  # JobView
    job_outputs: dict[str, list[str]] = field(default_factory=dict)
    connectors: list = field(default_factory=list)  # Connector
    streams_outputs: dict[str, list[str]] = field(default_factory=dict)
    jobs_before: list = field(default_factory=list)  # JobView, `window` earlier
    errors: tuple[str, ...] = ()
    producers: dict[str, list[str]] = field(default_factory=dict)  # named writers the context adds
    group_outputs: dict[str, list[str]] = field(default_factory=dict)  # group -> topics it writes
    before_source: str = "reading"  # "history": `before` is a reading the lag history holds


def derive(readings: Readings, thresholds) -> PipelineMap:
    r = readings
    known_topics = {t.name for t in r.after.topics}
    grown = _log_end_growth(r.before, r.after)
    rates_in = {topic: count / r.window for topic, count in grown.items()} if r.window > 0 else {}
    hops: list[Hop] = []
    readers_of_groups: set[str] = set()

    def reads(reader: Node, topic: str, backlog, rate_out, lag_seconds=None, arrived=None, event_lag=None) -> None:
        hops.append(_judged(Hop(None, reader, topic, rates_in.get(topic), rate_out, backlog, lag_seconds,
                                event_time_lag_seconds=event_lag), thresholds, arrived))

    def writes(writer: Node, topic: str) -> None:
        if topic in known_topics:
            hops.append(Hop(writer, None, topic, rates_in.get(topic)))

    committed = _group_positions(r.before, r.after, r.window)
    for app in find_apps(r.after, thresholds.allowed_lag, r.streams_outputs):
        node = Node("streams", app.app_id, app.status)
        readers_of_groups.add(app.app_id)
        for streams_topic in app.by_role("input"):
            reads(node, streams_topic.name, *committed.get((app.app_id, streams_topic.name), (None, None)))
        for streams_topic in app.by_role("output"):
            writes(node, streams_topic.name)
    for connector in r.connectors:
        node = Node("connector", connector.name, connector.state)
        if connector.type == "sink":
            readers_of_groups.add(connector.group_id)
            for topic in connector.topics:
                reads(node, topic, *committed.get((connector.group_id, topic), (None, None)))
        else:
            for topic in connector.topics:
                writes(node, topic)
    earlier_jobs = {view.name: view for view in r.jobs_before}
    for view in r.jobs:
        state = _job_state(view)
        node = Node("job", view.name, state)
        moved, arrived = _job_progress(earlier_jobs.get(view.name), view)
        if view.name not in earlier_jobs and r.before_source == "history":
            moved, arrived = _job_progress_from_events(view, r.after, r.window, grown)
        event_lag = event_time_lag(view.progress, view.observed_at)
        for topic, backlog in _job_backlogs(view).items():
            rate = 0.0 if state in ("stopped", "silent") else (
                moved[topic] / r.window if topic in moved and r.window > 0 else None)
            reads(node, topic, backlog, rate, arrived=arrived.get(topic), event_lag=event_lag)
        for topic in r.job_outputs.get(view.name, []):
            writes(node, topic)
    for group in r.after.groups:
        if group.id in readers_of_groups:
            continue
        node = Node("group", group.id, group.state)
        for (group_id, topic), figures in sorted(committed.items()):
            if group_id == group.id and not topic.startswith("__"):
                reads(node, topic, *figures)
        for topic in r.group_outputs.get(group.id, []):
            writes(node, topic)
    for agent, (topics, state) in sorted(r.flume.items()):
        for topic in topics:
            writes(Node("flume", agent, state), topic)
    for producer, topics in sorted(r.producers.items()):
        for topic in topics:
            writes(Node("producer", producer), topic)
    written = {h.topic for h in hops if h.writer}
    for topic in sorted({h.topic for h in hops if h.reader} - written):
        if (rates_in.get(topic) or 0) > 0:
            writes(Node("external", topic), topic)
    nodes = {h.node.id: h.node for h in hops}
    nodes |= {f"topic:{h.topic}": Node("topic", h.topic) for h in hops}
    depth = _depths(hops)
    ordered = sorted(hops, key=lambda h: (depth.get(h.topic, 0), h.topic, h.reader is not None, h.source, h.target))
    return PipelineMap(tuple(sorted(nodes.values(), key=lambda n: n.id)), tuple(ordered), r.window, r.errors,
                       r.before_source, _reading_time(r.before))


def _depths(hops: list[Hop]) -> dict[str, int]:
    """How many hops downstream of the entry topics each topic is: the map reads from source
    to sink. A topic written by a node that reads another is one deeper (cycles stop)."""
    inputs_of: dict[str, set[str]] = defaultdict(set)  # node id -> topics it reads
    for hop in hops:
        if hop.reader is not None:
            inputs_of[hop.reader.id].add(hop.topic)
    fed_by: dict[str, set[str]] = defaultdict(set)  # topic -> topics its writers read
    for hop in hops:
        if hop.writer is not None:
            fed_by[hop.topic] |= inputs_of.get(hop.writer.id, set())
    depth: dict[str, int] = {}

    def of(topic: str, seen: frozenset) -> int:
        if topic not in depth:
            upstream = [of(t, seen | {topic}) for t in fed_by[topic] if t not in seen]
            depth[topic] = 1 + max(upstream) if upstream else 0
        return depth[topic]

    for topic in {h.topic for h in hops}:
        of(topic, frozenset())
    return depth


def _log_end_growth(before: KafkaSnapshot, after: KafkaSnapshot) -> dict[str, int]:
    """Records written to each topic between the readings (partitions read both times)."""
    ends = {(p.topic, p.partition): p.high for p in before.partitions if p.high is not None}
    grown: dict[str, int] = defaultdict(int)
    for p in after.partitions:
        if p.high is not None and (p.topic, p.partition) in ends:
            grown[p.topic] += max(0, p.high - ends[(p.topic, p.partition)])
    return dict(grown)


def _reading_time(snapshot: KafkaSnapshot) -> float:
    return snapshot.offsets_read_at or snapshot.taken_at


def _group_positions(before: KafkaSnapshot, after: KafkaSnapshot, window: float):
    """(group, topic) -> (backlog, records/s committed, lag in seconds, records that arrived at
    the group's partitions) from the two readings."""
    earlier = {(l.group, l.topic, l.partition): l for l in before.lags}
    backlog: dict[tuple[str, str], int] = defaultdict(int)
    moved: dict[tuple[str, str], int] = defaultdict(int)
    arrived: dict[tuple[str, str], int] = defaultdict(int)
    compared: set[tuple[str, str]] = set()
    seconds: dict[tuple[str, str], float | None] = {}
    for lag in after.lags:
        key = (lag.group, lag.topic)
        backlog[key] += lag.lag or 0
        previous = earlier.get((lag.group, lag.topic, lag.partition))
        if (step := _grown(previous, lag, "committed")) is not None:
            moved[key] += step
            compared.add(key)
        if (step := _grown(previous, lag, "log_end")) is not None:
            arrived[key] += step
        if lag.lag_seconds is not None:
            seconds[key] = max(seconds.get(key) or 0.0, lag.lag_seconds)
    return {key: (backlog[key], moved[key] / window if key in compared and window > 0 else None,
                  seconds.get(key), arrived.get(key)) for key in backlog}


def _job_backlogs(view) -> dict[str, int]:
    backlog: dict[str, int] = defaultdict(int)
    for lag in view.lags or ():
        if lag.committed is not None and lag.log_end is not None:
            backlog[lag.topic] += max(0, lag.log_end - lag.committed)
    return dict(backlog)


def _job_state(view) -> str | None:
    """running/stopped from its process or UI; else "silent" when its progress file went quiet."""
    if view.running is not None:
        return "running" if view.running else "stopped"
    progress = view.progress
    if progress and (progress.last_event == "terminated" or (
            progress.modified_at is not None and view.observed_at - progress.modified_at > PROGRESS_SILENCE)):
        return "silent"
    return None


def _job_progress(before, after) -> tuple[dict[str, int], dict[str, int]]:
    """Per topic, records a job's latest committed batch moved on, and records that arrived at
    the partitions it reads, between two readings of its checkpoint (a batch commits every
    trigger, so the readings' window should span a few)."""
    if before is None:
        return {}, {}
    earlier = {(l.topic, l.partition): l for l in before.lags or ()}
    moved: dict[str, int] = defaultdict(int)
    arrived: dict[str, int] = defaultdict(int)
    for lag in after.lags or ():
        previous = earlier.get((lag.topic, lag.partition))
        for totals, attribute in ((moved, "committed"), (arrived, "log_end")):
            if (step := _grown(previous, lag, attribute)) is not None:
                totals[lag.topic] += step
    return dict(moved), dict(arrived)


def _job_progress_from_events(view, after: KafkaSnapshot, window: float,
                              grown: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """_job_progress when the earlier reading has no checkpoint (the lag history's): the rows of
    the batches triggered within the `window` before `after`, from the job's progress events,
    for a job reading one topic (its batches' rows are not split by topic), when the events reach
    back to the window's start; and what arrived at that topic meanwhile (its log-end growth)."""
    topics = list(_job_backlogs(view))
    samples = view.progress.samples if view.progress else ()
    until = _reading_time(after)
    since = until - window
    started = [(at, s.num_input_rows) for s in samples if (at := epoch_seconds(s.timestamp)) is not None]
    if len(topics) != 1 or len(started) < len(samples) or not started or min(at for at, _ in started) > since:
        return {}, {}
    [topic] = topics
    rows = sum(count for at, count in started if since < at <= until)
    return {topic: rows}, ({topic: grown[topic]} if topic in grown else {})


def _grown(previous, lag, attribute: str) -> int | None:
    """How far a partition's `attribute` (committed or log_end) moved on between two readings;
    None when either reading lacks it (it never counts as going back)."""
    if previous is None:
        return None
    old, new = getattr(previous, attribute), getattr(lag, attribute)
    return None if old is None or new is None else max(0, new - old)


def _judged(hop: Hop, thresholds, arrived: int | None = None) -> Hop:
    stopped = hop.reader is not None and (hop.reader.state or "").upper() in STOPPED_STATES
    eta, severity, note = drain(hop.backlog, hop.rate_in, hop.rate_out, stopped, thresholds, arrived)
    return replace(hop, eta_seconds=eta, severity=severity, note=note)


def drain(backlog: int | None, rate_in: float | None, rate_out: float | None, stopped: bool,
          thresholds, arrived: int | None = None) -> tuple[float | None, Severity, str]:
    """(ETA, severity, note) of a reader `backlog` records behind (the rules above); `arrived`:
    records written to the partitions it reads between the readings (None: unknown)."""
    if backlog is None:
        return None, Severity.OK, ""
    if backlog <= thresholds.allowed_lag:
        return 0.0, Severity.OK, ""
    if stopped:
        return NEVER, Severity.CRIT, "stopped"
    if rate_out is None:
        return None, Severity.OK, ""
    commit_due = arrived is not None and backlog <= arrived  # the window's input, not yet committed
    if rate_out <= 0:
        return (None, Severity.OK, "no commit yet") if commit_due else (
            NEVER, Severity.WARN, "committed nothing between the readings")
    if rate_in is not None and rate_out < (1 - SLOWER_FACTOR) * rate_in and not commit_due:
        return NEVER, Severity.WARN, "reads slower than the topic grows"
    eta = backlog / rate_out
    severity = (Severity.CRIT if eta >= thresholds.drain_eta_seconds_crit else
                Severity.WARN if eta >= thresholds.drain_eta_seconds_warn else Severity.OK)
    return eta, severity, ""
