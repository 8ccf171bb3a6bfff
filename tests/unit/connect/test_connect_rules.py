"""Connect's parsing, rules and masking on answers captured from the sandbox's real worker
(Kafka 3.9.2, tests/fixtures/connect/)."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest

from streamctl.backends.connect import _connector, _http_reason
from streamctl.connect.collect import unassigned_ages
from streamctl.connect.health import connect_health, unassigned_keys
from streamctl.connect.plans import read_config_file
from streamctl.connect.secrets import MASK, masked, masked_text
from streamctl.errors import UsageError
from streamctl.model.connect import ConnectCluster
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "connect"


def _cluster(name: str) -> ConnectCluster:
    listing = json.loads((FIXTURES / name).read_text())
    return ConnectCluster("http://w:8083", "3.9.2", "5e9866f43ab8e7e4", "c",
                          tuple(_connector(n, e) for n, e in sorted(listing.items())))


def _codes(findings) -> list[tuple[str, str, str]]:
    return [(f.severity.value, f.code, f.object) for f in findings]


def test_the_expanded_listing_gives_state_tasks_config_and_group():
    demo = _cluster("connectors_expanded.json").connector("weblog-archive")
    assert (demo.type, demo.state, demo.worker_id) == ("sink", "RUNNING", "127.0.0.1:52609")
    assert [(t.id, t.state) for t in demo.tasks] == [(0, "RUNNING")]
    assert demo.topics == ("weblog-stats",) and demo.group_id == "connect-weblog-archive"
    assert demo.connector_class.endswith("FileStreamSinkConnector")


def test_a_healthy_cluster_has_no_findings_and_counts_tasks():
    findings, metrics = connect_health(_cluster("connectors_expanded.json"), Thresholds())
    assert findings == []
    values = {m.name: m.value for m in metrics if not m.labels}
    assert values == {"connect_up": 1, "connect_connectors": 1, "connect_connectors_failed": 0,
                      "connect_tasks": 1, "connect_tasks_running": 1, "connect_tasks_failed": 0}


def test_a_failed_task_is_crit_naming_connector_task_worker_and_trace():
    findings, metrics = connect_health(_cluster("connectors_failed_task.json"), Thresholds())
    assert _codes(findings) == [("CRIT", "CONNECT_TASK_FAILED", "task broken-sink/0")]
    assert findings[0].text == ("task broken-sink/0 FAILED on worker 127.0.0.1:52609: "
                                "org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file "
                                "'/proc/no-such-dir/out.txt' for FileStreamSinkTask")
    assert {m.name: m.value for m in metrics if not m.labels}["connect_tasks_failed"] == 1


@pytest.mark.parametrize("state", ["PAUSED", "STOPPED"])
def test_paused_or_stopped_warns_unless_expected(state):
    cluster = _cluster("connectors_expanded.json")
    cluster = replace(cluster, connectors=(replace(cluster.connectors[0], state=state),))
    assert _codes(connect_health(cluster, Thresholds())[0]) == \
        [("WARN", f"CONNECT_CONNECTOR_{state}", "connector weblog-archive")]
    assert connect_health(cluster, Thresholds(), expected_paused=["weblog-*"])[0] == []


def test_unassigned_warns_only_after_the_threshold(tmp_path):
    cluster = _cluster("connectors_expanded.json")
    demo = cluster.connectors[0]
    cluster = replace(cluster, connectors=(replace(demo, tasks=(replace(demo.tasks[0], state="UNASSIGNED"),)),))
    keys = unassigned_keys(cluster)
    assert keys == {"weblog-archive/0"}
    state = tmp_path / "unassigned.json"
    first = unassigned_ages(state, keys, now=1000.0)
    assert connect_health(cluster, Thresholds(), unassigned_for=first)[0] == []
    later = unassigned_ages(state, keys, now=1061.0)
    assert _codes(connect_health(cluster, Thresholds(), unassigned_for=later)[0]) == \
        [("WARN", "CONNECT_UNASSIGNED", "task weblog-archive/0")]
    assert unassigned_ages(state, set(), now=1100.0) == {} and json.loads(state.read_text()) == {}


def test_secrets_are_masked_and_plain_settings_are_not():
    config = _cluster("connectors_failed_task.json").connector("broken-sink").config
    shown = masked({**config, "ssl.key": "k", "aws.secret.access": "a", "conn": "${file:/etc/s.properties:pw}",
                    "key.converter": "org.apache.kafka.connect.storage.StringConverter"})
    assert shown["db.password"] == shown["ssl.key"] == shown["aws.secret.access"] == shown["conn"] == MASK
    assert shown["topics"] == "weblog-stats" and shown["key.converter"].endswith("StringConverter")
    assert masked_text("bad value hunter2 for db.password", config) == f"bad value {MASK} for db.password"


def test_error_bodies_become_one_line_reasons():
    not_found = httpx.Response(404, json={"error_code": 404, "message": "No status found for connector nope"})
    assert _http_reason(not_found) == "404 No status found for connector nope"
    exists = httpx.Response(409, json={"error_code": 409, "message": "Connector broken-sink already exists"})
    assert _http_reason(exists) == "409 Connector broken-sink already exists"
    rebalance = httpx.Response(409, json={"error_code": 409, "message":
                                          "Cannot complete request because of a conflicting operation "
                                          "(e.g. worker rebalance)"})
    assert "try again in a few seconds" in _http_reason(rebalance)
    crashed = httpx.Response(500, text="<html>Server Error\nat line 2</html>")
    assert _http_reason(crashed) == "500 <html>Server Error"


def test_config_files_in_every_form(tmp_path):
    wrapped = tmp_path / "a.json"
    wrapped.write_text(json.dumps({"name": "n1", "config": {"tasks.max": 2, "errors.tolerance": "all"}}))
    assert read_config_file(wrapped) == ("n1", {"tasks.max": "2", "errors.tolerance": "all"})
    flat = tmp_path / "b.json"
    flat.write_text(json.dumps({"topics": "t", "enabled": True}))
    assert read_config_file(flat) == (None, {"topics": "t", "enabled": "true"})
    props = tmp_path / "c.properties"
    props.write_text("name=n3\ntopics = t1,t2\nfile:/tmp/out\\\n.txt\n")
    assert read_config_file(props) == ("n3", {"name": "n3", "topics": "t1,t2", "file": "/tmp/out.txt"})
    with pytest.raises(UsageError, match="cannot read"):
        read_config_file(tmp_path / "missing.json")


def test_a_rebalancing_worker_is_asked_again_within_the_timeout(monkeypatch):
    from streamctl.backends import connect as connect_backend

    monkeypatch.setattr(connect_backend, "REBALANCE_PAUSE", 0.01)
    answers = [httpx.Response(500, json={"error_code": 500, "message":
                                         "Request cannot be completed because a rebalance is expected"}),
               httpx.Response(200, json=json.loads((FIXTURES / "root.json").read_text()))]
    backend = connect_backend.ConnectBackend(["http://w:8083"], timeout=5)
    backend._client = httpx.Client(transport=httpx.MockTransport(lambda request: answers.pop(0)))
    assert backend._request("GET", "/")[1]["version"] == "3.9.2" and answers == []
