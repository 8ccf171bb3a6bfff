"""The demo job on a real Spark standalone cluster (`sandbox up --distributed`): what `jobs`,
`check` and the dashboard show, the Worker killed under the running job, and the driver gone.

The distributed stack is its own sandbox (ZooKeeper, one broker, the Master, the Worker, the
job's driver and its executor), started for this module only and stopped at its end.
"""

from __future__ import annotations

import json

import pytest

from streamctl.jobs.cluster_addon import ROLE
from streamctl.jobs.sandbox_addon import JOB, runs_root
from streamctl.jobs import launcher
from streamctl.sandbox.stack import Sandbox
from tests.conftest import RunningSandbox
from tests.integration.spark_helpers import produce_lines, window_lines

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def distributed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("distributed")
    xdg_state = tmp / "state"
    sb = Sandbox(root=xdg_state / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    state, _ = sb.up(brokers=1, addon_roles=(ROLE, "spark"), distributed=True)
    try:
        yield RunningSandbox(sb, state, xdg_state)
    finally:
        sb.down()


def cli_json(stack, *args: str, ok=(0,)) -> dict:
    result = stack.cli(*args)
    assert result.returncode in ok, result.stderr
    return json.loads(result.stdout)


def spark_findings(stack) -> tuple[int, set[str]]:
    result = stack.cli("check", "--component", "spark", "--format", "json")
    return result.returncode, {f["code"] for f in json.loads(result.stdout)["findings"] if f["severity"] != "OK"}


def processed(stack, lines: int):
    """The job's status once its committed batches have read `lines` more than at the start."""
    data = cli_json(stack, "jobs", "status", JOB, "-o", "json")
    offsets = ((data["checkpoint"] or {}).get("committed") or {}).get("kafka_offsets", {}).get("weblogs", {})
    return data if sum(offsets.values()) >= lines and data["lag"] == 0 else None


def test_the_job_runs_on_the_cluster_and_its_ui_is_resolved_from_the_master(distributed, tmp_path):
    services = {s["name"]: s["state"] for s in cli_json(distributed, "sandbox", "status", "-o", "json")}
    assert services["spark-master"] == services["spark-worker"] == services[f"spark-{JOB}"] == "running"

    cluster = cli_json(distributed, "jobs", "cluster", "-o", "json")
    assert cluster["status"] == "ALIVE" and cluster["url"].startswith("spark://127.0.0.1:")
    assert [w["state"] for w in cluster["workers"]] == ["ALIVE"]
    app = next(a for a in cluster["apps"] if a["active"])
    assert (app["name"], app["state"], app["cores"]) == (JOB, "RUNNING", 2)
    assert cluster["cores_used"] == cluster["cores"] == 2

    produce_lines(distributed.bootstrap_servers, "weblogs", window_lines(1_795_000_000, 120, seed=11).lines)
    data = distributed.wait_until(lambda: processed(distributed, 120), timeout=120, what="120 lines processed")
    assert data["state"] == "running" and data["master"] == cluster["url"]
    assert data["app_id"] == app["id"] and data["cluster_app"]["state"] == "RUNNING"
    # The sandbox context names no UI address for this job: the Master's application page gave it.
    assert data["rates"] is not None

    # From a host that did not launch the driver (no run record: another state dir), with a
    # context that names no UI address: the Master's application page gives it.
    from streamctl.config import load_config

    assert load_config(distributed.config_path).context("sandbox").spark.jobs[JOB].ui_url is None
    elsewhere = distributed.cli("jobs", "status", JOB, "-o", "json", XDG_STATE_HOME=str(tmp_path))
    assert elsewhere.returncode == 0, elsewhere.stderr
    remote = json.loads(elsewhere.stdout)
    spec = launcher.load_spec(JOB, runs_root(distributed.sandbox))
    assert (remote["process"], remote["pid"]) == (None, None)
    assert (remote["state"], remote["ui_url"], remote["rest"]) == ("running", spec.ui_url, "up")
    assert remote["app_id"] == app["id"] and remote["master"] == cluster["url"]

    code, problems = spark_findings(distributed)
    assert (code, problems) == (0, set())


async def test_a_killed_worker_is_crit_and_the_job_catches_up_when_it_returns(distributed):
    from streamctl.overview.dashboard_source import make_dashboard
    from streamctl.tui.app import StreamctlApp
    from tests.faults.pilot import until

    distributed.sandbox.stop_service("spark-worker", kill=True)
    try:
        distributed.wait_until(lambda: spark_findings(distributed)[0] == 2, timeout=60, what="check CRIT")
        code, problems = spark_findings(distributed)
        assert {"SPARK_NO_LIVE_WORKER", "SPARK_WORKER_DEAD", "SPARK_APP_WAITING"} <= problems
        whole = distributed.cli("check", "--format", "json")
        components = json.loads(whole.stdout)
        assert "kafka" not in components.get("unevaluated", {})  # one broken backend, the others read
        produce_lines(distributed.bootstrap_servers, "weblogs", window_lines(1_795_000_100, 80, seed=12).lines)

        app = StreamctlApp(make_dashboard(str(distributed.config_path), "sandbox"), refresh_interval=2.0)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("7")
            line = lambda: str(app.screen.query_one("#spark-cluster").render())
            await until(pilot, lambda: "no live worker" in line(), 30, "the cluster line without a worker")
            assert "1 dead" in line()
            distributed.sandbox.start_service("spark-worker")
            await until(pilot, lambda: "workers 1 live" in line() and "no live worker" not in line(), 60,
                        "the worker back on the Jobs screen")
    finally:
        distributed.sandbox.start_service("spark-worker")
    distributed.wait_until(lambda: processed(distributed, 200), timeout=180, what="the 80 lines of the outage processed")
    distributed.wait_until(lambda: spark_findings(distributed)[0] == 0, timeout=60, what="check OK again")


def test_a_stopped_driver_is_gone_from_the_cluster_and_crit(distributed):
    result = distributed.cli("jobs", "stop", JOB, "--execute")
    assert result.returncode == 0, result.stderr
    distributed.wait_until(lambda: "SPARK_DRIVER_GONE" in spark_findings(distributed)[1], timeout=60,
                           what="the driver gone")
    code, problems = spark_findings(distributed)
    assert code == 2 and {"SPARK_DRIVER_GONE", "SPARK_JOB_DOWN"} <= problems
    cluster = cli_json(distributed, "jobs", "cluster", "-o", "json")
    assert not any(a["active"] for a in cluster["apps"])
    assert [a["state"] for a in cluster["apps"] if a["name"] == JOB][-1] == "FINISHED"
