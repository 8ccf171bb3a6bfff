"""`check --contexts` / `--all-contexts` renderers: several contexts' Evaluations in one answer.

Nagios: one status line whose state is the worst context's, naming the contexts worst first
(`STREAMCTL CRITICAL: prod CRITICAL: ...; dr UNKNOWN: ...; staging OK`), perfdata labels
prefixed by their context (`'prod:kafka_brokers_online'=3`), then each context's problem lines
prefixed by it. JSON: `streamctl.check-contexts/v1`, the overall state and, worst first, one
`{"context": NAME, "check": DOCUMENT}` per context, DOCUMENT the single check's `streamctl.check/v1`. Prometheus:
render.render_prometheus_contexts (every series with a `context` label).
Pure functions, standard library and the model only, as render.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from streamctl.check.render import PLUGIN_NAME, PLUGIN_STATES, json_document, perfdata, render_nagios, summary
from streamctl.model.health import Evaluation, Severity

SCHEMA = "streamctl.check-contexts/v1"  # docs/monitoring.md, "Several contexts in one check"


def overall(evaluations: dict[str, Evaluation]) -> Severity:
    """The worst context's state: check's exit code with several contexts."""
    return Severity.worst([evaluation.severity for evaluation in evaluations.values()])


def worst_first(evaluations: dict[str, Evaluation]) -> list[tuple[str, Evaluation]]:
    """The contexts, the worst first; equally bad ones in the order asked."""
    return sorted(evaluations.items(), key=lambda item: -item[1].severity.rank)


def render_nagios_contexts(evaluations: dict[str, Evaluation]) -> str:
    ranked = worst_first(evaluations)
    items = [f"{name} {PLUGIN_STATES[ev.severity]}: {summary(ev)}"
             for name, ev in ranked if ev.severity is not Severity.OK]
    fine = [name for name, ev in ranked if ev.severity is Severity.OK]
    items += [f"{', '.join(fine)} OK"] if fine else []
    first = f"{PLUGIN_NAME} {PLUGIN_STATES[overall(evaluations)]}: {'; '.join(items)}"
    perf = " ".join(perfdata(replace(m, name=f"{name}:{m.name}"))
                    for name, ev in ranked for m in ev.metrics if m.perfdata)
    lines = [f"{first} | {perf}" if perf else first]
    for name, ev in ranked:
        for line in render_nagios(ev).splitlines()[1:]:  # "[CRIT] kafka ...": its problems
            severity, _, rest = line.partition("] ")
            lines.append(f"{severity}] {name}: {rest}")
    return "\n".join(lines) + "\n"


def render_json_contexts(evaluations: dict[str, Evaluation], now: float) -> str:
    state = overall(evaluations)
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "state": state.value,
        "exit_code": state.exit_code,
        "generated_at": datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "contexts": [{"context": name, "check": json_document(ev, now)} for name, ev in worst_first(evaluations)],
    }
    return json.dumps(document, allow_nan=False, separators=(",", ":")) + "\n"
