"""The standalone Master's answers (captured from the --distributed sandbox, see
tests/fixtures/spark-cluster/capture.py) through the parser and the cluster rules."""

from __future__ import annotations

import json
import socket
from dataclasses import replace

import pytest

from streamctl.backends.spark import observe_job
from streamctl.backends.spark_master import _DetailLink, parse_master_json, read_cluster
from streamctl.model.health import Severity
from streamctl.spark.cluster_health import cluster_health
from streamctl.spark.health import spark_health
from streamctl.thresholds import Thresholds
from tests import repo

FIXTURES = repo.FIXTURES / "spark-cluster"
MASTER_UI = "http://127.0.0.1:45009"


def scene(name: str):
    return parse_master_json(MASTER_UI, json.loads((FIXTURES / f"{name}.json").read_text()))


def codes(findings) -> dict[str, Severity]:
    return {f.code: f.severity for f in findings}


def job_view(cluster, name: str = "weblog-stats"):
    return observe_job(name, "/nonexistent/checkpoint", cluster_app=cluster.app_named(name))


def test_a_healthy_cluster_parses_and_raises_nothing():
    cluster = scene("healthy")
    assert (cluster.url, cluster.status) == ("spark://127.0.0.1:42081", "ALIVE")
    assert [w.state for w in cluster.workers] == ["ALIVE"]
    assert cluster.cores == (2, 2) and cluster.memory_mb == (512, 1024)
    app = cluster.app_named("weblog-stats")
    assert (app.state, app.active, app.cores, app.memory_per_executor_mb) == ("RUNNING", True, 2, 512)
    findings, metrics = cluster_health(cluster, [job_view(cluster)])
    assert findings == []
    assert {m.name: m.value for m in metrics}["spark_workers_alive"] == 1


def test_a_killed_worker_is_dead_no_worker_is_crit_and_the_app_holds_no_cores():
    cluster = scene("worker-killed")
    findings, metrics = cluster_health(cluster, [job_view(cluster)])
    assert codes(findings) == {"SPARK_WORKER_DEAD": Severity.WARN, "SPARK_NO_LIVE_WORKER": Severity.CRIT,
                               "SPARK_APP_WAITING": Severity.WARN}
    waiting = next(f for f in findings if f.code == "SPARK_APP_WAITING")
    assert "is RUNNING with no executors (0 cores granted)" in waiting.text
    assert {m.name: m.value for m in metrics}["spark_workers_dead"] == 1
    # The job's own view still counts it running: the Master lists its application as active.
    assert job_view(cluster).running is True


def test_the_master_outranks_a_driver_rest_api_that_did_not_answer():
    """Seen from a host without the run record, under load: the REST API timed out while the
    Master listed the application as RUNNING. The job runs; its REST API is unreachable."""
    busy = replace(job_view(scene("healthy")), rest="unreachable", rest_error="timed out")
    assert busy.running is True
    gone = replace(job_view(scene("job-stopped")), rest="unreachable")
    assert gone.running is False
    assert replace(job_view(scene("healthy")), cluster_app=None, rest="unreachable").running is False


def test_a_stopped_job_is_driver_gone_with_its_final_state():
    cluster = scene("job-stopped")
    view = job_view(cluster)
    assert view.running is False and view.cluster_app.state == "FINISHED"
    findings, _ = spark_health([view], Thresholds(), cluster)
    gone = next(f for f in findings if f.code == "SPARK_DRIVER_GONE")
    assert gone.severity is Severity.CRIT and "ended (FINISHED)" in gone.text
    # A job the cluster never ran is not judged by the cluster's rules.
    other, _ = cluster_health(cluster, [job_view(cluster, "clickstream")])
    assert "SPARK_DRIVER_GONE" not in codes(other)


def test_a_standby_master_is_warned():
    cluster = replace(scene("healthy"), status="STANDBY")
    assert codes(cluster_health(cluster, [])[0]) == {"SPARK_MASTER_NOT_ALIVE": Severity.WARN}


def test_the_driver_ui_is_read_from_the_application_page():
    finder = _DetailLink()
    finder.feed((FIXTURES / "healthy-app.html").read_text())
    assert finder.href == "http://127.0.0.1:40529"  # the driver's spark.ui.port in that capture


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_no_master_answering_is_one_crit_finding_never_an_exception():
    cluster = read_cluster([f"http://127.0.0.1:{closed_port()}", f"http://127.0.0.1:{closed_port()}"], timeout=1.0)
    assert cluster.error is not None and cluster.error.count("connection refused") == 2
    findings, metrics = spark_health([], Thresholds(), cluster)
    assert codes(findings) == {"SPARK_MASTER_DOWN": Severity.CRIT}
    assert not any(m.name.startswith("spark_workers") for m in metrics)


@pytest.mark.parametrize("answer", [[], "x", {"workers": "none", "activeapps": [1, None]}])
def test_odd_answers_parse_to_empty_clusters(answer):
    if not isinstance(answer, dict):
        with pytest.raises(ValueError):
            parse_master_json(MASTER_UI, answer)
        return
    cluster = parse_master_json(MASTER_UI, answer)
    assert cluster.workers == () and cluster.apps == () and cluster.status is None


def test_jobs_cluster_without_a_master_answering_is_one_line_and_exit_1(tmp_path):
    from tests.conftest import run_cli

    config = tmp_path / "config.yaml"
    config.write_text("current-context: x\ncontexts:\n  x:\n    kafka: {bootstrap_servers: '127.0.0.1:1'}\n"
                      f"    spark: {{masters: ['http://127.0.0.1:{closed_port()}'], timeout: 1}}\n")
    result = run_cli("--config", str(config), "jobs", "cluster")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "no Spark Master answered" in result.stderr
    config.write_text(config.read_text().replace("http://127.0.0.1", "ftp://127.0.0.1"))
    result = run_cli("--config", str(config), "jobs", "cluster")
    assert result.returncode == 3 and "must be an http:// or https:// URL" in result.stderr
