"""Several contexts in one check (`--contexts`, `--all-contexts`): choosing them and rendering
their Evaluations; and the series under kafka_exporter's names. Hand-built inputs, no services."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from prometheus_client.parser import text_string_to_metric_families

from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.shared_child import SharedChildKafka
from streamctl.check import contexts as check_contexts
from streamctl.check.contexts import chosen_contexts, evaluate_contexts
from streamctl.check.render import render_json, render_prometheus, render_prometheus_contexts
from streamctl.check.render_contexts import render_json_contexts, render_nagios_contexts
from streamctl.config import load_config
from streamctl.config.schema import Config
from streamctl.errors import UsageError
from streamctl.kafka.health import kafka_exporter_lag
from streamctl.model.health import Evaluation, Finding, Metric, Severity
from streamctl.model.kafka import PartitionLag
from tests.check_outputs import schema_errors

NOW = 1714564800.0
BROKERS = Metric("kafka_brokers", 3, "Brokers", min=0)
LAG = Metric("kafka_group_lag_records", 5, "Records behind", labels={"group": "g"}, perfdata=False)
OK = Evaluation(findings=[Finding(Severity.OK, "kafka", "cluster", "KAFKA_OK", "fine")], metrics=[BROKERS, LAG],
                evaluated=["kafka"])
CRIT = Evaluation(findings=[Finding(Severity.CRIT, "kafka", "broker 2", "KAFKA_BROKER_DOWN", "broker 2 down")],
                  metrics=[BROKERS, LAG], evaluated=["kafka"])
DEAD = Evaluation(unevaluated={"kafka": "127.0.0.1:9 refused the connection"})
FLEET = {"staging": OK, "dr": DEAD, "prod": CRIT}


def series(text: str) -> list[tuple[str, dict[str, str]]]:
    return [(s.name, s.labels) for family in text_string_to_metric_families(text) for s in family.samples]


def test_nagios_states_the_worst_context_first_and_prefixes_perfdata_and_problems():
    text = render_nagios_contexts(FLEET)
    first, *problems = text.splitlines()
    status, _, perf = first.partition(" | ")
    assert status == ("STREAMCTL CRITICAL: prod CRITICAL: 1 critical: broker 2 down; "
                      "dr UNKNOWN: kafka not evaluated: 127.0.0.1:9 refused the connection; staging OK")
    assert perf.split() == ["'prod:kafka_brokers'=3;;;0", "'staging:kafka_brokers'=3;;;0"]
    assert problems == ["[CRIT] prod: kafka broker 2: broker 2 down",
                        "[UNKNOWN] dr: kafka not evaluated: 127.0.0.1:9 refused the connection"]


def test_nagios_of_healthy_contexts_names_them_all_ok():
    assert render_nagios_contexts({"a": OK, "b": OK}).splitlines()[0].startswith("STREAMCTL OK: a, b OK | ")


def test_json_has_one_schema_valid_check_document_per_context_worst_first():
    doc = json.loads(render_json_contexts(FLEET, NOW))
    assert (doc["schema"], doc["state"], doc["exit_code"]) == ("streamctl.check-contexts/v1", "CRIT", 2)
    assert [(c["context"], c["check"]["state"]) for c in doc["contexts"]] == \
        [("prod", "CRIT"), ("dr", "UNKNOWN"), ("staging", "OK")]
    for entry in doc["contexts"]:
        assert schema_errors(entry["check"]) == []
    assert doc["contexts"][2]["check"] == json.loads(render_json(OK, NOW))


def test_prometheus_puts_a_context_label_on_every_series_without_duplicates():
    found = series(render_prometheus_contexts(FLEET, NOW))
    assert all("context" in labels for _, labels in found)
    assert {labels["context"] for _, labels in found} == set(FLEET)
    keys = Counter((name, tuple(sorted(labels.items()))) for name, labels in found)
    assert [key for key, n in keys.items() if n > 1] == []
    assert ("streamctl_check_state", {"component": "kafka", "context": "dr"}) in found
    assert ("streamctl_kafka_group_lag_records", {"group": "g", "context": "prod"}) in found


def test_single_context_prometheus_is_labelled_with_its_context_too():
    found = series(render_prometheus(OK, NOW, context="prod"))
    assert found and all(labels.get("context") == "prod" for _, labels in found)
    assert all("context" not in labels for _, labels in series(render_prometheus(OK, NOW)))


def config(*names: str) -> Config:
    return Config.model_validate({"contexts": {n: {"kafka": {"bootstrap_servers": "h:9092"}} for n in names}})


def test_contexts_are_chosen_in_the_order_asked_once_each_or_all():
    assert chosen_contexts(config("a", "b", "c"), "c, a,c", every=False) == ["c", "a"]
    assert chosen_contexts(config("a", "b"), None, every=True) == ["a", "b"]


@pytest.mark.parametrize(("asked", "every", "words"), [
    ("a,nope", False, "--contexts: no context 'nope' in "),
    (" , ", False, "--contexts: no context named in "),
    (None, True, "--all-contexts: no contexts defined in "),
])
def test_an_unknown_or_empty_context_choice_is_a_one_line_usage_error(asked, every, words):
    with pytest.raises(UsageError) as raised:
        chosen_contexts(config("a") if asked else config(), asked, every)
    assert str(raised.value).startswith(words) and "\n" not in str(raised.value)
    assert raised.value.exit_code == 3


# ---- kafka_exporter's series ----------------------------------------------------------------

def lag(topic: str, partition: int, committed: int | None, log_end: int | None = 100) -> PartitionLag:
    return PartitionLag("g", topic, partition, committed, 0, log_end)


def test_exporter_lag_follows_kafka_exporter_per_partition_and_per_topic():
    metrics = kafka_exporter_lag([lag("t", 1, None), lag("t", 0, 40), lag("t", 2, 100), lag("t", 3, 5, None),
                                  lag("idle", 0, None)])
    got = {(m.name, tuple(sorted(m.labels.items()))): m.value for m in metrics}
    assert got == {
        ("kafka_consumergroup_lag", (("consumergroup", "g"), ("partition", "0"), ("topic", "t"))): 60,
        ("kafka_consumergroup_lag", (("consumergroup", "g"), ("partition", "1"), ("topic", "t"))): -1,
        ("kafka_consumergroup_lag", (("consumergroup", "g"), ("partition", "2"), ("topic", "t"))): 0,
        ("kafka_consumergroup_lag_sum", (("consumergroup", "g"), ("topic", "t"))): 60,
    }  # no commit on "idle": left out; an unknown log end: left out; -1 not summed
    assert all(m.exporter_alias and not m.perfdata for m in metrics)


def test_exporter_series_keep_their_own_names_in_prometheus_and_stay_out_of_json():
    aliased = Evaluation(metrics=[BROKERS, *kafka_exporter_lag([lag("t", 0, 40)])], evaluated=["kafka"])
    names = {name for name, _ in series(render_prometheus(aliased, NOW, context="p"))}
    assert {"kafka_consumergroup_lag", "kafka_consumergroup_lag_sum", "streamctl_kafka_brokers"} <= names
    assert [m["name"] for m in json.loads(render_json(aliased, NOW))["metrics"]] == ["kafka_brokers"]


def test_a_context_whose_config_cannot_resolve_is_unknown_for_itself_only(tmp_path, monkeypatch):
    from streamctl.check.contexts import evaluate_contexts
    from streamctl.config import load_config

    monkeypatch.delenv("FLEET_UNSET_PASSWORD", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text("contexts:\n  locked:\n    kafka:\n      bootstrap_servers: h:9092\n      properties:\n"
                    "        sasl.password: ${FLEET_UNSET_PASSWORD}\n  open:\n    kafka: {bootstrap_servers: h:9092}\n")
    config = load_config(path)
    [(name, evaluation)] = evaluate_contexts(config, ["locked"], None, timeout=5).items()
    assert name == "locked" and evaluation.severity is Severity.UNKNOWN
    assert "FLEET_UNSET_PASSWORD" in (evaluation.failure or "")
    assert config.context("open").name == "open"  # the other context still loads


def test_every_context_reads_kafka_in_one_shared_child_closed_at_the_end(tmp_path, monkeypatch):
    """One forked child for all the contexts' Kafka reads (backends/kafka/shared_child.py), each
    context with its own client config; none forks again once the run is over."""
    path = tmp_path / "config.yaml"
    path.write_text("current-context: a\ncontexts:\n  a: {kafka: {bootstrap_servers: '127.0.0.1:9'}}\n"
                    "  b: {kafka: {bootstrap_servers: '127.0.0.1:10'}}\n")
    handed: dict = {}

    def evaluate(ctx, components, timeout, kafka_backend=None, **options):
        handed[ctx.name] = kafka_backend
        return OK

    monkeypatch.setattr(check_contexts, "evaluate", evaluate)
    assert evaluate_contexts(load_config(path), ["a", "b"], ["kafka"], 10) == {"a": OK, "b": OK}
    a, b = handed["a"], handed["b"]
    assert isinstance(a, SharedChildKafka) and isinstance(b, SharedChildKafka)
    assert a.shared_child is b.shared_child
    with pytest.raises(KafkaError, match="closed"):
        a.metadata()
