"""Findings and metrics: what every system's health rules produce, `check` renders and the
Overview shows (no I/O, no UI)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from streamctl.errors import ExitCode


class NotEvaluated(Exception):
    """A component could not be judged (deadline reached): UNKNOWN, with this reason."""


class Severity(str, Enum):
    OK = "OK"
    WARN = "WARN"
    CRIT = "CRIT"
    UNKNOWN = "UNKNOWN"

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode[self.value]

    @property
    def rank(self) -> int:
        """Worst-of order, as monitoring plugins combine states: CRIT > WARN > UNKNOWN > OK."""
        return {"OK": 0, "UNKNOWN": 1, "WARN": 2, "CRIT": 3}[self.value]

    @staticmethod
    def worst(severities: Iterable[Severity]) -> Severity:
        return max(severities, key=lambda s: s.rank, default=Severity.OK)


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    component: str  # kafka | zookeeper | flume | spark
    object: str  # what it is about: "broker 2", "topic t/3", "group g"
    code: str  # stable machine code: KAFKA_URP, KAFKA_GROUP_LAG, ...
    text: str  # one line for people
    value: float | None = None


@dataclass(frozen=True, slots=True)
class Metric:
    """A number for perfdata and Prometheus. `labels` become Prometheus labels."""

    name: str  # snake_case, e.g. "kafka_under_replicated_partitions"
    value: float
    help: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    uom: str = ""  # Nagios unit: "", "s", "%", "c", "B"
    warn: float | None = None
    crit: float | None = None
    min: float | None = None
    max: float | None = None
    perfdata: bool = True  # also in the Nagios perfdata (per-object series usually are not)
    alert_below: bool = False  # thresholds are floors (alert when value < warn/crit), e.g. brokers
    exporter_alias: bool = False  # a series under another exporter's name (kafka_exporter's): Prometheus
    #                               only, exposed as `name` itself (no streamctl_ prefix), never in JSON


@dataclass
class Evaluation:
    """What `check` and the dashboard's Overview show: findings and metrics per component."""

    findings: list[Finding] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)
    evaluated: list[str] = field(default_factory=list)  # components that answered in time
    unevaluated: dict[str, str] = field(default_factory=dict)  # component -> why not
    # component -> {rule code: why that rule was not evaluated} (the component itself was)
    rules_unevaluated: dict[str, dict[str, str]] = field(default_factory=dict)
    failure: str | None = None  # why nothing could be evaluated (the config, the command line)

    @property
    def severity(self) -> Severity:
        if self.failure is not None or (not self.evaluated and not self.unevaluated):
            return Severity.UNKNOWN  # nothing was judged: never report that as OK
        states = [f.severity for f in self.findings]
        states += [Severity.UNKNOWN for _ in self.unevaluated]
        return Severity.worst(states)

    def problems(self) -> list[Finding]:
        """Findings that are not OK, worst first."""
        bad = [f for f in self.findings if f.severity is not Severity.OK]
        return sorted(bad, key=lambda f: (-f.severity.rank, f.component, f.object))
