"""The cluster itself in both modes: each node's roles in the brokers view, and the KRaft
controller quorum read with Kafka's own tool (`check --component quorum`, opt-in)."""

from __future__ import annotations

import json

import pytest

from tests.integration.kafka_helpers import write_context

pytestmark = pytest.mark.integration


def test_brokers_show_each_nodes_roles(cluster, tmp_path):
    config = write_context(tmp_path / "c.yaml", cluster.bootstrap_servers)
    result = cluster.cli("--config", str(config), "brokers", "-o", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    roles = {b["id"]: b["roles"] for b in data["brokers"]}
    assert sorted(roles) == [1, 2, 3]
    if data["kraft"]:
        # Every sandbox node is broker and controller (process.roles); none is "the" controller.
        assert all(r == ["broker", "controller"] for r in roles.values()), roles
        assert data["controller_id"] is None
    else:
        assert sorted(r for r in roles.values() if "controller" in r) == [["broker", "controller"]], roles
        assert roles[data["controller_id"]] == ["broker", "controller"]
    table = cluster.cli("--config", str(config), "brokers")
    assert ("KRaft mode" if data["kraft"] else "ZooKeeper mode") in table.stdout


def test_quorum_check_names_the_leader_and_each_voter(kraft_sandbox, tmp_path):
    config = write_context(tmp_path / "c.yaml", kraft_sandbox.bootstrap_servers)
    result = kraft_sandbox.cli("--config", str(config), "check", "--component", "quorum", "--format", "json",
                               "--timeout", "60")
    assert result.returncode == 0, result.stdout + result.stderr
    doc = json.loads(result.stdout)
    metrics = {(m["name"], m["labels"].get("node")): m["value"] for m in doc["metrics"]}
    assert metrics[("kafka_quorum_has_leader", None)] == 1
    assert metrics[("kafka_quorum_leader_epoch", None)] >= 1
    assert metrics[("kafka_quorum_high_watermark", None)] > 0
    assert sorted(node for name, node in metrics if name == "kafka_quorum_voter_lag") == ["1", "2", "3"]


def test_quorum_check_on_a_zookeeper_cluster_is_unknown_with_the_reason(sandbox, tmp_path):
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers)
    result = sandbox.cli("--config", str(config), "check", "--component", "quorum", "--timeout", "60")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "no KRaft quorum" in result.stdout, result.stdout
    assert "Traceback" not in result.stderr
