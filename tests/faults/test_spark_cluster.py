"""The demo job on a real Spark standalone cluster checkpointing to a real HDFS (`sandbox up
--distributed`): what `jobs`, `check` and the dashboard show, the checkpoint read over WebHDFS
in a bounded number of requests, the Worker killed under the running job, the NameNode stopped,
and the driver gone.

The distributed stack is its own sandbox (ZooKeeper, one broker, NameNode, DataNode, the Master,
the Worker, the job's driver and its executor), started for this module only, stopped at its end.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from streamctl.backends.checkpoint_store import WebHdfsStore
from streamctl.backends.spark import read_checkpoint
from streamctl.backends.spark_state import read_state
from streamctl.demo.hdfs import ROLE as HDFS
from streamctl.demo.spark_cluster import ROLE
from streamctl.demo.spark_job import JOB, runs_root
from streamctl.sandbox.stack import Sandbox
from streamctl.spark import launcher
from tests.check_reasons import assert_unknowns_are_service_conditions, unevaluated
from tests.conftest import RunningSandbox
from tests.integration.spark_helpers import access_line, produce_lines, window_lines
from tests.jvm_guard import service_fixture

pytestmark = pytest.mark.integration


@service_fixture(scope="module")
def distributed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("distributed")
    xdg_state = tmp / "state"
    sb = Sandbox(root=xdg_state / "streamctl" / "sandbox", config_path=tmp / "config.yaml")
    state, _ = sb.up(brokers=1, addon_roles=(HDFS, "flume", ROLE, "spark"), distributed=True)
    sb.stop_service("loadgen")  # the tests write the lines they count
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
    doc = json.loads(result.stdout)
    assert_unknowns_are_service_conditions(doc, result.stdout + result.stderr)
    return result.returncode, {f["code"] for f in doc["findings"] if f["severity"] != "OK"}


def processed(stack, lines: int):
    """The job's status once its committed batches have read `lines` records in all, and reported."""
    data = cli_json(stack, "jobs", "status", JOB, "-o", "json")
    offsets = ((data["checkpoint"] or {}).get("committed") or {}).get("kafka_offsets", {}).get("weblogs", {})
    # The progress listener reports a batch just after its commit: wait for both.
    return data if sum(offsets.values()) >= lines and data["lag"] == 0 and data["rates"] else None


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

    # From a host that did not launch the driver (no run record: another state dir), with a
    # context that names no UI address: the Master's application page gives it.
    from streamctl.config import load_config

    assert load_config(distributed.config_path).context("sandbox").spark.jobs[JOB].ui_url is None
    def status_elsewhere():
        elsewhere = distributed.cli("jobs", "status", JOB, "-o", "json", XDG_STATE_HOME=str(tmp_path))
        assert elsewhere.returncode == 0, elsewhere.stderr
        return json.loads(elsewhere.stdout)

    spec = launcher.load_spec(JOB, runs_root(distributed.sandbox))
    remote = status_elsewhere()
    assert (remote["process"], remote["pid"], remote["state"], remote["ui_url"]) == (None, None, "running", spec.ui_url)
    # A busy driver's REST API can miss one read's timeout: it answers within a few.
    def answered():
        remote = status_elsewhere()
        return remote if remote["rest"] == "up" else None

    remote = distributed.wait_until(answered, timeout=60, what="the driver's REST API answering")
    assert remote["app_id"] == app["id"] and remote["master"] == cluster["url"]

    code, problems = spark_findings(distributed)
    assert (code, problems) == (0, set())


def webhdfs(stack) -> WebHdfsStore:
    return WebHdfsStore(stack.state.extras["hdfs"]["webhdfs_url"], stack.state.extras["hdfs"]["user"])


def test_the_checkpoint_lives_on_hdfs_and_reads_in_a_bounded_number_of_requests(distributed, tmp_path):
    data = distributed.wait_until(lambda: processed(distributed, 1), timeout=120, what="a batch committed")
    assert data["checkpoint_dir"].startswith("hdfs://127.0.0.1:") and data["checkpoint_error"] is None
    store = webhdfs(distributed)
    path = store.path(data["checkpoint_dir"])
    live = read_checkpoint(path, store)
    assert live.latest_committed == data["checkpoint"]["latest_committed"] and not live.problems
    assert store.fs.ls(path + "/commits")  # really on HDFS, not a local folder of that name

    # A short history and a long one left with gaps at the start, as Spark's cleanup
    # (minBatchesToRetain) leaves it: both read in the same few requests.
    fixture = Path(__file__).parent.parent / "fixtures" / "spark" / "checkpoint-weblog-stats"
    long = tmp_path / "long"
    shutil.copytree(fixture, long)
    for folder in ("offsets", "commits"):
        for item in list((long / folder).iterdir()):
            if item.name.isdigit():
                item.rename(item.with_name(str(int(item.name) + 9_967)))  # batches 9967..9999
            else:
                item.unlink()  # .N.crc: the reader never opens them
    calls = {}
    for name, local in (("short", fixture), ("long", long)):
        store.fs.put(str(local), f"/scaling/{name}", recursive=True)
        reader = webhdfs(distributed)
        status = read_checkpoint(f"/scaling/{name}", reader)
        calls[name] = reader.calls
        assert status.latest_committed == (32 if name == "short" else 9_999) and not status.problems
    assert calls["short"] == calls["long"] <= 12, calls

    # The state stores read over WebHDFS (one LISTSTATUS per folder) as they read from the disk.
    reader = webhdfs(distributed)
    over_hdfs, on_disk = read_state("/scaling/short", reader), read_state(str(fixture))
    assert over_hdfs.operators == on_disk.operators and over_hdfs.operators, (over_hdfs, on_disk)
    assert over_hdfs.latest_committed == on_disk.latest_committed and not over_hdfs.problems


async def test_a_killed_worker_is_crit_and_the_job_catches_up_when_it_returns(distributed):
    from streamctl.dashboard.source import make_dashboard
    from streamctl.tui.app import StreamctlApp
    from tests.faults.pilot import until

    distributed.sandbox.stop_service("spark-worker", kill=True)
    try:
        distributed.wait_until(lambda: spark_findings(distributed)[0] == 2, timeout=60, what="check CRIT")
        _code, problems = spark_findings(distributed)
        assert {"SPARK_NO_LIVE_WORKER", "SPARK_WORKER_DEAD", "SPARK_APP_WAITING"} <= problems
        whole = distributed.cli("check", "--format", "json")
        report = json.loads(whole.stdout)
        assert_unknowns_are_service_conditions(report, whole.stdout + whole.stderr)
        assert "kafka" not in unevaluated(report), report  # one broken backend, the others read
        produce_lines(distributed.bootstrap_servers, "weblogs", window_lines(1_795_000_100, 80, seed=12).lines)

        app = StreamctlApp(make_dashboard(str(distributed.config_path), "sandbox"), refresh_interval=2.0)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("7")
            def line():
                return str(app.screen.query_one("#spark-cluster").render())
            await until(pilot, lambda: "no live worker" in line(), 30, "the cluster line without a worker")
            assert "1 dead" in line()
            distributed.sandbox.start_service("spark-worker")
            await until(pilot, lambda: "workers 1 live" in line() and "no live worker" not in line(), 60,
                        "the worker back on the Jobs screen")
    finally:
        distributed.sandbox.start_service("spark-worker")
    distributed.wait_until(lambda: processed(distributed, 200), timeout=180, what="the 80 lines of the outage processed")
    distributed.wait_until(lambda: spark_findings(distributed)[0] == 0, timeout=60, what="check OK again")


def test_a_stopped_namenode_is_unknown_naming_hdfs_then_the_job_resumes_from_its_checkpoint(distributed):
    before = distributed.wait_until(lambda: processed(distributed, 0), timeout=120, what="the job caught up")
    read = sum(before["checkpoint"]["committed"]["kafka_offsets"]["weblogs"].values())
    distributed.sandbox.stop_service("hdfs-namenode")
    try:
        result = distributed.cli("check", "--format", "json", "--timeout", "10")
        report = json.loads(result.stdout)
        unknown = [f for f in report["findings"] if f["code"] == "SPARK_CHECKPOINT_UNKNOWN"]
        assert len(unknown) == 1 and "HDFS (WebHDFS at 127.0.0.1:" in unknown[0]["text"], report["findings"]
        assert unknown[0]["severity"] == "UNKNOWN" and result.returncode != 0
        assert_unknowns_are_service_conditions(report, result.stdout + result.stderr)
        assert "kafka" not in unevaluated(report), report  # the other components still read
        status = distributed.cli("jobs", "status", JOB, "-o", "json")
        assert status.returncode == 0 and "does not answer" in json.loads(status.stdout)["checkpoint_error"]
        # New records make the job write a batch to HDFS: its query fails, and check says so.
        produce_lines(distributed.bootstrap_servers, "weblogs", window_lines(1_795_000_200, 30, seed=13).lines)
        distributed.wait_until(lambda: "SPARK_JOB_DOWN" in spark_findings(distributed)[1], timeout=180,
                               what="the job's own failure")
    finally:
        distributed.sandbox.start_service("hdfs-namenode")
    distributed.sandbox.start_service(f"spark-{JOB}")
    distributed.wait_until(lambda: processed(distributed, read + 30), timeout=180, what="the job caught up")
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


def test_the_flume_agent_fans_out_to_its_hdfs_sink(distributed):
    from streamctl.backends.flume import fetch
    from streamctl.demo.flume_agent import AGENT, access_log
    from streamctl.flume.control import sandbox_agents

    metrics_url = sandbox_agents(distributed.sandbox.state())[AGENT]["metrics_url"]
    def drained():
        return int(fetch(metrics_url, timeout=5)["SINK.hdfs"]["EventDrainSuccessCount"])
    before = drained()
    marker = f"flume-hdfs-{time.time_ns()}"
    lines = [access_line(1_795_000_300 + i, "198.51.100.9", "GET", f"/{marker}/{i}", 200, 512) for i in range(50)]
    with open(access_log(distributed.sandbox.state()), "a") as log:
        log.write("".join(f"{line}\n" for line in lines))
    distributed.wait_until(lambda: drained() >= before + 50, timeout=60, what="the HDFS sink's drain count rising")
    status = cli_json(distributed, "agents", "status", AGENT, "-o", "json")
    assert "hdfs" in json.dumps(status) and "kafka" in json.dumps(status)

    store = webhdfs(distributed)
    # Files roll every 30 s; the lines are then in a closed file under /flume/weblogs/<day>/.
    def archived() -> int:
        files = [f for f in store.fs.find("/flume/weblogs") if not f.endswith(".tmp")]
        return sum(store.fs.cat_file(f).decode().count(marker) for f in files)
    distributed.wait_until(lambda: archived() >= 50, timeout=120,
                           what="the lines in a rolled HDFS file")
