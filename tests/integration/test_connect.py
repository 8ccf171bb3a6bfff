"""Kafka Connect against the sandbox's real worker: every command's answer equals the REST API's,
operations are plans first, audited without secrets; a real task failure and its recovery."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from streamctl.demo.connect_worker import DEMO_CONNECTOR, url
from streamctl.jvm import maven
from tests.integration.kafka_helpers import unique, write_context

pytestmark = pytest.mark.integration

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
SECRET = "s3cr3t-hunter2"


@pytest.fixture(scope="module")
def worker(sandbox) -> str:
    base = url(sandbox.state)
    assert base, "the sandbox runs no Connect worker"
    sandbox.wait_until(lambda: _state_or_none(base, DEMO_CONNECTOR) == ("RUNNING", ["RUNNING"]), timeout=60,
                       what="the demo connector's task running")
    return base


@pytest.fixture
def connect(sandbox, worker, tmp_path):
    """`streamctl` against a per-test config (the sandbox's worker) and state dir."""
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers, connect={"urls": [worker]})

    def run(*args, **env):
        return sandbox.cli("--config", str(config), *args, XDG_STATE_HOME=str(tmp_path / "state"), **env)

    run.state = tmp_path / "state" / "streamctl"
    run.config = config
    return run


@pytest.fixture
def made(worker):
    """Names of connectors a test creates: deleted afterwards whatever happened, so a failed
    test leaves no FAILED connector behind for the tests that expect a healthy stack."""
    names: list[str] = []
    yield names
    for name in names:
        httpx.delete(f"{worker}/connectors/{name}", timeout=10)


def _rest(base: str, path: str, method: str = "GET", **kwargs):
    response = httpx.request(method, base + path, timeout=10, **kwargs)
    response.raise_for_status()
    return response.json() if response.content else None


def _json(result) -> dict | list:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _audit(run) -> list[dict]:
    path = run.state / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _sink_config(tmp_path: Path, out: Path, **extra) -> Path:
    path = tmp_path / "sink.json"
    path.write_text(json.dumps({"config": {"connector.class": SINK, "tasks.max": "1", "topics": "weblog-stats",
                                           "file": str(out), "db.password": SECRET, **extra}}))
    return path


def _state_or_none(worker: str, name: str) -> tuple[str, list[str]] | None:
    """None while the worker has no status for it yet (just created: 404)."""
    try:
        return _state(worker, name)
    except httpx.HTTPStatusError:
        return None


def _state(worker: str, name: str) -> tuple[str, list[str]]:
    status = _rest(worker, f"/connectors/{name}/status")
    return status["connector"]["state"], [t["state"] for t in status["tasks"]]


# ---- reads equal the REST API -------------------------------------------------------------------

def test_list_equals_the_rest_api(connect, worker):
    listed = _json(connect("connect", "list", "-o", "json"))
    expanded = _rest(worker, "/connectors?expand=status&expand=info")
    assert listed["version"] == _rest(worker, "/")["version"]
    assert {c["name"]: (c["state"], c["type"], c["tasks"], c["tasks_running"]) for c in listed["connectors"]} == {
        name: (e["status"]["connector"]["state"], e["status"]["type"], len(e["status"]["tasks"]),
               sum(t["state"] == "RUNNING" for t in e["status"]["tasks"]))
        for name, e in expanded.items()}
    demo = next(c for c in listed["connectors"] if c["name"] == DEMO_CONNECTOR)
    assert demo["group"] == f"connect-{DEMO_CONNECTOR}" and demo["topics"] == ["weblog-stats"]


def test_status_describe_plugins_and_offsets_equal_the_rest_api(connect, worker):
    # The demo sink runs and commits meanwhile: a live reading is compared with the REST API's
    # until the two are taken between the same changes.
    def status_equal() -> bool:
        status = _json(connect("connect", "status", DEMO_CONNECTOR, "-o", "json"))
        rest = _rest(worker, f"/connectors/{DEMO_CONNECTOR}/status")
        return ((status["state"], status["worker_id"]) == (rest["connector"]["state"], rest["connector"]["worker_id"])
                and [(t["id"], t["state"], t["worker_id"]) for t in status["task_states"]]
                == [(t["id"], t["state"], t["worker_id"]) for t in rest["tasks"]])

    _wait(status_equal, what="connect status to equal the REST API's")

    described = _json(connect("connect", "describe", DEMO_CONNECTOR, "-o", "json"))
    assert described["config"] == _rest(worker, f"/connectors/{DEMO_CONNECTOR}/config")

    plugins = _json(connect("connect", "plugins", "-o", "json"))
    assert [(p["class"], p["type"], p["version"]) for p in plugins] == \
        [(p["class"], p["type"], p["version"]) for p in _rest(worker, "/connector-plugins")]

    def offsets_equal() -> bool:
        offsets = _json(connect("connect", "offsets", DEMO_CONNECTOR, "-o", "json"))
        return [o["raw"] for o in offsets["offsets"]] == _rest(worker, f"/connectors/{DEMO_CONNECTOR}/offsets")["offsets"]

    _wait(offsets_equal, what="connect offsets to equal the REST API's")


def test_the_demo_sink_is_a_consumer_group_with_offsets(connect, sandbox, worker):
    sandbox.wait_until(lambda: _rest(worker, f"/connectors/{DEMO_CONNECTOR}/offsets")["offsets"], timeout=60,
                       what="the demo sink's first commit")
    groups = _json(connect("groups", "list", "-o", "json"))
    assert f"connect-{DEMO_CONNECTOR}" in {g["id"] for g in groups}


# ---- operations -----------------------------------------------------------------------------

def test_create_update_pause_resume_delete_are_plans_first_and_audited_without_secrets(connect, made, worker, tmp_path):
    name = unique("it-sink")
    made.append(name)
    config = _sink_config(tmp_path, tmp_path / "out.txt")

    dry = connect("connect", "create", name, "--config", str(config), "-o", "json")
    plan = _json(dry)
    assert plan["operation"] == "connect.create" and "dry run" in dry.stderr
    assert name not in _rest(worker, "/connectors")
    assert {c["field"]: c["after"] for c in plan["changes"]}["db.password"] == "******"

    created = connect("connect", "create", name, "--config", str(config), "--execute")
    assert created.returncode == 0, created.stderr
    assert name in _rest(worker, "/connectors")
    _wait(lambda: _state_or_none(worker, name) == ("RUNNING", ["RUNNING"]))

    changed = _sink_config(tmp_path, tmp_path / "other.txt")
    update = _json(connect("connect", "update", name, "--config", str(changed), "-o", "json"))
    assert [(c["field"], c["before"], c["after"]) for c in update["changes"]] == \
        [("file", str(tmp_path / "out.txt"), str(tmp_path / "other.txt"))]
    assert connect("connect", "update", name, "--config", str(changed), "--execute").returncode == 0
    assert _rest(worker, f"/connectors/{name}/config")["file"] == str(tmp_path / "other.txt")

    for action, expected in (("pause", "PAUSED"), ("resume", "RUNNING"), ("stop", "STOPPED"), ("resume", "RUNNING")):
        result = connect("connect", action, name, "--execute")
        assert result.returncode == 0, result.stderr
        assert _state(worker, name)[0] == expected
    again = connect("connect", "resume", name, "--execute")
    assert again.returncode == 0 and "nothing to change" in again.stderr

    deleted = connect("connect", "delete", name, "--execute")
    assert deleted.returncode == 0, deleted.stderr
    assert name not in _rest(worker, "/connectors")

    records = _audit(connect)
    assert [(r["operation"], r["result"]) for r in records] == [
        ("connect.create", "ok"), ("connect.update", "ok"), ("connect.pause", "ok"), ("connect.resume", "ok"),
        ("connect.stop", "ok"), ("connect.resume", "ok"), ("connect.delete", "ok")]
    assert SECRET not in (connect.state / "audit.jsonl").read_text()


def test_offsets_reset_needs_a_stopped_connector_keeps_an_undo_file_and_undoes(connect, made, worker, tmp_path):
    name = unique("it-offsets")
    made.append(name)
    assert connect("connect", "create", name, "--config", str(_sink_config(tmp_path, tmp_path / "o.txt")),
                   "--execute").returncode == 0
    _wait(lambda: _rest(worker, f"/connectors/{name}/offsets")["offsets"], timeout=60)
    running = connect("connect", "offsets", "reset", name, "--execute")
    assert running.returncode != 0 and "STOPPED" in running.stderr and len(running.stderr.splitlines()) == 1

    assert connect("connect", "stop", name, "--execute").returncode == 0
    before = _rest(worker, f"/connectors/{name}/offsets")["offsets"]
    reset = connect("connect", "offsets", "reset", name, "--execute")
    assert reset.returncode == 0, reset.stderr
    assert _rest(worker, f"/connectors/{name}/offsets")["offsets"] == []
    undo_files = list((connect.state / "undo" / "connect").rglob("*.json"))
    assert len(undo_files) == 1 and json.loads(undo_files[0].read_text())["offsets"] == before

    undone = connect("connect", "offsets", "undo", name, "--execute")
    assert undone.returncode == 0, undone.stderr
    key = lambda o: json.dumps(o, sort_keys=True)  # noqa: E731
    assert sorted(map(key, _rest(worker, f"/connectors/{name}/offsets")["offsets"])) == sorted(map(key, before))
    assert connect("connect", "delete", name, "--execute").returncode == 0


def test_a_task_that_really_fails_is_crit_then_restarted_back_to_running(connect, made, worker, tmp_path):
    name = unique("it-broken")
    made.append(name)
    missing = tmp_path / "not-yet"  # FileStreamSink does not create folders: the task fails
    assert connect("connect", "create", name, "--config", str(_sink_config(tmp_path, missing / "out.txt")),
                   "--execute").returncode == 0
    _wait(lambda: (_state_or_none(worker, name) or ("", []))[1] == ["FAILED"], timeout=60)

    check = connect("check", "--component", "connect", "--format", "json")
    assert check.returncode == 2, check.stdout
    finding = next(f for f in json.loads(check.stdout)["findings"] if f["code"] == "CONNECT_TASK_FAILED")
    rest = _rest(worker, f"/connectors/{name}/status")["tasks"][0]
    assert finding["object"] == f"task {name}/0"
    assert rest["worker_id"] in finding["text"] and rest["trace"].splitlines()[0] in finding["text"]

    status = _json(connect("connect", "status", name, "-o", "json"))
    assert status["task_states"][0]["trace"] == rest["trace"].splitlines()[0].strip()
    full = _json(connect("connect", "status", name, "--trace", "-o", "json"))
    assert full["task_states"][0]["trace"] == rest["trace"]

    missing.mkdir()  # the fix
    plan = _json(connect("connect", "restart", name, "--only-failed", "--include-tasks", "-o", "json"))
    assert [(c["object"], c["before"]) for c in plan["changes"]] == [(f"task {name}/0", "FAILED")]
    restarted = connect("connect", "restart", name, "--only-failed", "--include-tasks", "--execute")
    assert restarted.returncode == 0, restarted.stderr
    _wait(lambda: _state(worker, name) == ("RUNNING", ["RUNNING"]), timeout=60)
    after = connect("check", "--component", "connect", "--format", "json")
    assert not [f for f in json.loads(after.stdout)["findings"] if name in f["text"]], after.stdout
    assert connect("connect", "delete", name, "--execute").returncode == 0


def test_paused_is_a_warning_unless_expected(connect, made, sandbox, worker, tmp_path):
    name = unique("it-paused")
    made.append(name)
    assert connect("connect", "create", name, "--config", str(_sink_config(tmp_path, tmp_path / "p.txt")),
                   "--execute").returncode == 0
    assert connect("connect", "pause", name, "--execute").returncode == 0
    findings = json.loads(connect("check", "--component", "connect", "--format", "json").stdout)["findings"]
    assert [f["code"] for f in findings if name in f["object"]] == ["CONNECT_CONNECTOR_PAUSED"]
    expected = write_context(tmp_path / "e.yaml", sandbox.bootstrap_servers,
                             connect={"urls": [worker], "expected_paused": ["it-paused*"]})
    quiet = connect("--config", str(expected), "check", "--component", "connect", "--format", "json")
    assert not [f for f in json.loads(quiet.stdout)["findings"] if name in f["object"]]


# ---- refusals and bad input ---------------------------------------------------------------------

@pytest.mark.parametrize("args", [("pause", DEMO_CONNECTOR), ("delete", DEMO_CONNECTOR),
                                  ("restart", DEMO_CONNECTOR), ("offsets", "reset", DEMO_CONNECTOR)])
def test_read_only_refuses_every_operation(connect, worker, args):
    result = connect("--read-only", "connect", *args, "--execute")
    assert result.returncode != 0 and "read-only" in result.stderr and len(result.stderr.splitlines()) == 1
    assert _state(worker, DEMO_CONNECTOR)[0] == "RUNNING"
    assert _audit(connect) == []


@pytest.mark.parametrize("content, message", [
    ('{"config": {"connector.class": ', "not valid JSON (line 1"),
    ("[1, 2]", "expected a JSON object"),
    ('{"connector.class": {"nested": 1}}', "must be a string"),
    ("# nothing\n", "no properties"),
    (json.dumps({"connector.class": SINK, "tasks.max": "many", "topics": "t", "file": "/tmp/x"}),
     "the worker rejects the config: tasks.max: Invalid value many"),
    (json.dumps({"connector.class": "com.example.NoSuchConnector"}), "the worker rejects the config"),
])
def test_bad_config_files_are_one_line_errors(connect, worker, tmp_path, content, message):
    path = tmp_path / ("c.properties" if content.startswith("#") else "c.json")
    path.write_text(content)
    result = connect("connect", "create", unique("bad"), "--config", str(path))
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr


def test_unknown_connector_and_missing_section_are_one_line(connect, sandbox, tmp_path):
    result = connect("connect", "status", "no-such-connector")
    assert result.returncode != 0 and result.stderr.strip() == \
        "streamctl: error: no connector 'no-such-connector' on the Connect cluster"
    bare = write_context(tmp_path / "bare.yaml", sandbox.bootstrap_servers)
    result = connect("--config", str(bare), "connect", "list")
    assert result.returncode != 0 and "no connect: section" in result.stderr


def _wait(predicate, timeout: float = 30.0, what: str = "condition"):
    from tests.conftest import RunningSandbox

    return RunningSandbox.wait_until(predicate, timeout=timeout, interval=0.5, what=what)


def test_a_worker_on_the_kraft_sandbox_runs_the_demo_sink(kraft_sandbox):
    """Kafka 4.x in KRaft mode: the same worker (connect-runtime and connect-file of the KRaft version)."""
    state, _ = kraft_sandbox.sandbox.up(brokers=3, kraft=True, addon_roles=("connect",))
    worker = url(state)
    kraft_sandbox.wait_until(lambda: _state_or_none(worker, DEMO_CONNECTOR) == ("RUNNING", ["RUNNING"]), timeout=90,
                             what="the demo sink running on the KRaft stack")
    assert _rest(worker, "/")["version"] == maven.KAFKA_KRAFT_VERSION
    listed = _json(kraft_sandbox.cli("connect", "list", "-o", "json"))
    assert [(c["name"], c["state"], c["tasks_running"]) for c in listed["connectors"]] == [(DEMO_CONNECTOR, "RUNNING", 1)]
    check = kraft_sandbox.cli("check", "--component", "connect")
    assert check.returncode == 0, check.stdout
    assert "'connect_tasks_running'=1" in check.stdout
