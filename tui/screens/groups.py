"""Consumer groups: state, members, topics, lag in records and time, a sparkline of lag over
the session, when the lag drains (rates over the last minute of refreshes), and the
Burrow-style status; Enter opens the per-partition view."""

from __future__ import annotations

from collections import defaultdict, deque
from threading import Lock

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable
from textual.worker import get_current_worker

from streamctl.model.health import Severity
from streamctl.model.kafka import type_label
from streamctl.model.pipeline import eta_text
from streamctl.pipeline.estimate import DrainEstimator
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.error_banner import ErrorBanner
from streamctl.tui.widgets.filter_table import FilterTable
from streamctl.tui.widgets.sparkline import sparkline

COLUMNS = ["group", "type", "state", "members", "topics", "lag", "lag (s)", "trend", "drains", "status"]
DRAIN_STYLE = {Severity.OK: "", Severity.WARN: "yellow", Severity.CRIT: "bold red", Severity.UNKNOWN: "dim"}
STATUS_STYLE = {"OK": "green", "LAGGING": "yellow", "STALLED": "bold red", "STOPPED": "bold red",
                "REWOUND": "yellow", "UNKNOWN": "dim"}


class GroupsScreen(DataScreen):
    heading = "Consumer groups"
    BINDINGS = [Binding("o", "reset_offsets", "Reset offsets", id="groups.reset")]

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, deque] = defaultdict(lambda: deque(maxlen=30))
        self.drains: DrainEstimator | None = None  # made on the first refresh, with the context's thresholds
        self._observing = Lock()  # a superseded refresh may still be running in its thread
        self._observed_at = 0.0  # the newest reading the history and drains hold

    def compose_body(self) -> ComposeResult:
        yield FilterTable(COLUMNS, sort_column=5, descending=True, id="groups")

    def fetch(self):
        """Everything computed here, in the worker thread (the history and drain ETAs too);
        show() only hands the rows to the table."""
        snap, statuses = self.source.kafka_groups()
        summaries = _summaries(snap, statuses)
        with self._observing:
            # A superseded refresh (its result dropped) or an older reading is not recorded.
            at = snap.offsets_read_at or snap.taken_at
            record = not get_current_worker().is_cancelled and at >= self._observed_at
            return snap, self._rows(snap, summaries, at, record)

    def _rows(self, snap, summaries, at: float, record: bool) -> list:
        if self.drains is None:
            self.drains = DrainEstimator(self.source.thresholds)
        if record:
            self._observed_at = at
        rows = []
        for group, kind, state, members, topics, total, seconds, status, (committed, log_end) in summaries:
            if record:
                self.history[group].append(total)
                eta, severity = self.drains.observe(group, at, committed, log_end, total, state in ("EMPTY", "DEAD"))
            else:
                eta, severity = None, Severity.UNKNOWN
            cells = [group, kind, state, str(members), topics, str(total),
                     "-" if seconds is None else f"{seconds:.0f}", sparkline(self.history[group]),
                     Text(eta_text(eta) if eta is not None else "-", style=DRAIN_STYLE[severity]),
                     Text(status, style=STATUS_STYLE.get(status, ""))]
            rows.append((group, cells, [group, kind, state, members, topics, total, seconds, total,
                                        -1 if eta is None else eta, status]))
        return rows

    def show(self, data) -> None:
        snap, rows = data
        self.app.last_kafka = snap
        self.query_one(FilterTable).set_rows(rows)
        if partial := _group_errors(snap.errors):  # a listing that timed out must not look like "no groups"
            more = f" (and {len(partial) - 1} more)" if len(partial) > 1 else ""
            self.query_one(ErrorBanner).show_error(f"partial read: {partial[0]}{more}")

    def selected_group(self) -> str | None:
        return self.query_one(FilterTable).selected_key()

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        from streamctl.tui.screens.group_detail import GroupDetailScreen

        if (group_id := event.row_key.value) is not None:  # rows are keyed by group id
            self.app.push_screen(GroupDetailScreen(group_id))

    def action_reset_offsets(self) -> None:
        group = self.selected_group()
        if group is None:
            self.notify("select a group first", severity="warning")
            return
        from streamctl.tui.screens.dialogs.reset_offsets import ResetOffsetsDialog

        self.app.open_operation(ResetOffsetsDialog(group))


def _summaries(snap, statuses) -> list[tuple]:
    """Per group: id, type, state, members, topics, lag, lag in seconds, status, and its
    (committed, log end) totals."""
    by_group: dict[str, list] = defaultdict(list)
    for lag in snap.lags:
        by_group[lag.group].append(lag)
    summaries = []
    for g in snap.groups:
        lags = by_group.get(g.id, [])
        seconds = [l.lag_seconds for l in lags if l.lag_seconds is not None]
        status = getattr(getattr(statuses.get(g.id), "status", None), "value", "UNKNOWN")
        positions = (sum(l.committed or 0 for l in lags), sum(l.log_end or 0 for l in lags))
        summaries.append((g.id, type_label(g.type), g.state, len(g.members), ",".join(sorted({l.topic for l in lags})),
                          sum(l.lag or 0 for l in lags), max(seconds) if seconds else None, status, positions))
    return summaries


def _group_errors(errors) -> list[str]:
    """The snapshot's errors that leave groups, their offsets or their lag unknown (a topic's
    configs missing does not)."""
    return [e for e in errors if not e.startswith("configs of ")]
