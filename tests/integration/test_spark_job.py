"""The real weblog-stats Spark job of the session sandbox: results, status, lag, stop, restart.

One job (started by the sandbox's Spark add-on) is shared by every test here: Spark's start-up
(JVM + Python) is the slow part, so only the restart test pays for a second one.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from streamctl.backends.spark import (
    SparkUnreachable,
    log_end_offsets,
    read_checkpoint,
    rest_applications,
)
from tests.integration.spark_helpers import (
    access_line,
    next_window,
    produce_lines,
    read_stats,
    running_job_settings,
    window_lines,
)

pytestmark = pytest.mark.integration

JOB = "weblog-stats"


@pytest.fixture(scope="module")
def job(sandbox):
    return running_job_settings(sandbox, JOB)


def status(sandbox) -> dict:
    result = sandbox.cli("jobs", "status", JOB, "-o", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def caught_up(sandbox, ends: dict[tuple[str, int], int]):
    """The status, once the job's last committed batch has read up to `ends`."""
    data = status(sandbox)
    committed = (data["checkpoint"] or {}).get("committed") or {}
    offsets = committed.get("kafka_offsets", {}).get("weblogs", {})
    return data if all(offsets.get(str(p), -1) >= o for (_, p), o in ends.items()) else None


def test_windowed_counts_reach_the_output_topic_and_lag_returns_near_zero(sandbox, job):
    before = status(sandbox)
    assert before["state"] == "running" and before["app_id"]
    start = next_window(read_checkpoint(job.checkpoint_dir).next_watermark_ms)
    batch = window_lines(start, 240, seed=3)
    produce_lines(sandbox.bootstrap_servers, "weblogs", batch.lines)
    # One line 45 s past the window moves the watermark (window end + 10 s) beyond it: it closes.
    produce_lines(sandbox.bootstrap_servers, "weblogs",
                  [access_line(start + 45, "198.51.100.7", "GET", "/", 200, 1024)])
    ends = log_end_offsets({"bootstrap.servers": sandbox.bootstrap_servers}, {"weblogs"})

    rows = read_stats(sandbox.bootstrap_servers, "weblog-stats", start, len(batch.lines), timeout=120)
    requests, sizes = Counter(), Counter()
    for row in rows:
        requests[row["status_class"]] += row["requests"]
        sizes[row["status_class"]] += row["bytes"]
    assert requests == batch.requests
    assert sizes == batch.bytes
    assert {r["path"] for r in rows} <= {"/", "/index.html", "/products/42", "/cart", "/api/v1/orders",
                                         "/static/app.js", "/login", "/search?q=kafka"}

    after = sandbox.wait_until(lambda: caught_up(sandbox, ends), timeout=60, what="the job to commit the lines")
    assert after["checkpoint"]["latest_committed"] > before["checkpoint"]["latest_committed"]
    assert after["checkpoint"]["query_id"] == before["checkpoint"]["query_id"]
    # The load generator keeps writing ~10 lines/s: near zero, not exactly zero.
    assert after["lag"] is not None and after["lag"] < len(batch.lines)
    assert after["rates"] and after["rates"]["batch_id"] >= before["checkpoint"]["latest_committed"]


def test_status_app_id_matches_the_rest_api_and_check_is_ok(sandbox, job):
    data = status(sandbox)
    apps = sandbox.wait_until(lambda: _applications(data["ui_url"]), timeout=60,
                              what="the driver's REST API")  # a busy driver may answer late
    assert [a["id"] for a in apps] == [data["app_id"]]
    assert data["pid"] and data["process"] == "running"
    result = sandbox.cli("check", "--component", "spark", "--format", "json")
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stdout
    assert report["components"]["spark"]["state"] == "OK"
    up = [m for m in report["metrics"] if m["name"] == "spark_job_up"]
    assert up and up[0]["value"] == 1 and up[0]["labels"] == {"job": JOB}


def _applications(ui_url: str):
    try:
        return rest_applications(ui_url, timeout=10)
    except SparkUnreachable:
        return None


def test_mutations_preview_and_read_only_refusal(sandbox, job):
    pid = status(sandbox)["pid"]
    preview = sandbox.cli("jobs", "stop", JOB, "-o", "json")
    assert preview.returncode == 0, preview.stderr
    plan = json.loads(preview.stdout)
    assert plan["operation"] == "jobs.stop" and plan["changes"][0]["after"] == "stopped"
    assert "dry run" in preview.stderr
    refused = sandbox.cli("--read-only", "jobs", "stop", JOB, "--execute")
    assert refused.returncode == 3
    assert refused.stderr.strip() == "streamctl: error: read-only mode (--read-only): refusing jobs stop"
    assert status(sandbox)["pid"] == pid  # still the same process


def test_list_and_no_second_driver_on_a_running_checkpoint(sandbox, job, tmp_path):
    listed = sandbox.cli("jobs", "list", "-o", "json")
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["name"] == JOB)
    assert row["state"] == "running" and row["origin"] == "context+launched"
    assert row["checkpoint_dir"] == str(job.checkpoint_dir)
    # Another machine (state dir) with the same context knows no pid, but must not start a
    # second driver on the checkpoint the sandbox's job is using.
    other = sandbox.cli("jobs", "start", JOB, "--execute", "-o", "json",
                        XDG_STATE_HOME=str(tmp_path / "elsewhere"))
    assert other.returncode == 0, other.stderr
    plan = json.loads(other.stdout)
    assert plan["changes"] == [] and "nothing to change" in other.stderr
    assert plan["warnings"][0].startswith(f"job {JOB} already runs on its checkpoint: ")
    assert not (tmp_path / "elsewhere" / "streamctl" / "jobs" / JOB / "run.json").exists()
    unknown = sandbox.cli("jobs", "stop", "no-such-job", "--execute")
    assert unknown.returncode == 3
    assert unknown.stderr.strip() == ("streamctl: error: job 'no-such-job' was not started by streamctl "
                                      "here (no pid known): stop it where it runs")


def test_checkpoint_command_reads_the_live_checkpoint(sandbox, job):
    result = sandbox.cli("jobs", "checkpoint", str(job.checkpoint_dir), "-o", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["latest_committed"] is not None and data["problems"] == []
    assert set(data["committed"]["kafka_offsets"]) == {"weblogs"}
    missing = sandbox.cli("jobs", "checkpoint", str(job.checkpoint_dir) + "-nowhere")
    assert missing.returncode != 0
    assert missing.stderr.strip().endswith("no such checkpoint directory")


def test_stop_is_critical_and_restart_resumes_from_the_checkpoint(sandbox, job):
    try:
        _stop_and_restart(sandbox, job)
    finally:  # leave the shared job running for whoever comes next
        if status(sandbox)["state"] != "running":
            sandbox.cli("jobs", "start", JOB, "--execute", timeout=240)


def _stop_and_restart(sandbox, job):
    stopped = sandbox.cli("jobs", "stop", JOB, "--execute")
    assert stopped.returncode == 0, stopped.stderr
    assert f"stopped {JOB}: stopped" in stopped.stderr  # the graceful path, no SIGKILL
    data = status(sandbox)
    assert data["state"] == "stopped" and data["process"] == "stopped"
    check = sandbox.cli("check", "--component", "spark")
    assert check.returncode == 2, check.stdout
    assert f"job {JOB} is not running: pid" in check.stdout
    services = {s["name"]: s["state"] for s in json.loads(sandbox.cli("sandbox", "status", "-o", "json").stdout)}
    assert services[f"spark-{JOB}"] == "stopped"
    audit = (sandbox.xdg_state / "streamctl" / "audit.jsonl").read_text().splitlines()
    assert json.loads(audit[-1])["operation"] == "jobs.stop" and json.loads(audit[-1])["result"] == "ok"

    halted = read_checkpoint(job.checkpoint_dir)
    assert halted.in_flight is None  # stopped between batches: the last planned one is committed
    produce_lines(sandbox.bootstrap_servers, "weblogs",
                  window_lines(next_window(halted.next_watermark_ms), 50, seed=5).lines)
    ends = log_end_offsets({"bootstrap.servers": sandbox.bootstrap_servers}, {"weblogs"})

    started = time.monotonic()
    result = sandbox.cli("jobs", "start", JOB, "--execute", timeout=240)
    assert result.returncode == 0, result.stderr
    resumed = sandbox.wait_until(lambda: caught_up(sandbox, ends), timeout=90, what="the restarted job to catch up")
    assert resumed["state"] == "running" and resumed["pid"] != data["pid"]
    assert time.monotonic() - started < 200

    after = read_checkpoint(job.checkpoint_dir)
    assert after.query_id == halted.query_id  # the same query, resumed
    first_new = halted.latest_committed + 1
    assert after.latest_committed >= first_new
    offsets_text = (Path(job.checkpoint_dir) / "offsets" / str(first_new)).read_text().splitlines()
    continued = json.loads(offsets_text[2])["weblogs"]
    before = halted.committed_offsets()
    assert all(continued[str(p)] >= o for (_, p), o in before.items())  # offsets continue, never rewind
    services = {s["name"]: s["state"] for s in json.loads(sandbox.cli("sandbox", "status", "-o", "json").stdout)}
    assert services[f"spark-{JOB}"] == "running"
