"""Kafka read commands against a cluster that is not there: one line naming the cluster, exit 1;
`check`: CRIT naming it, or UNKNOWN for a service condition."""

from __future__ import annotations

import json

import pytest

from tests.badinput.harness import Case, Workspace
from tests.check_reasons import assert_unknowns_are_service_conditions, unevaluated
from tests.conftest import run_cli

READS = [("brokers",), ("topics", "list"), ("topics", "describe", "t"), ("groups", "list"),
         ("groups", "describe", "g"), ("groups", "lag"), ("topics", "read", "t"), ("groups", "peek", "g"),
         ("topics", "produce", "t", "--execute")]


@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_a_failed_read_names_the_cluster(args, tmp_path):
    workspace = Workspace(tmp_path)
    workspace.write(Case("unreachable", args))
    result = run_cli(*args, env=workspace.env({}), timeout=60)  # stdin is empty: nothing to produce

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"streamctl: error: Kafka at 127.0.0.1:{workspace.values['dead']}: metadata request failed: ")


@pytest.mark.parametrize("deadline", ["10", "1"], ids=["refused in time", "deadline first"])
def test_check_names_the_unreachable_cluster_or_a_service_condition(deadline, tmp_path):
    """Refused connections are CRIT, naming the cluster; a component cut short is UNKNOWN for a
    service condition (the deadline, no answer), never for an exception in its collector."""
    workspace = Workspace(tmp_path)
    workspace.write(Case("unreachable", ("check",)))
    result = run_cli("check", "--format", "json", "--timeout", deadline, env=workspace.env({}), timeout=60)

    assert result.returncode in (2, 3), result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    doc = json.loads(result.stdout)
    assert_unknowns_are_service_conditions(doc, result.stdout + result.stderr)
    if "kafka" not in unevaluated(doc):
        [kafka] = [f for f in doc["findings"] if f["component"] == "kafka"]
        assert kafka["code"] == "KAFKA_UNREACHABLE", doc
        assert kafka["text"].startswith(f"Kafka unreachable at 127.0.0.1:{workspace.values['dead']}: "), doc
