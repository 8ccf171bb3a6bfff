"""`streamctl check` renderers: Nagios plugin output, JSON (streamctl.check/v1), Prometheus.

Pure functions of an Evaluation. cron pays for every import, so this module imports only the
standard library and the model; prometheus_client is imported inside the Prometheus functions.
Every renderer returns text ending in a newline: write it with `sys.stdout.write`.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from streamctl.model.health import Evaluation, Finding, Metric, Severity

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Gauge

SCHEMA = "streamctl.check/v1"  # docs/check-json-schema.json
PLUGIN_NAME = "STREAMCTL"
PLUGIN_STATES = {Severity.OK: "OK", Severity.WARN: "WARNING", Severity.CRIT: "CRITICAL",
                 Severity.UNKNOWN: "UNKNOWN"}
COUNT_WORDS = {Severity.CRIT: "critical", Severity.WARN: "warning", Severity.UNKNOWN: "unknown"}
SUMMARY_LIMIT = 160  # characters of problem list on the first line, then "… and N more"
CHECK = "check"  # the component that stands for check itself when it could not run (Evaluation.failure)


def exit_code(evaluation: Evaluation) -> int:
    return evaluation.severity.exit_code


def not_evaluated(evaluation: Evaluation) -> dict[str, str]:
    """Why each component was not evaluated; `check` itself when it could not run at all."""
    failed = {CHECK: evaluation.failure} if evaluation.failure is not None else {}
    return {**evaluation.unevaluated, **failed}


def component_states(evaluation: Evaluation) -> dict[str, Severity]:
    """Worst finding per component (OK if none); an unevaluated component is at least UNKNOWN."""
    unevaluated = not_evaluated(evaluation)
    names = [*evaluation.evaluated, *unevaluated]
    names += [f.component for f in evaluation.findings]
    return {name: Severity.worst([f.severity for f in evaluation.findings if f.component == name]
                                 + ([Severity.UNKNOWN] if name in unevaluated else []))
            for name in dict.fromkeys(names)}


def summary(evaluation: Evaluation) -> str:
    """One line: counts and the worst problems' texts, or which components are OK."""
    if evaluation.failure is not None:
        return _oneline(evaluation.failure)
    problems = evaluation.problems()
    items = _collapsed(problems)
    items += [f"{name} not evaluated: {why}" for name, why in evaluation.unevaluated.items()]
    if not items and not evaluation.evaluated:
        return "no component evaluated"
    if not items:
        return f"{', '.join(evaluation.evaluated)} OK"
    counts = Counter(f.severity for f in problems)
    head = ", ".join(f"{counts[s]} {word}" for s, word in COUNT_WORDS.items() if counts[s])
    return _oneline((f"{head}: " if head else "") + _join_limited(items, SUMMARY_LIMIT))


def _collapsed(problems: Iterable[Finding]) -> list[str]:
    """One item per severity and code, worst first: `group a lags 710 records, 395 s (+21 more
    KAFKA_GROUP_LAG)`. Twenty lagging groups must not push a silent broker off the first line."""
    by_code: dict[tuple[Severity, str], list[Finding]] = {}
    for finding in problems:
        by_code.setdefault((finding.severity, finding.code), []).append(finding)
    return [found[0].text + (f" (+{len(found) - 1} more {code})" if len(found) > 1 else "")
            for (_, code), found in by_code.items()]


# ---- Nagios / Icinga ------------------------------------------------------------------------

def render_nagios(evaluation: Evaluation) -> str:
    """Monitoring-plugin output: status line with perfdata, then one line per problem."""
    first = f"{PLUGIN_NAME} {PLUGIN_STATES[evaluation.severity]}: {summary(evaluation)}"
    perf = " ".join(perfdata(m) for m in evaluation.metrics if m.perfdata)
    lines = [f"{first} | {perf}" if perf else first]
    lines += [_oneline(f"[{f.severity.value}] {_subject(f)}: {f.text}")
              for f in evaluation.problems()]
    lines += [_oneline(f"[UNKNOWN] {name} not evaluated: {why}")
              for name, why in evaluation.unevaluated.items()]
    return "\n".join(lines) + "\n"


def perfdata(metric: Metric) -> str:
    """`'label'=value[UOM];[warn];[crit];[min];[max]`, trailing empty fields dropped."""
    label = metric.name + "".join(f"_{key}:{value}" for key, value in metric.labels.items())
    label = _oneline(label).replace("=", ":").replace("'", "''")  # guidelines: no '=' in labels
    value = _num(metric.value) + metric.uom if math.isfinite(metric.value) else "U"
    floor = ":" if metric.alert_below else ""  # range "N:" alerts below N (the guidelines' syntax)
    thresholds = [_num(x) + floor if _num(x) else "" for x in (metric.warn, metric.crit)]
    fields = [value, *thresholds, _num(metric.min), _num(metric.max)]
    while fields[-1] == "":
        fields.pop()
    return f"'{label}'=" + ";".join(fields)


def _num(x: float | None) -> str:
    """Plain decimal notation (the guidelines allow [-0-9.] only): 3, 0.5, 0.0000001."""
    if x is None or not math.isfinite(x):
        return ""
    text = format(Decimal(repr(float(x))), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _subject(finding: Finding) -> str:
    return f"{finding.component} {finding.object}" if finding.object else finding.component


def _oneline(text: str) -> str:
    """A '|' would start perfdata and a newline a new output line: neither may slip into text."""
    return " ".join(text.replace("|", "/").splitlines())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _join_limited(items: list[str], limit: int) -> str:
    """Join with '; ' while the line stays under `limit`, then say how many were left out."""
    shown: list[str] = []
    for i, item in enumerate(items):
        item = _clip(item, limit)
        rest = len(items) - i - 1
        tail = f" … and {rest} more" if rest else ""
        if shown and len("; ".join([*shown, item]) + tail) > limit:
            return "; ".join(shown) + f" … and {len(items) - i} more"
        shown.append(item)
    return "; ".join(shown)


# ---- JSON -----------------------------------------------------------------------------------

def render_json(evaluation: Evaluation, now: float) -> str:
    """The `streamctl.check/v1` document (docs/check-json-schema.json)."""
    # One line: without indent the json module encodes in C (an indented document of a large
    # cluster's metrics took 20-40 ms in Python); `jq .` shows it indented.
    return json.dumps(json_document(evaluation, now), allow_nan=False, separators=(",", ":")) + "\n"


def json_document(evaluation: Evaluation, now: float) -> dict[str, Any]:
    """render_json's document, as data."""
    findings = sorted(evaluation.findings, key=lambda f: (-f.severity.rank, f.component, f.object))
    unevaluated = not_evaluated(evaluation)
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "state": evaluation.severity.value,
        "exit_code": exit_code(evaluation),
        "generated_at": datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "summary": summary(evaluation),
        "components": {
            name: {"state": state.value, "evaluated": name not in unevaluated,
                   "reason": unevaluated.get(name),
                   **({"rules_not_evaluated": rules} if (rules := evaluation.rules_unevaluated.get(name)) else {})}
            for name, state in component_states(evaluation).items()
        },
        "findings": [
            {"severity": f.severity.value, "component": f.component, "object": f.object,
             "code": f.code, "text": f.text, "value": _finite(f.value)}
            for f in findings
        ],
        "metrics": [
            {"name": m.name, "value": _finite(m.value), "labels": _labels(m),
             "uom": m.uom, "warn": _finite(m.warn), "crit": _finite(m.crit), "min": _finite(m.min),
             "max": _finite(m.max)}
            for m in evaluation.metrics if not m.exporter_alias
        ],
    }
    return document


def _finite(x: float | None) -> float | None:
    """JSON has no NaN or Infinity: they become null."""
    return x if x is not None and math.isfinite(x) else None


# ---- Prometheus (node_exporter textfile collector) -------------------------------------------

CONTEXT_LABEL = "context"  # on every series check writes, so several contexts' files never collide


def render_prometheus(evaluation: Evaluation, now: float, context: str | None = None) -> str:
    """One context's series; each with a `context` label when `context` is given (check always does)."""
    return render_prometheus_contexts({context or "": evaluation}, now, labelled=context is not None)


def render_prometheus_contexts(evaluations: dict[str, Evaluation], now: float, labelled: bool = True) -> str:
    """Several contexts' series in one exposition, told apart by their `context` label."""
    from prometheus_client import generate_latest

    return generate_latest(_registry(evaluations, now, labelled)).decode()


def write_prometheus_textfile(evaluation: Evaluation, path: str | os.PathLike[str], now: float,
                              context: str | None = None) -> None:
    """One context's series into `path` (write_prometheus_text)."""
    write_prometheus_text(render_prometheus(evaluation, now, context), path)


def write_prometheus_text(text: str, path: str | os.PathLike[str]) -> None:
    """Atomic (streamctl/atomic.py): written to a hidden `.<name>.*.tmp` beside it, then renamed
    over `path`; readable by node_exporter's user. The collector reads only `*.prom` files, so
    it never sees the half-written temporary one."""
    from streamctl.atomic import write_atomic

    write_atomic(path, text, mode=0o644)


def _registry(evaluations: dict[str, Evaluation], now: float, labelled: bool) -> CollectorRegistry:
    from prometheus_client import CollectorRegistry

    registry = CollectorRegistry()
    gauges = _Gauges(registry, labelled)
    state = gauges.get("streamctl_check_state", "Check state per component: 0 OK, 1 WARN, 2 CRIT, 3 UNKNOWN",
                       ["component"])
    up = gauges.get("streamctl_check_up", "1 if the component was evaluated, 0 if it could not be", ["component"])
    counts = gauges.get("streamctl_findings", "Findings per component and severity", ["component", "severity"])
    reasons = gauges.get("streamctl_check_unknown_info",
                         "1 per UNKNOWN component, its reason in the `reason` label (one line, clipped)",
                         ["component", "reason"])
    stamp = gauges.get("streamctl_check_timestamp_seconds", "When the check ran (unix seconds)", [])
    for context, evaluation in evaluations.items():
        per_component = Counter((f.component, f.severity) for f in evaluation.findings)
        unevaluated = not_evaluated(evaluation)
        for name, severity in component_states(evaluation).items():
            gauges.set(state, context, severity.exit_code, component=name)
            if severity is Severity.UNKNOWN:
                gauges.set(reasons, context, 1, component=name,
                           reason=_unknown_reason(evaluation, name, unevaluated))
            gauges.set(up, context, 0 if name in unevaluated else 1, component=name)
            for s in Severity:
                gauges.set(counts, context, per_component[name, s], component=name, severity=s.value)
        gauges.set(stamp, context, now)
    for context, evaluation in evaluations.items():
        for name, family in _families(evaluation.metrics).items():
            exposed = name if family[0].exporter_alias else f"streamctl_{name}"
            help_text = next((m.help for m in family if m.help), name)
            gauge = gauges.get(exposed, help_text, sorted(family[0].labels))
            for m in family:
                gauges.set(gauge, context, m.value, **_labels(m))
    return registry


class _Gauges:
    """The registry's gauges by exposed name, each with a `context` label when `labelled`."""

    def __init__(self, registry: CollectorRegistry, labelled: bool) -> None:
        self.registry, self.labelled = registry, labelled
        self.by_name: dict[str, tuple[Gauge, list[str]]] = {}

    def get(self, name: str, help_text: str, keys: list[str]) -> Gauge:
        from prometheus_client import Gauge

        names = [*keys, CONTEXT_LABEL] if self.labelled else keys
        gauge, known = self.by_name.get(name) or (None, names)
        if known != names:
            raise ValueError(f"metric {name!r}: every series needs the same label keys, got {known} vs {names}")
        if gauge is None:
            gauge = Gauge(name, help_text, names, registry=self.registry)
            self.by_name[name] = gauge, names
        return gauge

    def set(self, gauge: Gauge, context: str, value: float, **labels: str) -> None:
        if self.labelled:
            labels = {**labels, CONTEXT_LABEL: context}
        (gauge.labels(**labels) if labels else gauge).set(value)


REASON_LIMIT = 200  # characters of a reason label: alerts show it, it is not a log


def _unknown_reason(evaluation: Evaluation, component: str, unevaluated: dict[str, str]) -> str:
    """Why `component` is UNKNOWN: why it was not evaluated, else its UNKNOWN findings' texts."""
    why = unevaluated.get(component)
    if why is None:
        why = "; ".join(f.text for f in evaluation.findings
                        if f.component == component and f.severity is Severity.UNKNOWN)
    return _clip(_oneline(why), REASON_LIMIT)


def _labels(metric: Metric) -> dict[str, str]:
    return {key: str(value) for key, value in metric.labels.items()}


def _families(metrics: list[Metric]) -> dict[str, list[Metric]]:
    """Metrics grouped by name; every series of a name must have the same label keys, once each."""
    families: dict[str, list[Metric]] = {}
    for m in metrics:
        families.setdefault(m.name, []).append(m)
    for name, family in families.items():
        key_sets = sorted({tuple(sorted(m.labels)) for m in family})
        if len(key_sets) > 1:
            raise ValueError(f"metric {name!r}: every series needs the same label keys, got "
                             + " vs ".join(str(list(keys)) for keys in key_sets))
        series = Counter(tuple(sorted(m.labels.items())) for m in family)
        duplicates = [dict(labels) for labels, n in series.items() if n > 1]
        if duplicates:
            raise ValueError(f"metric {name!r}: duplicate series {duplicates}")
    return families
