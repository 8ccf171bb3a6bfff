"""check's collectors share one Kafka snapshot a context (streamctl/check/evaluate.py): whatever
the Kafka collector does, the others waiting for its snapshot are answered, never left to their
deadline."""

from __future__ import annotations

import time

import pytest

from streamctl.check.evaluate import collector, evaluate
from streamctl.config import load_config
from streamctl.model.health import NotEvaluated


@pytest.fixture
def ctx(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("contexts:\n  c:\n    kafka: {bootstrap_servers: '127.0.0.1:9'}\n"
                    "    zookeeper: {hosts: '127.0.0.1:9'}\n")
    return load_config(path).context("c")


@pytest.mark.parametrize("failure", [NotEvaluated("the Kafka client crashed"), RuntimeError("a bug")])
def test_a_kafka_collector_failing_before_its_read_hands_on_no_snapshot(ctx, monkeypatch, failure):
    def kafka_fails(*_args, **_options):
        raise failure

    def zookeeper_waits(_ctx, _deadline_at, kafka_snapshot=None, **_options):
        started = time.monotonic()
        snap = kafka_snapshot.result(timeout=60)
        return [], [], {"waited": f"{time.monotonic() - started:.1f}", "snapshot": repr(snap)}

    monkeypatch.setattr(collector("kafka"), "collect", kafka_fails)
    monkeypatch.setattr(collector("zookeeper"), "collect", zookeeper_waits)
    evaluation = evaluate(ctx, ["kafka", "zookeeper"], timeout=60)
    assert "kafka" in evaluation.unevaluated
    assert evaluation.rules_unevaluated["zookeeper"]["snapshot"] == "None"
    assert float(evaluation.rules_unevaluated["zookeeper"]["waited"]) < 30  # answered, not left to a deadline
