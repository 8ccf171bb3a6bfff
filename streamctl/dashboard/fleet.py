"""The Fleet screen's data, without any UI: every context of the config evaluated at once by
`check --all-contexts`' own evaluate_contexts (check/contexts.py), and one table row per context.

A read hands each context's Evaluation over as soon as it has one, so a dead context (UNKNOWN
at its deadline) never holds back the rows of the others; FLEET_DEADLINE bounds the whole read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from streamctl import systems
from streamctl.check.render import component_states
from streamctl.model.health import Evaluation, Severity
from streamctl.times import short_duration

FLEET_EVERY = 4  # the Fleet screen re-reads every context every FLEET_EVERY refresh intervals (--refresh)
FLEET_DEADLINE = 15.0  # seconds each context's evaluation may take (as the Overview's health reading)
# The components a row shows, in `check`'s order: those evaluated by default (not the opt-in ones).
COMPONENTS = tuple(name for name in systems.collectors() if name not in systems.opt_in_collectors())
NOT_CONFIGURED = "-"
PENDING = "reading…"

Answer = Callable[[str, Evaluation], None]


@dataclass(frozen=True, slots=True)
class FleetReading:
    """One context's newest answer and when it arrived (time.monotonic())."""

    evaluation: Evaluation
    read_at: float


def read_fleet(config_path: Path | None, on_answer: Answer, timeout: float = FLEET_DEADLINE) -> None:
    """Evaluate every context of the config concurrently, each within `timeout` seconds; call
    `on_answer(name, evaluation)` once per context (from a worker thread), as each answers."""
    from streamctl.check.contexts import evaluate_contexts
    from streamctl.config import load_config

    config = load_config(config_path)
    names = list(config.contexts)
    answered: set[str] = set()
    lock = threading.Lock()

    def answer(name: str, evaluation: Evaluation) -> None:
        with lock:
            if name in answered:
                return
            answered.add(name)
        on_answer(name, evaluation)

    # The contexts past the deadline come back in the result without a call: answer them here.
    for name, evaluation in evaluate_contexts(config, names, None, timeout, on_answer=answer).items():
        answer(name, evaluation)


def fleet_columns() -> list[str]:
    return ["", "context", "state", *COMPONENTS, "worst finding", "max lag", "last read"]


def fleet_row(name: str, reading: FleetReading | None, current: bool, now: float) -> tuple[str, list, list]:
    """(key, cells, sort values) of a context's row; `reading` None while its first answer is due."""
    marker = "*" if current else ""
    if reading is None:
        cells = [marker, name, PENDING, *[""] * len(COMPONENTS), "", "", ""]
        return name, cells, [marker, name, -1, *[""] * len(COMPONENTS), "", -1, None]
    evaluation = reading.evaluation
    states = component_states(evaluation)
    system_states = [states[c].value if c in states else NOT_CONFIGURED for c in COMPONENTS]
    severity = evaluation.severity
    lag_records, lag_text = max_lag(evaluation)
    age = max(0.0, now - reading.read_at)
    cells = [marker, name, severity.value, *system_states, worst_finding(evaluation), lag_text, age_text(age)]
    return name, cells, [marker, name, severity.rank, *system_states, cells[-3], lag_records, age]


def worst_finding(evaluation: Evaluation) -> str:
    """The worst problem (code and text), else why a component was not evaluated, else ''."""
    if evaluation.failure is not None:
        return evaluation.failure
    problems = evaluation.problems()
    worst = problems[0] if problems else None
    if evaluation.unevaluated and (worst is None or worst.severity.rank <= Severity.UNKNOWN.rank):
        component, why = next(iter(evaluation.unevaluated.items()))
        return f"{component} not evaluated: {why}"
    return f"{worst.code} {worst.text}" if worst else ""


def max_lag(evaluation: Evaluation) -> tuple[float, str]:
    """The largest consumer-group lag (records and time) as the kafka collector measured it."""
    figures = {m.name: m.value for m in evaluation.metrics if not m.labels}
    records = figures.get("kafka_max_group_lag_records")
    if records is None:
        return -1, ""
    seconds = figures.get("kafka_max_group_lag_seconds")
    text = f"{records:,.0f}" + (f" · {age_text(seconds)}" if seconds else "")
    return records, text


def age_text(seconds: float) -> str:
    """12 s, 4 min, 2 h: how long ago, as a glance needs it."""
    return short_duration(seconds)
