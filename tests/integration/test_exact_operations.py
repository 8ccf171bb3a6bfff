"""Exact operations on the real sandbox: a change whose answer was lost is never sent again.

The Kafka client's child is made to crash (SIGSEGV) right after the mutation's call returned,
through the test-only STREAMCTL_TEST_CRASH_AFTER (backends/kafka/isolated.py): the change reached
Kafka, its answer never reached the command. The hook crashes every call of the method it names,
so a command that sent the change again would crash again (or meet "already exists"): each test
sees the command read the change back, report it done with a note, audit it `ok`, and the cluster
hold the change once. A read-back that cannot reach Kafka is "outcome unknown", exit 4, audit
`unknown`. A Connect create whose answer a loopback proxy swallows is never sent to the second
worker.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

from streamctl.backends.kafka.isolated import CRASH_AFTER_ENV, isolated_backend
from streamctl.errors import ExitCode, OutcomeUnknown
from tests.integration.kafka_helpers import commit, produce, unique, write_context

pytestmark = pytest.mark.integration

CRASHED = "the Kafka client crashed (SIGSEGV, librdkafka) after the change was sent: not sent again"


@pytest.fixture
def kafka_cli(sandbox, tmp_path):
    """`streamctl` against a per-test context and state dir; `crash_after` sets the hook."""
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers)

    def run(*args, crash_after: str | None = None):
        env = {"XDG_STATE_HOME": str(tmp_path / "state")}
        if crash_after:
            env[CRASH_AFTER_ENV] = crash_after
        return sandbox.cli("--config", str(config), *args, **env)

    run.audit_path = tmp_path / "state" / "streamctl" / "audit.jsonl"
    return run


def _audit(path: Path, operation: str) -> list[dict]:
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in records if r["operation"] == operation]


def _done_once(result, kafka_cli, operation: str, method: str) -> dict:
    """The command said done after reading back; one audit record, `ok`, with the note."""
    assert result.returncode == 0, result.stderr
    assert "done:" in result.stderr and f"note: the answer was lost ({method}: {CRASHED})" in result.stderr, \
        result.stderr
    [entry] = _audit(kafka_cli.audit_path, operation)
    assert entry["result"] == "ok" and "the re-read shows the change made" in entry["note"], entry
    return entry


def _partitions(sandbox, topic: str) -> int | None:
    found = sandbox.kafka().metadata(topic).topic(topic)
    return None if found is None else len(found.partitions)


def test_a_create_whose_client_crashed_after_it_is_read_back_done_and_made_once(sandbox, kafka_cli):
    topic = unique("exact-create")
    result = kafka_cli("topics", "create", topic, "--partitions", "3", "--replication-factor", "2", "--execute",
                       crash_after="create_topic")
    entry = _done_once(result, kafka_cli, "topics.create", "create_topic")
    assert entry["after"] == [[f"topic {topic}", "partitions", 3]]
    assert _partitions(sandbox, topic) == 3


def test_add_partitions_alter_config_and_delete_after_a_crash_are_done_once(sandbox, kafka_cli):
    topic = unique("exact-topic")
    sandbox.kafka().create_topic(topic, 2, 2)

    grown = kafka_cli("topics", "add-partitions", topic, "--total", "4", "--execute", crash_after="add_partitions")
    _done_once(grown, kafka_cli, "topics.add-partitions", "add_partitions")
    assert _partitions(sandbox, topic) == 4  # sent twice, the second would be refused: already 4

    altered = kafka_cli("topics", "alter-config", topic, "retention.ms=4321000", "--execute",
                        crash_after="alter_topic_configs")
    _done_once(altered, kafka_cli, "topics.alter-config", "alter_topic_configs")
    assert sandbox.admin().topic_configs(topic)["retention.ms"].value == "4321000"

    deleted = kafka_cli("topics", "delete", topic, "--yes-delete", topic, "--execute", crash_after="delete_topic")
    _done_once(deleted, kafka_cli, "topics.delete", "delete_topic")
    sandbox.wait_until(lambda: _partitions(sandbox, topic) is None, what=f"{topic} gone")


def test_an_offset_reset_whose_commit_crashed_after_it_is_read_back_done(sandbox, kafka_cli):
    """The commit is the very call librdkafka #4605 crashes in."""
    topic, group = unique("exact-reset"), unique("exact-resetg")
    sandbox.kafka().create_topic(topic, 2, 2)
    produce(sandbox.bootstrap_servers, topic, 20, partitions=2)
    commit(sandbox.bootstrap_servers, group, {(topic, 0): 7, (topic, 1): 8})

    result = kafka_cli("groups", "reset-offsets", group, "--topic", topic, "--to-offset", "2", "--execute",
                       crash_after="commit_offsets")
    _done_once(result, kafka_cli, "groups.reset-offsets", "commit_offsets")
    assert Path(result.stderr.split("undo file: ")[1].split()[0]).is_file()  # kept though the answer was lost
    assert sandbox.admin().committed(group) == {(topic, 0): 2, (topic, 1): 2}


def test_a_read_that_crashes_is_still_asked_again(sandbox, kafka_cli):
    """Reads keep their retries: the hook crashes every metadata call, so `brokers` is asked four
    times, then says so (no change is involved)."""
    result = kafka_cli("brokers", crash_after="metadata")
    assert result.returncode == ExitCode.FAILURE
    assert "metadata: the Kafka client crashed 4 times (SIGSEGV, SIGSEGV, SIGSEGV, SIGSEGV" in result.stderr, \
        result.stderr
    assert "nothing was read" in result.stderr


class _ReadsElsewhere:
    """The admin a read-back meets when Kafka went away after the crash: its changes go to the
    sandbox (crashing after the call), its reads to a port where nothing listens."""

    def __init__(self, changes, reads):
        self._changes, self._reads = changes, reads

    def create_topic(self, *args, **kwargs):
        return self._changes.create_topic(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._reads, name)


def test_a_crash_whose_read_back_fails_is_outcome_unknown_audited_unknown(sandbox, tmp_path, monkeypatch):
    from streamctl.kafka.topics import execute as kafka_exec
    from streamctl.ops import Plan, audit

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv(CRASH_AFTER_ENV, "create_topic")
    monkeypatch.setattr(kafka_exec, "eventually", lambda verify, timeout=15.0: verify)  # one re-read
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"127.0.0.1:{closed.getsockname()[1]}"
    admin = _ReadsElsewhere(sandbox.admin(), isolated_backend({"bootstrap.servers": nowhere}, 2.0, admin=True))
    topic = unique("exact-unknown")
    plan = Plan("topics.create", topic, {"name": topic, "partitions": 2, "replication_factor": 2, "configs": {}})

    with pytest.raises(OutcomeUnknown) as unknown:
        kafka_exec.create_topic(admin, "it", plan)
    message = str(unknown.value)
    assert message.startswith(f"outcome unknown: re-read before retrying (create_topic: {CRASHED}; "
                              "the re-read failed too: "), message
    assert "\n" not in message and unknown.value.exit_code == ExitCode.OUTCOME_UNKNOWN == 4
    [entry] = audit.read()
    assert entry["result"] == "unknown" and entry["error"] == message
    assert _partitions(sandbox, topic) == 2  # it was made, once: the command did not claim `failed`


# ---- Connect: a write whose answer is lost goes to no second worker ---------------------------------

class AnswerSwallowingProxy:
    """A loopback TCP proxy to a real worker that forwards every request and drops every answer
    (the worker's reply is read and discarded; the client waits until it gives up). It keeps the
    request line of each connection it forwarded."""

    def __init__(self, worker: str):
        parsed = httpx.URL(worker)
        self.worker = (parsed.host, parsed.port)
        self.requests: list[str] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def close(self) -> None:
        self._server.close()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._forward, args=(client,), daemon=True).start()

    def _forward(self, client: socket.socket) -> None:
        with client, socket.create_connection(self.worker, timeout=30) as upstream:
            first = True
            client.settimeout(60)
            threading.Thread(target=_drain, args=(upstream,), daemon=True).start()
            while chunk := _recv(client):
                if first:
                    self.requests.append(chunk.split(b"\r\n", 1)[0].decode("latin-1"))
                    first = False
                upstream.sendall(chunk)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _drain(sock: socket.socket) -> None:
    while _recv(sock):
        pass


@pytest.fixture
def swallowing_proxy(sandbox):
    from streamctl.demo.connect_worker import url

    proxy = AnswerSwallowingProxy(url(sandbox.state))
    yield proxy
    proxy.close()


def test_a_connect_create_whose_answer_is_lost_is_not_sent_to_the_second_worker(sandbox, swallowing_proxy, tmp_path):
    from streamctl.demo.connect_worker import url

    worker = url(sandbox.state)
    name = unique("exact-sink")
    config = write_context(tmp_path / "c.yaml", sandbox.bootstrap_servers,
                           connect={"urls": [swallowing_proxy.url, worker], "timeout": 3})
    spec = tmp_path / "sink.json"
    spec.write_text(json.dumps({"config": {"connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                                           "tasks.max": "1", "topics": "weblog-stats",
                                           "file": str(tmp_path / "out.txt")}}))
    try:
        result = sandbox.cli("--config", str(config), "connect", "create", name, "--config", str(spec), "--execute",
                             XDG_STATE_HOME=str(tmp_path / "state"))
        posts = [r for r in swallowing_proxy.requests if r.startswith("POST ")]
        assert posts == ["POST /connectors HTTP/1.1"], swallowing_proxy.requests  # sent once, to the proxy
        assert result.returncode in (0, ExitCode.OUTCOME_UNKNOWN), result.stderr
        if result.returncode == 0:  # read back: the worker has it
            assert f"created: connector {name}" in result.stderr
            assert "note: the answer was lost (Connect worker " in result.stderr, result.stderr
            assert "not sent to another worker" in result.stderr
        else:
            assert result.stderr.strip().startswith("streamctl: error: outcome unknown: re-read before retrying"), result.stderr
        # The real worker holds exactly the one connector, as asked.
        listed = httpx.get(f"{worker}/connectors", timeout=10).json()
        assert listed.count(name) == 1
        [entry] = [json.loads(line) for line in (tmp_path / "state" / "streamctl" / "audit.jsonl")
                   .read_text().splitlines() if json.loads(line)["operation"] == "connect.create"]
        assert entry["result"] == ("ok" if result.returncode == 0 else "unknown"), entry
    finally:
        httpx.delete(f"{worker}/connectors/{name}", timeout=10)


def test_probe_markers_whose_producer_crashed_after_sending_are_found_not_written_twice(sandbox):
    """`check --probe` writes one marker per weblogs partition; its producer's child crashes right
    after the flush: the markers are looked for in the topic and the probe goes on with them."""
    from streamctl.backends.kafka.records import RecordReader
    from streamctl.pipeline.probe import HEADER

    started_ms = int(time.time() * 1000) - 5000
    result = sandbox.cli("check", "--component", "flume", "--probe", "--format", "json", "--timeout", "75",
                         **{CRASH_AFTER_ENV: "probe markers"})
    doc = json.loads(result.stdout)
    assert doc["components"]["probe"]["evaluated"], json.dumps(doc["components"]["probe"])
    entry = _audit(sandbox.xdg_state / "streamctl" / "audit.jsonl", "check.probe")[-1]
    assert entry["result"] == "ok" and f"probe markers: {CRASHED}" in entry["note"], entry
    wanted = (HEADER, entry["parameters"]["probe"].encode())
    with RecordReader({"bootstrap.servers": sandbox.bootstrap_servers}, 10) as reader:
        partitions = reader.partitions("weblogs")
        start = reader.offsets_for_time("weblogs", partitions, started_ms)
        markers = [r.partition for r in reader.read("weblogs", start) if wanted in r.headers]
    assert sorted(markers) == partitions  # one marker a partition: written once
