"""What `sandbox up --secure` runs: SCRAM-only Kafka, SASL-only ZooKeeper with ACLs on Kafka's
znodes, passwords only in private files, a context that refers to them; and in KRaft mode
(`--secure --kraft`) the same Kafka side, its SCRAM users formatted into the metadata log."""

from __future__ import annotations

import json
import stat
import time

import psutil
import pytest
import yaml

from streamctl.backends.kafka.client import KafkaError
from streamctl.backends.kafka.cluster import KafkaBackend
from streamctl.config import load_config
from streamctl.sandbox.secure import ADDONS_SKIPPED, KAFKA_SECRETS, MONITOR_CONTEXT, SECRETS, SUMMARY

pytestmark = pytest.mark.integration


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_passwords_are_private_files_and_the_context_refers_to_them(secure):
    folder = secure.root / "secrets"
    assert mode(folder) == 0o700
    assert {p.name for p in folder.iterdir()} == {f"{name}.password" for name in SECRETS}
    assert all(mode(p) == 0o600 for p in folder.iterdir())
    assert len(set(secure.secrets())) == len(SECRETS) + 1  # distinct, random
    assert all(mode(secure.root / "conf" / f) == 0o600 for f in ("kafka-jaas.conf", "zookeeper-jaas.conf"))

    raw = yaml.safe_load(secure.config_path.read_text())["contexts"]["sandbox"]
    assert raw["kafka"]["properties"]["sasl.password"] == f"${{file:{folder / 'kafka-streamctl.password'}}}"
    assert raw["zookeeper"]["sasl"]["password"] == f"${{file:{folder / 'zookeeper-streamctl.password'}}}"
    ctx = load_config(secure.config_path).context("sandbox")
    assert ctx.kafka.client_config()["sasl.password"] == secure.password("kafka-streamctl")
    assert ctx.zookeeper.sasl.password.get_secret_value() == secure.password("zookeeper-streamctl")


def test_status_shows_the_secure_mode(secure):
    result = secure.cli("sandbox", "status")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"mode: zookeeper, 1 broker(s), secure ({SUMMARY['zookeeper']})"
    assert {"zookeeper", "kafka-1"} <= set(result.stdout.split())


def test_up_again_reports_the_running_secure_stack_and_refuses_another_shape(secure):
    pids = {s.name: s.pid for s in secure.sandbox.state().services}
    again = secure.cli("sandbox", "up", "--brokers", "1", "--secure")
    assert again.returncode == 0, again.stderr
    assert again.stderr.splitlines()[0] == ADDONS_SKIPPED
    assert "sandbox already running" in again.stderr
    assert {s.name: s.pid for s in secure.sandbox.state().services} == pids
    plain = secure.cli("sandbox", "up", "--brokers", "1")
    assert plain.returncode == 3
    assert plain.stderr.strip() == (
        f"streamctl: error: the sandbox at {secure.root} is a secure zookeeper stack with 1 broker(s); "
        "run `streamctl sandbox down --wipe` before asking for another shape")


def test_the_kraft_secure_sandbox_starts_and_writes_its_contexts(secure_kraft):
    """`--secure --kraft`: Kafka's three SCRAM passwords (no ZooKeeper), the same two contexts,
    StandardAuthorizer, SCRAM only on the client listener, and no password outside the 0600
    secret and JAAS files: not in the configs, logs, data or state, nor on a command line (the
    storage format's argument files are gone)."""
    sandbox = secure_kraft
    folder = sandbox.root / "secrets"
    assert {p.name for p in folder.iterdir()} == {f"{name}.password" for name in KAFKA_SECRETS}
    assert mode(folder) == 0o700 and all(mode(p) == 0o600 for p in folder.iterdir())
    status = sandbox.cli("sandbox", "status")
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines()[0] == f"mode: kraft, 1 broker(s), secure ({SUMMARY['kraft']})"

    contexts = yaml.safe_load(sandbox.config_path.read_text())["contexts"]
    assert set(contexts) == {"sandbox", MONITOR_CONTEXT}
    assert "zookeeper" not in contexts["sandbox"]
    for name, user in (("sandbox", "streamctl"), (MONITOR_CONTEXT, "monitor")):
        properties = contexts[name]["kafka"]["properties"]
        assert (properties["sasl.username"], properties["sasl.password"]) == \
            (user, f"${{file:{folder / f'kafka-{user}.password'}}}")
    assert contexts[MONITOR_CONTEXT]["read_only"] is True

    md = KafkaBackend(sandbox.kafka_client(), timeout=5).metadata()
    assert [b.id for b in md.brokers] == [1]
    with pytest.raises(KafkaError):
        KafkaBackend({"bootstrap.servers": sandbox.bootstrap_servers}, timeout=3).metadata()
    server = (sandbox.root / "conf" / "kafka-1.properties").read_text().splitlines()
    assert "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer" in server
    assert not list((sandbox.root / "conf").glob("*.args"))

    passwords = [sandbox.password(name) for name in KAFKA_SECRETS]
    allowed = {*folder.iterdir(), sandbox.root / "conf" / "kafka-jaas.conf", sandbox.root / "conf" / "client-jaas.conf"}
    assert all(mode(path) == 0o600 for path in allowed)
    holding = [path for path in sandbox.tmp.rglob("*") if path.is_file() and path not in allowed
               and any(p.encode() in path.read_bytes() for p in passwords)]
    assert holding == []
    pids = {s.pid for s in sandbox.sandbox.state().services if s.alive}
    assert pids
    command_lines = " ".join(" ".join(psutil.Process(pid).cmdline()) for pid in pids)
    assert not [p for p in passwords if p in command_lines]


def test_kafka_listener_speaks_only_sasl_scram(secure):
    md = KafkaBackend(secure.kafka_client(), timeout=5).metadata()
    assert [b.id for b in md.brokers] == [1] and md.controller_id == 1
    with pytest.raises(KafkaError):
        KafkaBackend({"bootstrap.servers": secure.bootstrap_servers}, timeout=3).metadata()


def test_kafka_znodes_carry_acls_and_hide_the_credentials(secure):
    acls = secure.cli("zk", "stat", "/brokers/ids/1", "-o", "json")
    assert acls.returncode == 0, acls.stderr
    assert [(a["scheme"], a["id"], a["perms"]) for a in json.loads(acls.stdout)["acls"]] == [
        ("sasl", "kafka", "cdrwa"), ("world", "anyone", "r")]
    # SCRAM credentials are creator-only (the brokers' ZooKeeper user), not even listable by streamctl.
    for args, what in ((["ls", "/config/users"], "listing /config/users"),
                       (["get", "/config/users/streamctl"], "reading /config/users/streamctl"),
                       (["stat", "/config/users/streamctl"], "reading the ACLs of /config/users/streamctl")):
        hidden = secure.cli("zk", *args)
        assert hidden.returncode == 1
        assert hidden.stderr.strip() == f"streamctl: error: not authorised: {what}"


def test_the_connect_worker_logs_in_with_scram_and_runs_the_demo_sink(secure):
    """The worker's clients (its own, the sink's consumer) log in as the SCRAM user through a
    0600 JAAS file; the sandbox context reaches its REST API."""
    import httpx

    from streamctl.demo.connect_worker import DEMO_CONNECTOR, url

    base = url(secure.state)

    def running():
        try:
            status = httpx.get(f"{base}/connectors/{DEMO_CONNECTOR}/status", timeout=5).json()
        except (httpx.HTTPError, ValueError):
            return False
        return status.get("connector", {}).get("state") == "RUNNING" and \
            [t["state"] for t in status.get("tasks", [])] == ["RUNNING"]

    deadline = time.monotonic() + 90
    while not running():
        assert time.monotonic() < deadline, "the demo sink never ran on the secure stack"
        time.sleep(1)
    result = secure.cli("connect", "list", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert [c["state"] for c in json.loads(result.stdout)["connectors"]] == ["RUNNING"]
    jaas = secure.root / "conf" / "client-jaas.conf"
    assert "ScramLoginModule" in jaas.read_text() and jaas.stat().st_mode & 0o777 == 0o600
    assert "SASL_PLAINTEXT" in (secure.root / "conf" / "connect.properties").read_text()
