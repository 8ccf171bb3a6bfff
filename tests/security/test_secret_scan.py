"""No secret ever shows up: run reads, failures, dry runs and executed mutations (which write the
audit log and undo files) against the secure sandbox, then look for every password in what
they printed, in every file under the XDG dirs (the sandbox's logs and data included), in the
ZooKeeper AdminServer's answers and in the sandbox processes' command lines. The only files
holding a password are the sandbox's 0600 secret and JAAS files (the Connect worker's login too)."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import httpx
import psutil
import pytest

from tests.security.conftest import WRONG_PASSWORD
from tests.security.helpers import files_holding, topic_with_group, unique

pytestmark = pytest.mark.integration


def commands(secure, config: Path, monitor: Path, scratch: str, topic: str, group: str,
             tmp: Path) -> list[tuple[list[str], dict]]:
    """(argv, extra env) of everything the scan runs: reads, failures, dry runs, executions,
    also as the `monitor` principal (a mutation the brokers' ACLs refuse)."""
    ok = secure.password_env()
    bad_kafka = secure.password_env(kafka=WRONG_PASSWORD)
    bad_zk = secure.password_env(zookeeper=WRONG_PASSWORD)
    no_env: dict = {}
    c = ["--config", str(config)]
    new_topic = unique("scan")
    return [
        # reads
        ([*c, "check"], ok),
        ([*c, "check", "--format", "json"], ok),
        ([*c, "check", "--format", "prometheus", "--prometheus-textfile", str(tmp / "check.prom")], ok),
        ([*c, "brokers", "-o", "json"], ok),
        ([*c, "topics", "list", "-o", "json"], ok),
        ([*c, "topics", "describe", topic, "-o", "json"], ok),
        ([*c, "groups", "list"], ok),
        ([*c, "groups", "describe", group, "-o", "json"], ok),
        ([*c, "groups", "lag", "-o", "json"], ok),
        ([*c, "zk", "ls", "/", "-o", "json"], ok),
        ([*c, "zk", "stat", "/brokers/ids/1", "-o", "json"], ok),
        ([*c, "zk", "kafka", "-o", "json"], ok),
        ([*c, "zk", "health", "-o", "json"], ok),
        (["--context", "sandbox", "connect", "list", "-o", "json"], no_env),
        (["--context", "sandbox", "connect", "describe", "weblog-archive", "-o", "json"], no_env),
        (["--context", "sandbox", "check", "--component", "connect"], no_env),
        (["--context", "sandbox", "topics", "list"], no_env),
        (["sandbox", "status"], no_env),
        (["sandbox", "status", "-o", "json"], no_env),
        (["--context", "sandbox-monitor", "check", "--format", "json"], no_env),
        (["--context", "sandbox-monitor", "groups", "lag", "-o", "json"], no_env),
        (["--config", str(monitor), "topics", "read", topic, "-o", "json"], secure.monitor_env()),
        # failures
        ([*c, "topics", "list", "-o", "json"], bad_kafka),
        ([*c, "zk", "ls", "/"], bad_zk),
        ([*c, "check", "--format", "json"], {**bad_kafka, "ZK_PASSWORD": WRONG_PASSWORD}),
        ([*c, "check", "--format", "prometheus"], bad_kafka),
        ([*c, "topics", "list"], {"ZK_PASSWORD": WRONG_PASSWORD}),  # KAFKA_PASSWORD unset
        ([*c, "zk", "get", "/config/users/streamctl"], ok),  # not authorised
        (["--config", str(monitor), "topics", "delete", topic, "--execute", "--yes-delete", topic],
         secure.monitor_env()),  # not authorized (Kafka's ACLs)
        # dry runs
        ([*c, "topics", "create", new_topic, "--partitions", "1", "--replication-factor", "1", "-o", "json"], ok),
        ([*c, "topics", "alter-config", topic, "retention.ms=3600000"], ok),
        ([*c, "zk", "create", scratch, "hello"], ok),
        # executed mutations (audit log, undo file), one of them refused by a ZooKeeper ACL
        ([*c, "topics", "create", new_topic, "--partitions", "1", "--replication-factor", "1", "--execute"], ok),
        ([*c, "groups", "reset-offsets", group, "--topic", topic, "--to-latest", "--execute"], ok),
        ([*c, "zk", "create", scratch, "hello", "--execute"], ok),
        ([*c, "zk", "set", "/brokers/ids/1", "{}", "--execute"], ok),
        ([*c, "audit", "-o", "json"], no_env),
        ([*c, "audit"], no_env),
    ]


def test_no_password_in_output_files_logs_or_command_lines(secure, tmp_path):
    topic, group = topic_with_group(secure)
    config = secure.write_context(tmp_path / "env.yaml")
    monitor = secure.write_monitor_context(tmp_path / "monitor.yaml")
    scratch = f"/{unique('scan')}"
    printed = []
    for args, env in commands(secure, config, monitor, scratch, topic, group, secure.xdg_state):
        result = secure.cli(*args, **env)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        printed.append((args, result))

    # The scan saw real failures and real audit records, not just quiet successes.
    by_args = {tuple(args): result for args, result in printed}
    c = ("--config", str(config))
    reset = by_args[(*c, "groups", "reset-offsets", group, "--topic", topic, "--to-latest", "--execute")]
    assert reset.returncode == 0, reset.stderr
    refused = by_args[(*c, "zk", "set", "/brokers/ids/1", "{}", "--execute")]
    assert refused.stderr.strip() == "streamctl: error: not authorised: writing /brokers/ids/1"
    acl = by_args[("--config", str(monitor), "topics", "delete", topic, "--execute", "--yes-delete", topic)]
    assert acl.stderr.strip().endswith(f"User:monitor lacks Delete on Topic '{topic}' (TOPIC_AUTHORIZATION_FAILED)")
    assert sum(r.returncode != 0 and r.stderr.startswith("streamctl: error: ") for _, r in printed) == 6
    audit = json.loads(by_args[(*c, "audit", "-o", "json")].stdout)
    assert [(r["operation"], r["result"]) for r in audit][-4:] == [
        ("topics.create", "ok"), ("groups.reset-offsets", "ok"), ("zk.create", "ok"), ("zk.set", "failed")]

    secrets = secure.secrets()
    for args, result in printed:
        for secret in secrets:
            assert secret not in result.stdout and secret not in result.stderr, f"a password printed by {args}"

    holders = set((secure.root / "secrets").iterdir()) | {
        secure.root / "conf" / "kafka-jaas.conf", secure.root / "conf" / "zookeeper-jaas.conf",
        secure.root / "conf" / "client-jaas.conf"}
    found, scanned = files_holding((secure.tmp, tmp_path), secrets)
    for path in (h for h in holders if h.exists()):
        assert found.pop(path, None) and stat.S_IMODE(path.stat().st_mode) == 0o600, path  # the scan does find them
    assert not found, f"a password in {sorted(found)}"
    logs = list((secure.root / "logs").glob("*.log"))
    assert {p.name for p in logs} == {"zookeeper.log", "kafka-1.log", "connect.log"} and scanned > 50
    assert (secure.xdg_state / "streamctl" / "audit.jsonl").exists()
    assert list((secure.xdg_state / "streamctl" / "undo").rglob("*.csv"))

    admin = f"http://127.0.0.1:{secure.state.admin_port}/commands"
    names = [n for n in re.findall(r'href="/commands/(\w+)"', httpx.get(admin, timeout=5).text)
             if "reset" not in n]  # every read the AdminServer offers
    assert {"configuration", "environment", "system_properties", "dump"} <= set(names)
    for name in names:
        answer = httpx.get(f"{admin}/{name}", timeout=5).text
        assert not [s for s in secrets if s in answer], f"a password in the AdminServer's {name}"

    for service in secure.sandbox.state().services:
        argv = " ".join(psutil.Process(service.pid).cmdline())
        assert not [s for s in secrets if s in argv], f"a password on the command line of {service.name}"
