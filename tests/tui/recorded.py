"""A dashboard source replaying snapshots captured from the real sandbox (tests/fixtures/kafka)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from streamctl.config import Thresholds
from streamctl.health import kafka_health
from streamctl.model import Evaluation
from streamctl.serialize import snapshot_from_dict

FIXTURES = Path(__file__).parent.parent / "fixtures" / "kafka"


@dataclass
class GroupStatus:
    status: object
    detail: str = ""


@dataclass
class Status:
    value: str


@dataclass
class RecordedSource:
    fixture: str = "healthy"
    context_name: str = "recorded"
    read_only: bool = False
    statuses: dict = field(default_factory=dict)

    def __post_init__(self):
        self.snapshot = snapshot_from_dict(json.loads((FIXTURES / f"{self.fixture}.json").read_text()))

    def kafka_snapshot(self):
        return self.snapshot

    def group_statuses(self, snap):
        return {g.id: GroupStatus(Status(self.statuses.get(g.id, "OK"))) for g in snap.groups}

    def health(self) -> Evaluation:
        findings, metrics = kafka_health(self.snapshot, Thresholds(), expected_brokers=3)
        return Evaluation(findings=findings, metrics=metrics, evaluated=["kafka"])

    def context_names(self) -> list[str]:
        return [self.context_name]
