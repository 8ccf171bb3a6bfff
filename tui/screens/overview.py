"""Overview: a health card per component, the pipeline's flow from source to sink (each hop
coloured by its health) and the current findings, worst first. Enter or a click on a card, or
Enter on a node of the flow, opens its screen.

The flow is read in a worker of its own after each health reading, so the cards never wait
for it; a flow that cannot be read says so in its panel, the cards stand."""

from __future__ import annotations

import sys

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Tree

from streamctl import systems
from streamctl.check.render import component_states
from streamctl.model.health import Severity
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.filter_table import FilterTable
from streamctl.tui.widgets.health_card import HealthCard
from streamctl.tui.widgets.pipeline_flow import PipelineFlow

# One card per system that declares one (the registry, streamctl/systems.py), in its order.
COMPONENTS = tuple(card.component for card in systems.cards())
OPTIONAL = {card.component for card in systems.cards() if card.optional}  # a card only while configured
FLOW_NODES = 60  # drawn at most, worst sources first: redrawn each refresh, on the event loop
CARD_SCREENS = {card.component: card.screen for card in systems.cards()}
SEVERITY_STYLE = {"CRIT": "bold red", "WARN": "yellow", "UNKNOWN": "magenta", "OK": "green"}
# Metrics shown on each card: (metric name, label)
FIGURES = {card.component: list(card.figures) for card in systems.cards()}


class OverviewScreen(DataScreen):
    heading = "Overview"

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="cards"):
            for component in COMPONENTS:
                card = HealthCard(component, id=f"card-{component}")
                card.display = component not in OPTIONAL
                yield card
        yield PipelineFlow(id="flow")
        # Worst first: sorted by severity rank, descending (ties keep the findings' order).
        yield FilterTable(["severity", "component", "object", "finding"], sort_column=0, descending=True,
                          widths=[8, 9, 22, 200], table_id="findings")

    def on_mount(self) -> None:
        self.query_one("#findings").border_title = "Findings"
        self.query_one(PipelineFlow).border_title = "Pipeline"
        self.query_one(PipelineFlow).show([], "reading the pipeline…")
        for card in self.query(HealthCard):
            card.show("loading", "…")
        super().on_mount()
        if self.app.trace:
            self.call_after_refresh(self.app.trace.write, "overview_first_frame")

    def fetch(self):
        evaluation = self.source.health()
        return evaluation, _finding_rows(evaluation), {"connect": _connect_figures(evaluation)}

    def show(self, data) -> None:
        evaluation, rows, figures = data
        self.app.note_context_state(self.source.context_name, evaluation.severity)
        states = component_states(evaluation)
        for component in COMPONENTS:
            card = self.query_one(f"#card-{component}", HealthCard)
            card.display = component in states or component not in OPTIONAL
            if component not in states:
                card.show("not configured", "")
                continue
            reason = evaluation.unevaluated.get(component)
            card.show(states[component].value,
                      reason or figures.get(component) or _figures(component, evaluation.metrics))
        self.query_one(FilterTable).set_rows(rows)
        if not self._fetching("flow"):
            self._fetch_flow()
        if self.app.trace:
            self.call_after_refresh(self.app.trace.write, "overview_painted",
                                    pyspark_imported="pyspark" in sys.modules)

    @on(HealthCard.Opened)
    def _open_card(self, event: HealthCard.Opened) -> None:
        self.app.switch_mode(CARD_SCREENS[event.card.component])

    @work(thread=True, exclusive=True, exit_on_error=False, group="flow")
    def _fetch_flow(self) -> None:
        from streamctl.errors import StreamctlError
        from streamctl.pipeline.flow import branches, worst_first

        try:
            pipeline = self.source.pipeline_map()
        except StreamctlError as exc:
            self.post_message(PipelineFlow.Loaded([], f"pipeline unread: {exc}"))
            return
        except Exception as exc:  # noqa: BLE001 - a client library's own error: shown in the panel, never fatal
            self.post_message(PipelineFlow.Loaded([], f"pipeline unread: {type(exc).__name__}: {exc}"))
            return
        window = f"rates over {pipeline.window_seconds:.0f} s" if pipeline.window_seconds else \
            "rates after the next refresh"
        note = f"partial: {pipeline.errors[0]}" if pipeline.errors else window
        kept, left_out = worst_first(branches(pipeline), FLOW_NODES)
        if left_out:
            note = f"{left_out} more nodes on the Pipeline screen (0) · {note}"
        self.post_message(PipelineFlow.Loaded(kept, note))

    @on(PipelineFlow.Loaded)
    def _flow_loaded(self, message: PipelineFlow.Loaded) -> None:
        self.query_one(PipelineFlow).show(message.branches, message.note)

    @on(Tree.NodeSelected, "#flow")
    def _open_node(self, event: Tree.NodeSelected) -> None:
        if event.node.data:
            self.app.switch_mode(event.node.data)


def _finding_rows(evaluation) -> list:
    """(key, cells, sort values) per problem, then per component not evaluated; one OK row if
    none. The key (component, object, code) stays the same across refreshes while the finding
    lasts, so a refresh updates its cells in place."""
    found = [(f.severity, f.component, f.object, f.code, f.text) for f in evaluation.problems()]
    found += [(Severity.UNKNOWN, name, "-", "NOT_EVALUATED", f"not evaluated: {why}")
              for name, why in evaluation.unevaluated.items()]
    rows, seen = [], set()
    for severity, component, obj, code, text in found or [(Severity.OK, "all", "-", "OK", "no problems found")]:
        key = f"{component} {obj} {code}"
        while key in seen:  # the same finding twice: still two rows
            key += "'"
        seen.add(key)
        rows.append((key, [Text(severity.value, style=SEVERITY_STYLE[severity.value]), component, obj, text],
                     [severity.rank, component, obj, text]))
    return rows


def _figures(component: str, metrics) -> str:
    values = {m.name: m.value for m in metrics if not m.labels}
    parts = [f"{label} {_number(values[name])}" for name, label in FIGURES.get(component, []) if name in values]
    return "\n".join(parts) or "evaluated"


def _connect_figures(evaluation) -> str | None:
    """'2 connectors', '2/2 tasks running' (and the failed ones) from the metrics; None while no
    worker answered (the metrics' own figures then)."""
    values = {m.name: m.value for m in evaluation.metrics if m.name.startswith("connect_") and not m.labels}
    if not values.get("connect_up"):
        return None
    failed = int(values.get("connect_tasks_failed", 0))
    lines = [_count(int(values.get("connect_connectors", 0)), "connector"),
             f"{int(values.get('connect_tasks_running', 0))}/{int(values.get('connect_tasks', 0))} tasks running"]
    return "\n".join(lines + ([f"{_count(failed, 'task')} FAILED"] if failed else []))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
