"""The Fleet screen's rows, built from a real `check --all-contexts -o json` answer (captured from
the ZooKeeper-mode and KRaft sandboxes, a closed port and a port that never answers:
tests/fixtures/capture_fleet.py), and the read that hands each context's answer over as it comes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from streamctl.dashboard.fleet import (
    COMPONENTS,
    NOT_CONFIGURED,
    PENDING,
    FleetReading,
    age_text,
    fleet_columns,
    fleet_row,
    read_fleet,
)
from streamctl.model.health import Evaluation, Finding, Metric, Severity
from tests.check_reasons import is_service_condition
from tests.integration.kafka_helpers import black_hole

CAPTURED = Path(__file__).parents[2] / "fixtures" / "check" / "fleet-contexts.json"
COLUMN = {name: index for index, name in enumerate(fleet_columns())}
NOW = 1000.0


def evaluation_of(document: dict) -> Evaluation:
    """The Evaluation a `streamctl.check/v1` document was rendered from (check/render.py json_document)."""
    components = document["components"]
    return Evaluation(
        findings=[Finding(Severity(f["severity"]), f["component"], f["object"], f["code"], f["text"], f["value"])
                  for f in document["findings"]],
        metrics=[Metric(m["name"], math.nan if m["value"] is None else m["value"], labels=m["labels"])
                 for m in document["metrics"]],
        evaluated=[name for name, c in components.items() if c["evaluated"]],
        unevaluated={name: c["reason"] for name, c in components.items() if not c["evaluated"] and name != "check"},
        failure=components["check"]["reason"] if "check" in components else None)


@pytest.fixture(scope="module")
def captured() -> dict[str, Evaluation]:
    document = json.loads(CAPTURED.read_text())
    return {entry["context"]: evaluation_of(entry["check"]) for entry in document["contexts"]}


def cells(name: str, evaluation: Evaluation, current: bool = False, age: float = 5.0) -> dict[str, str]:
    _, row, _ = fleet_row(name, FleetReading(evaluation, NOW - age), current, NOW)
    return dict(zip(fleet_columns(), row))


def test_the_captured_answer_rebuilds_to_the_states_check_reported(captured):
    document = json.loads(CAPTURED.read_text())
    assert {entry["context"]: captured[entry["context"]].severity.value for entry in document["contexts"]} == \
        {entry["context"]: entry["check"]["state"] for entry in document["contexts"]}


def test_a_full_context_shows_each_systems_state_its_worst_finding_and_lag(captured):
    zk = cells("zk", captured["zk"], current=True)
    assert zk[""] == "*" and zk["context"] == "zk" and zk["state"] == captured["zk"].severity.value
    assert [zk[c] for c in ("kafka", "zookeeper", "flume", "spark", "connect")] == ["OK", "WARN", "OK", "CRIT", "OK"]
    worst = captured["zk"].problems()[0]
    assert worst.severity is Severity.CRIT and zk["worst finding"] == f"{worst.code} {worst.text}"
    assert zk["max lag"] == "0" and zk["last read"] == "5 s"


def test_a_kafka_only_context_shows_the_other_systems_as_not_configured(captured):
    kraft = cells("kraft", captured["kraft"])
    assert kraft[""] == "" and kraft["state"] == "OK" and kraft["kafka"] == "OK"
    assert {kraft[c] for c in COMPONENTS if c != "kafka"} == {NOT_CONFIGURED}
    assert kraft["worst finding"] == ""


def test_a_dead_context_names_its_connection(captured):
    dead = cells("dead", captured["dead"])
    assert dead["state"] in ("CRIT", "UNKNOWN") and dead["kafka"] == dead["state"]
    assert is_service_condition(dead["worst finding"]), dead
    assert dead["max lag"] == ""  # no lag read: nothing shown rather than 0


def test_a_context_not_evaluated_is_unknown_with_its_reason(captured):
    silent = cells("silent", captured["silent"])
    reason = captured["silent"].unevaluated["kafka"]
    assert silent["state"] == silent["kafka"] == "UNKNOWN"
    assert silent["worst finding"] == f"kafka not evaluated: {reason}" and is_service_condition(reason)


def test_a_context_whose_config_fails_shows_why():
    failed = cells("locked", Evaluation(failure="context 'locked': ${FLEET_UNSET_PASSWORD} is not set"))
    assert failed["state"] == "UNKNOWN" and "FLEET_UNSET_PASSWORD" in failed["worst finding"]


def test_a_context_not_read_yet_says_so_and_sorts_before_the_others(captured):
    key, row, sort_values = fleet_row("later", None, False, NOW)
    assert key == "later" and row[COLUMN["state"]] == PENDING
    _, _, read = fleet_row("kraft", FleetReading(captured["kraft"], NOW), False, NOW)
    assert sort_values[COLUMN["state"]] < read[COLUMN["state"]]


def test_worse_states_sort_higher(captured):
    ranks = {name: fleet_row(name, FleetReading(ev, NOW), False, NOW)[2][COLUMN["state"]]
             for name, ev in captured.items()}
    assert ranks["zk"] > ranks["silent"] and ranks["kraft"] < ranks["silent"]


def test_ages_read_at_a_glance():
    assert [age_text(s) for s in (0.4, 59, 150, 7300)] == ["0 s", "59 s", "2 min", "2 h"]


def test_each_context_is_answered_once_as_it_comes(tmp_path, monkeypatch):
    """A context whose config cannot resolve answers at once; one whose Kafka never answers, at
    the deadline: both handed over, each once, in that order."""
    monkeypatch.delenv("FLEET_UNSET_PASSWORD", raising=False)
    with black_hole() as silent:
        path = tmp_path / "config.yaml"
        path.write_text("contexts:\n  locked:\n    kafka:\n      bootstrap_servers: h:9092\n      properties:\n"
                        "        sasl.password: ${FLEET_UNSET_PASSWORD}\n"
                        f"  silent:\n    kafka: {{bootstrap_servers: '{silent}', timeout: 60}}\n")
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        answers: list[tuple[str, Evaluation]] = []
        read_fleet(path, lambda name, evaluation: answers.append((name, evaluation)), timeout=3)
    assert [name for name, _ in answers] == ["locked", "silent"]
    locked, silent_answer = answers[0][1], answers[1][1]
    assert "FLEET_UNSET_PASSWORD" in (locked.failure or "")
    assert silent_answer.severity is Severity.UNKNOWN
    assert is_service_condition(silent_answer.unevaluated["kafka"]), silent_answer.unevaluated
