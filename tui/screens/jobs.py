"""Spark jobs: the standalone cluster's Master, workers and applications (when configured);
state, last committed batch, commit age, rates, lag and when it drains per job; for the
highlighted job, its checkpoint's offsets against Kafka's log end per partition, any checkpoint
problems, and its State pane (stateful operators, watermark: read for that job only, in the
worker). `g` / `x` start / stop the highlighted job (plan first, then confirm)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from streamctl.dashboard.source import DashboardSource
from streamctl.errors import StreamctlError
from streamctl.model.health import Severity
from streamctl.model.pipeline import eta_text
from streamctl.model.spark import JobView
from streamctl.pipeline.estimate import DrainEstimator
from streamctl.spark.state_summary import StateSummary, summarize
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.screens.groups import DRAIN_STYLE
from streamctl.tui.widgets.cells import cell
from streamctl.tui.widgets.filter_table import FilterTable
from streamctl.tui.widgets.literal_table import LiteralTable
from streamctl.tui.widgets.state_pane import StatePane

COLUMNS = ["job", "state", "committed batch", "commit age", "in rows/s", "done rows/s", "batch ms", "lag", "drains"]
STATE_STYLE = {"running": "green", "stopped": "bold red", "unknown": "dim"}


@dataclass(frozen=True)
class JobDetail:
    """What the detail pane shows for one job (computed in the worker)."""

    summary: Text
    offsets: list[tuple[str, ...]]  # topic, partition, committed, log end, lag
    problems: list[str]


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.0f}s"
    return f"{seconds / 60:.0f}m" if seconds < 7200 else f"{seconds / 3600:.1f}h"


def _state(view) -> str:
    return {True: "running", False: "stopped", None: "unknown"}[view.running]


def _row(view):
    """(key, cells, sort values) of one job."""
    cp = view.checkpoint
    samples = view.progress.samples if view.progress else ()
    last = samples[-1] if samples else None
    state = _state(view)
    lag = view.total_lag
    lag_cell = cell(lag) if lag is not None or not view.lag_error else "?"
    rates = (None, None, None) if last is None else \
        (last.input_rows_per_second, last.processed_rows_per_second, last.batch_duration_ms)
    cells = [view.name, Text(state, style=STATE_STYLE[state]), cell(cp.latest_committed if cp else None),
             _age(view.commit_age), *("-" if r is None else f"{r:.1f}" for r in rates[:2]),
             cell(rates[2]), lag_cell]
    sort = [view.name, state, cp.latest_committed if cp else None, view.commit_age, *rates, lag]
    return view.name, cells, sort


def _position(view):
    """(observed at, committed, log end, lag, stopped) for the drain ETA; None without offsets."""
    lags = [l for l in view.lags or () if l.committed is not None and l.log_end is not None]
    if not lags or view.total_lag is None:
        return None
    return (view.observed_at, sum(l.committed for l in lags), sum(l.log_end for l in lags), view.total_lag,
            view.running is False)


def cluster_line(cluster) -> Text:
    """One line for the standalone cluster: Master, workers, cores, memory, applications."""
    if cluster.error is not None:
        return Text(f"Spark Master {cluster.master_ui}: {cluster.error}", style="bold red")
    used, cores = cluster.cores
    memory_used, memory = cluster.memory_mb
    dead = len(cluster.dead_workers)
    line = Text.assemble(("cluster ", "bold"), str(cluster.url), " · ",
                         (str(cluster.status), "green" if cluster.status == "ALIVE" else "yellow"),
                         f" · workers {len(cluster.alive_workers)} live",
                         (f" {dead} dead" if dead else "", "bold yellow"),
                         f" · cores {used}/{cores} · memory {memory_used}/{memory} MiB")
    if not cluster.alive_workers:
        line.append(" · no live worker", style="bold red")
    for app in (a for a in cluster.apps if a.active):
        line.append(f" · {app.name} ")
        line.append(app.state, style="yellow" if app.waiting else "green")
    return line


def _detail(view) -> JobDetail:
    cp = view.checkpoint
    state = _state(view)
    summary = Text.assemble((view.name, "bold"), " · ", (state, STATE_STYLE[state]))
    pid = view.pid if view.running else None  # a stopped driver's pid means nothing any more
    app_state = view.cluster_app.state if view.cluster_app is not None else None
    for label, value in (("pid", pid), ("app", view.app_id), ("on cluster", app_state), ("master", view.master),
                         ("ui", view.ui_url)):
        if value is not None:
            summary.append(f" · {label} {value}")
    summary.append(f"\ncheckpoint {view.checkpoint_dir}")
    if cp is not None:
        summary.append(f" · committed {cell(cp.latest_committed)} · in flight {cell(cp.in_flight)}")
    offsets: list[tuple[str, ...]]
    if view.lags is not None:
        offsets = [(l.topic, str(l.partition), cell(l.committed), cell(l.log_end), cell(l.lag))
                   for l in view.lags]
    else:  # Kafka not read: the checkpoint's side alone
        offsets = [(t, str(p), str(o), "-", "-") for (t, p), o in sorted((cp.committed_offsets() if cp else {}).items())]
    problems = [f"checkpoint: {p}" for p in (cp.problems if cp else ())]
    problems += [f"{label}: {value}" for label, value in (("checkpoint", view.checkpoint_error),
                                                          ("lag", view.lag_error), ("ui", view.rest_error)) if value]
    return JobDetail(summary, offsets, problems)


def state_summary(source: DashboardSource, view: JobView) -> StateSummary:
    """The State pane of `view`'s job: its checkpoint's state stores read once (blocking: call it
    from a worker) and the progress events its view already holds, as of when it was observed."""
    try:
        state, error = source.spark_job_state(view), None
    except StreamctlError as exc:
        state, error = None, f"state unread: {exc}"
    return summarize(view.name, state, view.progress, view.observed_at, error)


class JobsScreen(DataScreen):
    heading = "Spark jobs"
    BINDINGS = [
        Binding("g", "start_job", "Start job", id="jobs.start"),
        Binding("x", "stop_job", "Stop job", id="jobs.stop"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.details: dict[str, JobDetail] = {}
        self.drains: DrainEstimator | None = None  # made on the first refresh, with the context's thresholds
        self.views: dict[str, JobView] = {}
        self.selected_job: str | None = None  # set on the event loop, read by the workers
        self.state: StateSummary | None = None  # the selected job's State pane

    def compose_body(self) -> ComposeResult:
        cluster = Static(id="spark-cluster")
        cluster.display = False  # until a Master is configured and read
        yield cluster
        yield FilterTable(COLUMNS, id="jobs")
        yield Static(id="job-summary")
        offsets = LiteralTable(id="job-offsets", cursor_type="row", zebra_stripes=True)
        offsets.border_title = "Checkpoint vs log end"
        yield offsets
        yield StatePane(id="job-state")
        yield Static(id="job-problems")

    def on_mount(self) -> None:
        self.query_one("#job-offsets", DataTable).add_columns("topic", "partition", "committed", "log end", "lag")
        super().on_mount()

    def fetch(self):
        cluster = self.source.spark_cluster()
        views = self.source.spark_jobs(cluster)
        selected = next((v for v in views if v.name == self.selected_job), None)
        state = state_summary(self.source, selected) if selected is not None else None
        return [(_row(v), _position(v)) for v in views], {v.name: _detail(v) for v in views}, cluster, views, state

    def show(self, data) -> None:
        measured, self.details, cluster, views, self.state = data
        self.views = {v.name: v for v in views}
        line = self.query_one("#spark-cluster", Static)
        line.display = cluster is not None
        if cluster is not None:
            line.update(cluster_line(cluster))
        if self.drains is None:
            self.drains = DrainEstimator(self.source.thresholds)
        rows = []
        for (key, cells, sort), position in measured:
            eta, severity = self.drains.observe(key, *position) if position else (None, Severity.OK)
            rows.append((key, [*cells, Text("-" if eta is None else eta_text(eta), style=DRAIN_STYLE[severity])],
                         [*sort, -1 if eta is None else eta]))
        jobs = self.query_one(FilterTable)
        jobs.set_rows(rows)
        self._show_detail(jobs.selected_key())

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self.query_one(FilterTable).table:
            self._show_detail(event.row_key.value)

    def _show_detail(self, name: str | None) -> None:
        detail = self.details.get(name) if name is not None else None
        summary = self.query_one("#job-summary", Static)
        offsets = self.query_one("#job-offsets", DataTable)
        problems = self.query_one("#job-problems", Static)
        offsets.clear()
        self._show_state(name)
        if detail is None:
            summary.update("no Spark jobs: none in the context, none launched here" if not self.details else "")
            problems.set_class(False, "-problems")
            problems.update("")
            return
        summary.update(detail.summary)
        for row in detail.offsets:
            offsets.add_row(*row)
        problems.set_class(bool(detail.problems), "-problems")
        problems.update(Text("\n".join(detail.problems) or "no checkpoint problems"))

    # ---- the State pane: read for the highlighted job only ------------------------------------

    def _show_state(self, name: str | None) -> None:
        self.selected_job = name
        pane = self.query_one(StatePane)
        pane.display = name is not None
        if self.state is not None and self.state.job == name:
            pane.show(self.state)
        elif name is not None and name in self.views:
            pane.show(None, "reading its state stores…")
            self._fetch_state(self.views[name])

    @work(thread=True, exclusive=True, exit_on_error=False, group="state")
    def _fetch_state(self, view: JobView) -> None:
        self.post_message(StatePane.Loaded(state_summary(self.source, view)))

    @on(StatePane.Loaded)
    def _state_loaded(self, message: StatePane.Loaded) -> None:
        if message.summary.job == self.selected_job:
            self.state = message.summary
            self.query_one(StatePane).show(message.summary)

    # ---- operations ------------------------------------------------------------------------

    def action_start_job(self) -> None:
        name = self._job_to_operate()
        if name is not None:
            self.app.show_plan(self.source.start_job(name))

    def action_stop_job(self) -> None:
        name = self._job_to_operate()
        if name is not None:
            self.app.show_plan(self.source.stop_job(name))

    def _job_to_operate(self) -> str | None:
        name = self.query_one(FilterTable).selected_key()
        if name is None:
            self.notify("select a job first", severity="warning")
        return name
