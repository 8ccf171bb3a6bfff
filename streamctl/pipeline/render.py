"""The pipeline map as JSON, a table, Graphviz dot and Mermaid."""

from __future__ import annotations

import json
import time

from streamctl.model.pipeline import NEVER, SCREENS, PipelineMap, eta_text
from streamctl.pipeline.health import hop_name


def as_dict(pipeline: PipelineMap) -> dict:
    def rate(value):
        return None if value is None else round(value, 3)

    hops = [(hop_name(pipeline, h), h) for h in pipeline.hops]
    return {
        "window_seconds": round(pipeline.window_seconds, 3),
        "before_source": pipeline.before_source,
        "before_at": None if pipeline.before_at is None else round(pipeline.before_at, 3),
        # the earlier reading's age when the later one was taken: the window the rates are over
        "before_age_seconds": round(pipeline.window_seconds, 3),
        "nodes": [{"id": n.id, "kind": n.kind, "name": n.name, "state": n.state, "screen": SCREENS[n.kind]}
                  for n in pipeline.nodes],
        "hops": [{"name": name, "source": h.source, "target": h.target, "topic": h.topic,
                  "direction": "out" if h.reader else "in", "rate_in": rate(h.rate_in), "rate_out": rate(h.rate_out),
                  "backlog": h.backlog, "lag_seconds": h.lag_seconds,
                  "eta_seconds": None if h.eta_seconds in (None, NEVER) else round(h.eta_seconds, 1),
                  "eta": eta_text(h.eta_seconds), "trend": h.trend, "severity": h.severity.value, "note": h.note,
                  "event_time_lag_seconds": None if h.event_time_lag_seconds is None
                  else round(h.event_time_lag_seconds, 1)}
                 for name, h in hops],
        "rates_missing": [f"{name} ({direction})" for name, h in hops for direction, value in
                          (("in", h.rate_in), ("out", h.rate_out)) if value is None and (direction == "in" or h.reader)],
        "errors": list(pipeline.errors),
    }


def heading(window_seconds: float, before_source: str, before_at: float | None) -> str:
    """`pipeline (rates over 47 s, from the history reading at 12:03:10)`"""
    source = f", from the history reading at {time.strftime('%H:%M:%S', time.localtime(before_at))}" \
        if before_source == "history" and before_at is not None else ""
    return f"pipeline (rates over {window_seconds:.0f} s{source})"


def notes(data: dict) -> None:
    """Under the map: the rates a history reading could not give, and the systems not read."""
    from streamctl.console import out

    if data["before_source"] == "history" and data["rates_missing"]:
        out.print(f"no rate without a second reading (--window gives them): {', '.join(data['rates_missing'])}",
                  highlight=False)
    for error in data["errors"]:
        out.print(f"[yellow]unread:[/] {error}", highlight=False)


def table(data: dict) -> None:
    from streamctl.console import simple_table

    def figure(value, unit=""):
        return None if value is None else f"{value:.1f}{unit}" if isinstance(value, float) else f"{value}{unit}"

    rows = [[h["name"], h["severity"], figure(h["rate_in"]), figure(h["rate_out"]), h["backlog"],
             figure(h["lag_seconds"]), h["trend"] if h["direction"] == "out" else None,
             h["eta"] if h["direction"] == "out" else None, figure(h["event_time_lag_seconds"])]
            for h in data["hops"]]
    simple_table(heading(data["window_seconds"], data["before_source"], data["before_at"]),
                 ["hop", "health", "in/s", "out/s", "backlog", "lag (s)", "trend", "drains", "event-time lag (s)"],
                 rows, right={"in/s", "out/s", "backlog", "lag (s)", "event-time lag (s)"})
    notes(data)


def tree(pipeline: PipelineMap) -> None:
    """The flow from each source, hops coloured by health (plain text when piped)."""
    from streamctl.console import out
    from streamctl.pipeline.flow import rich_tree

    out.print(heading(pipeline.window_seconds, pipeline.before_source, pipeline.before_at), highlight=False)
    out.print(rich_tree(pipeline), highlight=False)
    notes(as_dict(pipeline))


def _edge_label(h: dict) -> str:
    if h["direction"] == "in":
        return "" if h["rate_in"] is None else f"{h['rate_in']:.1f}/s"
    if h["backlog"] is None:
        return ""
    return f"backlog {h['backlog']}, " + ("drained" if h["eta"] == "drained" else f"drains {h['eta']}")


COLOURS = {"OK": "darkgreen", "WARN": "orange", "CRIT": "red", "UNKNOWN": "grey"}


def dot(data: dict) -> str:
    lines = ["digraph pipeline {", "  rankdir=LR;"]
    for n in data["nodes"]:
        shape = "box" if n["kind"] == "topic" else "ellipse"
        label = n["name"] if n["kind"] == "topic" else f"{n['kind']} {n['name']}"
        lines.append(f"  {json.dumps(n['id'])} [label={json.dumps(label)}, shape={shape}];")
    for h in data["hops"]:
        lines.append(f"  {json.dumps(h['source'])} -> {json.dumps(h['target'])} "
                     f"[label={json.dumps(_edge_label(h))}, color={COLOURS[h['severity']]}];")
    return "\n".join([*lines, "}"]) + "\n"


def mermaid(data: dict) -> str:
    ids = {n["id"]: f"n{i}" for i, n in enumerate(data["nodes"])}
    lines = ["flowchart LR"]
    for n in data["nodes"]:
        label = (n["name"] if n["kind"] == "topic" else f"{n['kind']} {n['name']}").replace('"', "'")
        lines.append(f'  {ids[n["id"]]}[["{label}"]]' if n["kind"] == "topic" else f'  {ids[n["id"]]}("{label}")')
    for i, h in enumerate(data["hops"]):
        label = _edge_label(h).replace('"', "'")
        arrow = f' -->|"{label}"| ' if label else " --> "
        lines.append(f"  {ids[h['source']]}{arrow}{ids[h['target']]}")
        if h["severity"] != "OK":
            lines.append(f"  linkStyle {i} stroke:{COLOURS[h['severity']]}")
    return "\n".join(lines) + "\n"

